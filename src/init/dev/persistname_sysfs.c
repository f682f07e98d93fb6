// SPDX-License-Identifier: GPL-2.0-or-later
/* sysfs as udev's rules read it for the persistent names: a value put
 * in a rule by $attr{} loses trailing whitespace and has characters
 * outside a safe set replaced by '_'; a value put in a SYMLINK has each
 * run of whitespace made one '_' (one helper a step); the device's
 * parents, subsystem and type; and the link names made of them. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "init/dev/persistname.h"
#include "init/dev/persistname_priv.h"

/* ---- udev's string steps ---- */

/* udev_replace_whitespace: leading and trailing whitespace dropped, each
 * run inside becomes one '_'. In place: the result is never longer. */
void pn_replace_whitespace(char *s)
{
	size_t len = strlen(s), i = 0, j = 0;
	bool space = false;

	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	for (; i < len; i++) {
		if (isspace((unsigned char)s[i])) {
			space = true;
			continue;
		}
		if (space)
			s[j++] = '_';
		space = false;
		s[j++] = s[i];
	}
	s[j] = '\0';
}

/* The length of the valid UTF-8 sequence of two or more bytes at s (as
 * systemd's utf8_encoded_valid_unichar: shortest form, a character and
 * not a surrogate or noncharacter), else 0. */
static size_t utf8_multibyte(const unsigned char *s)
{
	size_t len;
	uint32_t c;

	if (s[0] >= 0xc0 && s[0] < 0xe0) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] < 0xf0) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] < 0xf8) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000))
		return 0; /* overlong */
	if (c >= 0x110000 || (c & 0xfffff800) == 0xd800 || (c >= 0xfdd0 && c <= 0xfdef) ||
	    (c & 0xfffe) == 0xfffe)
		return 0;
	return len;
}

/* udev_replace_chars: all but letters, digits, "#+-.:=@_", the bytes in
 * allow, "\x" and valid UTF-8 becomes '_' (whitespace becomes ' ' where
 * allow has a space). */
void pn_replace_chars(char *s, const char *allow)
{
	for (size_t i = 0; s[i];) {
		unsigned char c = (unsigned char)s[i];
		size_t n;

		if ((c < 0x80 && isalnum(c)) || strchr("#+-.:=@_", c) || (allow && strchr(allow, c))) {
			i++;
		} else if (c == '\\' && s[i + 1] == 'x') {
			i += 2;
		} else if ((n = utf8_multibyte((const unsigned char *)s + i)) > 1) {
			i += n;
		} else {
			s[i++] = isspace(c) && allow && strchr(allow, ' ') ? ' ' : '_';
		}
	}
}

void pn_strip_trailing_space(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* What "$attr{X}" puts in a rule: udev's UDEV_ALLOWED_CHARS_INPUT. */
char *pn_attr_subst(const char *v)
{
	char *s = xstrdup(v);

	pn_strip_trailing_space(s);
	pn_replace_chars(s, "/ $%?,");
	return s;
}

/* Whitespace runs to '_', then pn_replace_chars: what ata_id, scsi_id and
 * usb_id do to each string they report. */
char *pn_helper_string(const char *v)
{
	char *s = xstrdup(v);

	pn_replace_whitespace(s);
	pn_replace_chars(s, NULL);
	return s;
}

/* ---- sysfs ---- */


/* An attribute with only the kernel's trailing newlines taken off (SCSI
 * vendor and model keep their padding: scsi_id counts it). */
char *pn_attr_raw(const char *dir, const char *attr)
{
	char *p = path_join(dir, attr), *data = NULL;
	size_t len = 0;
	int r = read_file(p, &data, &len);

	free(p);
	if (r < 0)
		return NULL;
	data[strnlen(data, len)] = '\0';
	for (len = strlen(data); len && (data[len - 1] == '\n' || data[len - 1] == '\r');)
		data[--len] = '\0';
	return data;
}

/* A binary attribute (the VPD pages), NULL when absent or empty. */
unsigned char *pn_attr_bin(const char *dir, const char *attr, size_t *len)
{
	char *p = path_join(dir, attr), *data = NULL;
	int r = read_file(p, &data, len);

	free(p);
	if (r < 0 || *len == 0) {
		free(data);
		return NULL;
	}
	return (unsigned char *)data;
}

static bool is_device(const char *dir)
{
	char *p = path_join(dir, "uevent");
	bool r = access(p, F_OK) == 0;

	free(p);
	return r;
}

const char *pn_sysname(const char *dir)
{
	const char *s = strrchr(dir, '/');

	return s ? s + 1 : dir;
}

/* sd_device_get_parent: the nearest directory above that is a device,
 * never above /sys/devices. */
char *pn_parent_dev(const struct sys *s, const char *dir)
{
	char *p = xstrdup(dir);

	for (;;) {
		char *slash = strrchr(p, '/');
		if (!slash || (size_t)(slash - p) <= s->devlen) {
			free(p);
			return NULL;
		}
		*slash = '\0';
		if (is_device(p))
			return p;
	}
}

/* The name of the subsystem the "subsystem" link points at. */
char *pn_subsystem(const char *dir)
{
	char *p = path_join(dir, "subsystem"), link[PATH_MAX];
	ssize_t n = readlink(p, link, sizeof(link) - 1);

	free(p);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	return xstrdup(pn_sysname(link));
}

bool pn_subsystem_is(const char *dir, const char *want)
{
	char *sub = pn_subsystem(dir);
	bool r = sub && !strcmp(sub, want);

	free(sub);
	return r;
}

bool pn_devtype_is(const char *dir, const char *want)
{
	char *ue = pn_attr_raw(dir, "uevent");
	bool r = false;

	for (char *line = ue, *next; line && *line && !r; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		r = str_has_prefix(line, "DEVTYPE=") && !strcmp(line + 8, want);
	}
	free(ue);
	return r;
}

/* sd_device_get_parent_with_subsystem_devtype */
char *pn_parent_with(const struct sys *s, const char *dir, const char *subsys,
			 const char *devtype)
{
	char *p = pn_parent_dev(s, dir);

	while (p && !(pn_subsystem_is(p, subsys) && (!devtype || pn_devtype_is(p, devtype)))) {
		char *up = pn_parent_dev(s, p);
		free(p);
		p = up;
	}
	return p;
}

/* ATTRS{X}=="?*": the device's or the nearest parent's non-blank X. */
char *pn_attrs_find(const struct sys *s, const char *dir, const char *attr)
{
	char *d = xstrdup(dir);

	while (d) {
		char *v = pn_attr_raw(d, attr), *up;
		if (v) {
			char *t = xstrdup(v);
			pn_strip_trailing_space(t);
			bool blank = !*t;
			free(t);
			if (!blank) {
				free(d);
				return v;
			}
			free(v);
		}
		up = pn_parent_dev(s, d);
		free(d);
		d = up;
	}
	return NULL;
}

/* ---- links ---- */

/* udev would make directories for a '/' in a value (a virtio serial
 * "a/b" gives by-id/virtio-a/b); an empty, "." or ".." part could point
 * outside /dev/disk, so such a name is not given. */
bool persistname_valid(const char *name)
{
	const char *p = name;

	for (;;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

/* SYMLINK+="disk/by-X/PREFIX$env{VALUE}SUFFIX": the value's whitespace
 * runs become '_', then the whole name goes through pn_replace_chars
 * keeping '/' (and ' ', which would split it, unless the rule says
 * string_escape=replace). */
void pn_add_link(struct strv *v, const char *prefix, const char *value, const char *suffix,
		     bool escape_replace)
{
	char *val, *name;

	if (!value || !*value)
		return;
	val = xstrdup(value);
	pn_replace_whitespace(val);
	name = xasprintf("%s%s%s", prefix, val, suffix);
	free(val);
	pn_replace_chars(name, escape_replace ? "/" : "/ ");
	name[strcspn(name, " ")] = '\0';
	if (*name && persistname_valid(name) && !strv_contains(v, name))
		strv_push_owned(v, name);
	else
		free(name);
}
