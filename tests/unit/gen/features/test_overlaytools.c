// SPDX-License-Identifier: GPL-2.0-or-later
/* When an image packs the overlay's tools (src/gen/features/overlaytools.c):
 * the config's overlay-tools, or a command line with rd.overlay.crypt= or
 * a live root whose rd.overlay= (rd.live.overlay=) names a LABEL= the
 * init may make; a hostonly image reads the running one too. */

#include "gen/features/overlaytools.h"
#include "test.h"

static void test_asked(void)
{
	CHECK(!overlay_tools_asked(NULL));
	CHECK(!overlay_tools_asked(""));
	CHECK(overlay_tools_asked("root=LABEL=dracut rd.overlay.crypt=LABEL=CRYPT"));
	CHECK(!overlay_tools_asked("rd.overlay.crypt="));
	CHECK(!overlay_tools_asked("rd.overlay.crypt"));
	CHECK(overlay_tools_asked("rd.live.image rd.overlay=LABEL=persist"));
	CHECK(overlay_tools_asked("root=live:/dev/disk/by-label/dracut rd.overlay "
				  "rd.live.overlay=LABEL=persist"));
	/* not live: a missing LABEL= falls back to a tmpfs, nothing is made */
	CHECK(!overlay_tools_asked("root=LABEL=dracut rd.overlay=LABEL=OVERLAY"));
	CHECK(!overlay_tools_asked("rd.live.image rd.overlay=UUID=1234"));
	CHECK(!overlay_tools_asked("rd.live.image rd.overlay"));
	/* the last one counts, as in the init */
	CHECK(!overlay_tools_asked("rd.live.image rd.overlay=LABEL=persist rd.overlay=0"));
}

/* the rule itself is feature_wanted's (test_feature_wanted) */
static void test_wanted(void)
{
	CHECK(overlay_tools_wanted(true, NULL, "/nonexistent", false));
	CHECK(!overlay_tools_wanted(false, NULL, "/nonexistent", true));
	CHECK(overlay_tools_wanted(false, "rd.overlay.crypt=LABEL=C", "/nonexistent", false));
}

int main(void)
{
	RUN(test_asked);
	RUN(test_wanted);
	return test_done();
}
