// SPDX-License-Identifier: GPL-2.0-or-later
/* hostonly_detect on a live root (src/gen/hostonly/hostonly_live.c): the
 * host's /proc/cmdline (root=live:SPEC, rd.live.image, boot=live
 * live-media= fetch=), its /proc/self/mountinfo and udev's record of the
 * medium, written into a scratch sysroot whose sysfs has one disk,
 * sdb1 (8:17), named by /dev/disk/by-label/LIVE and by-uuid/1234. The
 * input is the three files separated by NUL bytes.
 * Rules beyond "no crash": a medium found is 8:17 or a device the
 * mountinfo names, never something a name climbed to; each filesystem
 * type is one word. A broken rule traps. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/hostonly/hostonly.h"
#include "log.h"
#include "util.h"

static char root[PATH_MAX];

static void quiet_sink(int level, const char *msg, void *userdata)
{
	(void)level;
	(void)msg;
	(void)userdata;
}

static void put(const char *rel, const char *data, size_t len)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
}

static void mk(const char *rel)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		abort();
}

static void ln(const char *target, const char *rel)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (symlink(target, path) < 0 && errno != EEXIST)
		abort();
}

static void setup(void)
{
	static const char *const dirs[] = {
		"proc", "proc/self", "sys", "sys/devices", "sys/devices/virtual",
		"sys/devices/virtual/block", "sys/devices/virtual/block/sdb1", "sys/dev",
		"sys/dev/block", "sys/class", "sys/class/block", "sys/class/net", "dev", "dev/disk",
		"dev/disk/by-label", "dev/disk/by-uuid", "run", "run/udev", "run/udev/data", "etc",
	};
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/fuzz-hostonly-live-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		abort();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		mk(dirs[i]);
	put("sys/devices/virtual/block/sdb1/dev", "8:17\n", 5);
	ln("../../devices/virtual/block/sdb1", "sys/dev/block/8:17");
	ln("../../devices/virtual/block/sdb1", "sys/class/block/sdb1");
	put("dev/sdb1", "", 0);
	ln("../../sdb1", "dev/disk/by-label/LIVE");
	ln("../../sdb1", "dev/disk/by-uuid/1234");
	put("etc/shadow", "root:x:\n", 8);
}

/* a mountinfo line's MAJ:MIN field (the third) is majmin */
static bool in_mountinfo(const char *mi, const char *majmin)
{
	size_t n = strlen(majmin);

	for (const char *p = mi; (p = strstr(p, majmin)); p++)
		if (p > mi && p[-1] == ' ' && p[n] == ' ')
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[3] = { "", "", "" };
	size_t len[3] = { 0, 0, 0 };
	char *copy = xmalloc(size + 1), *mi;
	struct hostonly h;
	size_t k = 0, start = 0;

	if (!root[0]) {
		log_set_sink(quiet_sink, NULL);
		setup();
	}
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (size_t i = 0; i <= size && k < 3; i++)
		if (i == size || copy[i] == '\0') {
			part[k] = copy + start;
			len[k++] = i - start;
			start = i + 1;
		}
	put("proc/cmdline", part[0], len[0]);
	put("proc/self/mountinfo", part[1], len[1]);
	put("run/udev/data/b8:17", part[2], len[2]);
	mi = xstrndup(part[1], len[1]);
	if (hostonly_detect(root, &h) == 0) {
		if (h.root_dev && strcmp(h.root_dev, "8:17") && !in_mountinfo(mi, h.root_dev))
			__builtin_trap();
		for (size_t i = 0; i < h.fstypes.n; i++)
			if (!h.fstypes.v[i][0] || strpbrk(h.fstypes.v[i], " \t\n/"))
				__builtin_trap();
		hostonly_free(&h);
	}
	free(mi);
	free(copy);
	return 0;
}
