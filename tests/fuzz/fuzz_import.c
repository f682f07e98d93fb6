// SPDX-License-Identifier: GPL-2.0-or-later
/* `uniramfs import-config` (gen/import/): another generator's config,
 * written by whoever owned the sysroot, into uniramfs.conf text that
 * `--write` installs. The input's first byte picks the source
 * (initramfs-tools, dracut, mkinitcpio); the rest, split at NUL bytes,
 * is its main file, a conf.d file, and a third (initramfs-tools'
 * modules, dracut's /usr/lib conf.d file). Rules beyond "no crash":
 * the output always parses as uniramfs.conf (never the "internal
 * error"); every line is blank, a # comment or KEY = VALUE; a setting
 * follows its "# FILE:LINE: …" heading (and at most one note), never a
 * "not carried over" or "the same" note, so text the import refused
 * cannot become a live line (issue 24, item 4); no control character
 * is written. A broken rule traps. */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "log.h"
#include "util.h"
#include "gen/host/rmtree.h"
#include "gen/import/import.h"

static const struct {
	const char *name;
	const char *files[3];
} sources[] = {
	{ "initramfs-tools", { "/etc/initramfs-tools/initramfs.conf", "/etc/initramfs-tools/conf.d/fuzz",
			       "/etc/initramfs-tools/modules" } },
	{ "dracut", { "/etc/dracut.conf", "/etc/dracut.conf.d/10-fuzz.conf", "/usr/lib/dracut/dracut.conf.d/20-fuzz.conf" } },
	{ "mkinitcpio", { "/etc/mkinitcpio.conf", "/etc/mkinitcpio.conf.d/fuzz.conf", NULL } },
};

static char scratch[PATH_MAX];

static void quiet_sink(int level, const char *msg, void *userdata)
{
	(void)level;
	(void)msg;
	(void)userdata;
}

static void clean(void)
{
	rm_tree(scratch);
}

static void setup(void)
{
	static const char *const dirs[] = {
		"/etc", "/etc/initramfs-tools", "/etc/initramfs-tools/conf.d", "/etc/dracut.conf.d", "/usr",
		"/usr/lib", "/usr/lib/dracut", "/usr/lib/dracut/dracut.conf.d", "/etc/mkinitcpio.conf.d",
	};
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(scratch, sizeof(scratch), "%s/fuzz_import.XXXXXX", tmp);
	if (!mkdtemp(scratch))
		abort();
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *p = path_join(scratch, dirs[i]);
		if (mkdir(p, 0755) < 0)
			abort();
		free(p);
	}
	atexit(clean);
}

static void put(const char *file, const char *text, size_t n)
{
	char *p = path_join(scratch, file);
	int fd;

	unlink(p);
	if (text) {
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
		if (fd < 0 || write_all(fd, text, n) < 0)
			abort();
		close(fd);
	}
	free(p);
}

static bool heading(const char *line, const char *prev)
{
	return line && line[0] == '#' && line[1] == ' ' && line[2] != ' ' && prev && !*prev;
}

static void check(char *out)
{
	char *lines[4096];
	size_t n = 0, live = 0, cmdline = 0;

	for (char *s = out; *s; s++)
		if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
			__builtin_trap();
	for (char *l = out; l && n < ARRAY_SIZE(lines); n++) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		lines[n] = l;
		l = nl && nl[1] ? nl + 1 : NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i], *eq = strstr(l, " = ");
		if (!*l || l[0] == '#')
			continue;
		/* KEY = VALUE, a key of lower-case words */
		if (!eq || eq == l || strspn(l, "abcdefghijklmnopqrstuvwxyz_-.0123456789") != (size_t)(eq - l))
			__builtin_trap();
		live++;
		if (!strncmp(l, "cmdline = ", 10))
			cmdline = live;
		if (i >= 2 && heading(lines[i - 1], lines[i - 2]))
			continue;
		if (i >= 3 && heading(lines[i - 2], lines[i - 3]) && !strncmp(lines[i - 1], "#   ", 4) &&
		    strncmp(lines[i - 1], "#   not carried over", 20) != 0 &&
		    strncmp(lines[i - 1], "#   the same in uniramfs", 24) != 0 &&
		    strncmp(lines[i - 1], "#   carried into", 16) != 0)
			continue;
		__builtin_trap();
	}
	/* the command line is one setting, the last */
	if (cmdline && cmdline != live)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t which, at = 1;
	struct buf out = { 0 };

	if (!size)
		return 0;
	if (!*scratch)
		setup();
	log_set_sink(quiet_sink, NULL);
	which = data[0] % ARRAY_SIZE(sources);
	for (size_t i = 0; i < 3; i++) {
		const uint8_t *z = at < size ? memchr(data + at, '\0', size - at) : NULL;
		size_t n = at < size ? (z ? (size_t)(z - data) : size) - at : 0;
		if (!sources[which].files[i])
			continue;
		/* a part that is not there is a file that is not there */
		put(sources[which].files[i], at <= size && (i == 0 || at < size) ? (const char *)data + at : NULL, n);
		at += n + 1;
	}
	err_clear();
	if (import_config(scratch, sources[which].name, &out) == 0) {
		buf_append(&out, "", 1);
		check(out.p);
	} else if (strstr(err_msg(), "internal error")) {
		__builtin_trap();
	}
	err_clear();
	buf_free(&out);
	return 0;
}
