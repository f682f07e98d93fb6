// SPDX-License-Identifier: GPL-2.0-or-later
/* fstab-style option words into mount(2) flags and the fs's data. */
#include <stdlib.h>
#include <sys/mount.h>

#include "init/stages/mountopts.h"
#include "test.h"

static void check(const char *opts, unsigned long want_flags, const char *want_data)
{
	unsigned long flags;
	char *data;

	mountopts_parse(opts, &flags, &data);
	if (flags != want_flags)
		printf("# '%s': flags 0x%lx, want 0x%lx\n", opts ? opts : "(null)", flags, want_flags);
	CHECK(flags == want_flags);
	if (want_data)
		CHECK_STR(data, want_data);
	else
		CHECK(data == NULL);
	free(data);
}

static void test_empty(void)
{
	check(NULL, 0, NULL);
	check("", 0, NULL);
	check(",,", 0, NULL);
	check("defaults", 0, NULL);
}

static void test_flags(void)
{
	check("ro", MS_RDONLY, NULL);
	check("ro,rw", 0, NULL);
	check("rw,ro", MS_RDONLY, NULL);
	check("nosuid,nodev,noexec", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	check("noatime,nodiratime", MS_NOATIME | MS_NODIRATIME, NULL);
	check("sync,dirsync,lazytime", MS_SYNCHRONOUS | MS_DIRSYNC | MS_LAZYTIME, NULL);
	check("relatime", MS_RELATIME, NULL);
	check("noatime,strictatime", MS_STRICTATIME, NULL);
	check("strictatime,relatime", MS_RELATIME, NULL);
	check("bind", MS_BIND, NULL);
	check("rbind", MS_BIND | MS_REC, NULL);
	check("nosuid,defaults", 0, NULL);
	check("noexec,exec,nodev,dev", 0, NULL);
}

static void test_data(void)
{
	check("subvol=@", 0, "subvol=@");
	check("noatime,subvol=@root,compress=zstd:3,ro", MS_NOATIME | MS_RDONLY,
	      "subvol=@root,compress=zstd:3");
	check("errors=remount-ro,data=ordered", 0, "errors=remount-ro,data=ordered");
	check("discard", 0, "discard");
}

static void test_mount8_only_words_dropped(void)
{
	check("defaults,nofail,noauto,x-systemd.device-timeout=5,_netdev,user,comment=foo", 0, NULL);
	check("auto,noatime", MS_NOATIME, NULL);
}

int main(void)
{
	RUN(test_empty);
	RUN(test_flags);
	RUN(test_data);
	RUN(test_mount8_only_words_dropped);
	return test_done();
}
