// SPDX-License-Identifier: GPL-2.0-or-later
/* What every part of hostonly detection shares, below them all: sysfs
 * links resolved inside the sysroot, the walk up /sys/devices collecting
 * drivers and modaliases, and the words a network root puts on the baked
 * command line. hostonly.c, hostonly_mount.c, hostonly_net.c and
 * hostonly_route.c call down here; nothing here calls them. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/hostonly/hostonly_priv.h"
#include "log.h"

static void push_uniq(struct strv *s, const char *str)
{
	if (!strv_contains(s, str))
		strv_push(s, str);
}

/* The real path of a sysfs link, which must stay inside the sysroot.
 * Returns 0, or 1 when there is no such file (callers decide whether that
 * matters), or -errno (err_* set): a link pointing nowhere is an error. */
int hostonly_resolve_link(const struct ctx *c, const char *path, char **out)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 1;
		return err_errno(errno, "cannot read %s", path);
	}
	real = realpath(path, NULL);
	if (!real) {
		if (errno == ENOENT && S_ISLNK(st.st_mode))
			return err_set("%s: dangling symlink", path);
		return err_errno(errno, "cannot resolve %s", path);
	}
	if (*c->root && !str_has_prefix(real, c->root)) {
		err_set("%s: points outside the sysroot, to %s", path, real);
		free(real);
		return err_code();
	}
	*out = real;
	return 0;
}

/* One device on the way up: its driver's module (built-in drivers have no
 * module link, so nothing to pack) and its modalias. */
static int check_device_level(const struct ctx *c, const char *dir)
{
	char *path = xasprintf("%s/driver", dir), *line, *real = NULL;
	int r = hostonly_resolve_link(c, path, &real);

	free(path);
	if (r < 0)
		return r;
	if (r == 0) {
		char target[PATH_MAX];
		char *modlink = xasprintf("%s/module", real);
		ssize_t n = readlink(modlink, target, sizeof(target) - 1);

		if (n > 0) {
			const char *slash;
			target[n] = '\0';
			slash = strrchr(target, '/');
			push_uniq(&c->h->modules, slash ? slash + 1 : target);
		}
		free(modlink);
		free(real);
	}
	path = xasprintf("%s/modalias", dir);
	if (read_line(path, &line) == 0) {
		if (*line)
			push_uniq(&c->h->modaliases, line);
		free(line);
	}
	free(path);
	return 0;
}

/* From a device directory up to /sys/devices: the disk's own driver (sd,
 * virtio_blk, nvme), then its controller and every bus above it. */
int hostonly_walk_up(const struct ctx *c, const char *dir)
{
	char *top = xasprintf("%s/sys/devices", c->root);
	char *p = xstrdup(dir);
	size_t toplen = strlen(top);
	int r = 0;

	while (strlen(p) > toplen && str_has_prefix(p, top) && p[toplen] == '/') {
		r = check_device_level(c, p);
		if (r < 0)
			break;
		*strrchr(p, '/') = '\0';
	}
	free(p);
	free(top);
	return r;
}

void hostonly_net_push_module(const struct ctx *c, const char *name)
{
	if (!strv_contains(&c->h->modules, name))
		strv_push(&c->h->modules, name);
}

/* text with control characters as \ooo, for a message. */
char *hostonly_printable(const char *text)
{
	struct buf b = { 0 };

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			buf_printf(&b, "\\%03o", *p);
		else
			buf_append(&b, p, 1);
	}
	buf_append(&b, "", 1);
	return b.p;
}

/* key=val on the baked command line, which the init splits as the
 * kernel does: white space needs double quotes around the value, and
 * nothing can quote a '"' or a control character. */
int hostonly_net_push_word(const struct ctx *c, const char *key, const char *val, const char *what)
{
	bool space = false;

	for (const unsigned char *p = (const unsigned char *)val; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '"') {
			char *t = hostonly_printable(val);
			err_set("%s \"%s\" has a quote or control character: it cannot go on the kernel command line",
				what, t);
			free(t);
			return err_code();
		}
		space |= *p == ' ';
	}
	strv_push_owned(&c->h->net.cmdline, space ? xasprintf("%s=\"%s\"", key, val) : xasprintf("%s=%s", key, val));
	return 0;
}

bool hostonly_net_is_addr(const char *s, int *family)
{
	unsigned char buf[16];

	if (inet_pton(AF_INET, s, buf) == 1)
		*family = AF_INET;
	else if (inet_pton(AF_INET6, s, buf) == 1)
		*family = AF_INET6;
	else
		return false;
	return true;
}
