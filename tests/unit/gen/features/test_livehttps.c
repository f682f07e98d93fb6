// SPDX-License-Identifier: GPL-2.0-or-later
/* When an image packs curl and the CA bundle (src/gen/features/livehttps.c):
 * the config's live-https, or a command line whose root= is an image on
 * an HTTPS server; a hostonly image reads the running one too. */

#include "gen/features/livehttps.h"
#include "test.h"

static void test_asked(void)
{
	CHECK(!live_https_asked(NULL));
	CHECK(!live_https_asked(""));
	CHECK(live_https_asked("root=live:https://images.example.org/root.squashfs"));
	CHECK(live_https_asked("rd.live.sha256=00 root=https://10.0.2.2/x.img quiet"));
	CHECK(!live_https_asked("root=live:http://10.0.2.2/x.img"));
	CHECK(!live_https_asked("root=live:LABEL=https://"));
	/* the last root= counts, as in the init */
	CHECK(!live_https_asked("root=https://h/x root=UUID=1234"));
}

/* the rule itself is feature_wanted's (test_feature_wanted) */
static void test_wanted(void)
{
	CHECK(live_https_wanted(true, NULL, "/nonexistent", false));
	CHECK(!live_https_wanted(false, NULL, "/nonexistent", true));
	CHECK(live_https_wanted(false, "root=live:https://h/x", "/nonexistent", false));
}

int main(void)
{
	RUN(test_asked);
	RUN(test_wanted);
	return test_done();
}
