// SPDX-License-Identifier: GPL-2.0-or-later
/* The ZFS root program's input: $1 as the init hands it (root=ZFS=pool/ds,
 * root=zfs:pool/ds, root=zfs:AUTO without their prefix), the command
 * line's force and rw, and a pool's bootfs. Everything here is
 * hostile text: the kernel's words, a pool's properties. */
#include "zfsroot.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool zfs_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == ':';
}

bool zfsroot_name_ok(const char *name)
{
	size_t len = strlen(name), comp = 0;

	if (len == 0 || len >= ZFSROOT_NAME_MAX)
		return false;
	if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')))
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (name[i] == '/' || name[i] == '\0') {
			/* an empty component: "a//b", "a/", or "." and ".." */
			if (comp == 0 || (comp == 1 && name[i - 1] == '.') ||
			    (comp == 2 && name[i - 1] == '.' && name[i - 2] == '.'))
				return false;
			comp = 0;
			continue;
		}
		if (!zfs_char(name[i]))
			return false;
		comp++;
	}
	return true;
}

/* A boolean word's value: KEY alone is true, KEY=0/no/off false. */
static bool word_bool(const char *w, size_t keylen)
{
	const char *v = w + keylen;

	if (*v != '=')
		return true;
	v++;
	return !(!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "n") ||
		 !strcasecmp(v, "off") || !strcasecmp(v, "false"));
}

static void read_cmdline(const char *cmdline, struct zfsroot_args *a)
{
	/* dracut's spellings and initramfs-tools' zfs_force; the last wins */
	static const char *const force_keys[] = { "rd.zfs.force", "zfs_force", "zfs.force",
						   "zfsforce" };
	const char *p = cmdline;

	while (p && *p) {
		char w[256];
		size_t n = strcspn(p, " \t\n");

		if (n > 0 && n < sizeof(w)) {
			memcpy(w, p, n);
			w[n] = '\0';
			if (!strcmp(w, "rw"))
				a->rw = true;
			else if (!strcmp(w, "ro"))
				a->rw = false;
			for (size_t k = 0; k < sizeof(force_keys) / sizeof(force_keys[0]); k++) {
				size_t kl = strlen(force_keys[k]);
				if (!strncmp(w, force_keys[k], kl) && (w[kl] == '\0' || w[kl] == '='))
					a->force = word_bool(w, kl);
			}
		}
		p += n;
		p += strspn(p, " \t\n");
	}
}

int zfsroot_parse(const char *spec, const char *cmdline, struct zfsroot_args *a, char *why,
		  size_t n)
{
	memset(a, 0, sizeof(*a));
	read_cmdline(cmdline, a);
	if (!spec || !*spec) {
		snprintf(why, n, "no dataset after the prefix (root=ZFS=pool/dataset or root=zfs:AUTO)");
		return -EINVAL;
	}
	if (!strcmp(spec, "AUTO")) {
		a->autodetect = true;
		return 0;
	}
	if (strchr(spec, '@') || strchr(spec, '#')) {
		snprintf(why, n, "'%.*s': a snapshot or bookmark is not a root (name a dataset)",
			 ZFSROOT_NAME_MAX, spec);
		return -EINVAL;
	}
	if (!zfsroot_name_ok(spec)) {
		snprintf(why, n,
			 "'%.*s' is not a dataset name (pool/dataset: letters, digits, \"_-.:\", "
			 "components split by '/')",
			 ZFSROOT_NAME_MAX, spec);
		return -EINVAL;
	}
	strcpy(a->dataset, spec);
	strcpy(a->pool, spec);
	a->pool[strcspn(a->pool, "/")] = '\0';
	return 0;
}

int zfsroot_bootfs(const char *list, char *out, size_t size)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *tab = memchr(p, '\t', n);

		if (tab) {
			size_t bl = n - (size_t)(tab + 1 - p);
			char b[ZFSROOT_NAME_MAX];
			if (bl < sizeof(b) && bl < size) {
				memcpy(b, tab + 1, bl);
				b[bl] = '\0';
				if (strcmp(b, "-") && zfsroot_name_ok(b)) {
					strcpy(out, b);
					return 0;
				}
			}
		}
		p += n;
		p += *p == '\n';
	}
	return -ENOENT;
}
