// SPDX-License-Identifier: GPL-2.0-or-later
/* When an image packs curl and the CA bundle (src/gen/features/livehttps.c):
 * the config's live-https, or a command line whose root= is an image on
 * an HTTPS server; a hostonly image reads the running one too. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void test_wanted(void)
{
	char dir[] = "/tmp/uniramfs-livehttps.XXXXXX", path[64];
	FILE *f;

	CHECK(live_https_wanted(true, NULL, "/nonexistent", false));
	CHECK(!live_https_wanted(false, NULL, "/nonexistent", true));
	CHECK(live_https_wanted(false, "root=live:https://h/x", "/nonexistent", false));
	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/cmdline", dir);
	f = fopen(path, "w");
	CHECK(f && fputs("BOOT_IMAGE=/vmlinuz root=live:https://h/root.squashfs quiet\n", f) >= 0);
	if (f)
		fclose(f);
	CHECK(live_https_wanted(false, NULL, dir, true));
	CHECK(!live_https_wanted(false, NULL, dir, false)); /* generic: this machine's is not read */
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	RUN(test_asked);
	RUN(test_wanted);
	return test_done();
}
