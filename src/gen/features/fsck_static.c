// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/features/fsck_static.h"

#include <ctype.h>
#include <linux/elf.h> /* not <elf.h>: src/gen/elf.h shadows it */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gen/elf/elf_parse.h"
#include "gen/host/sysroot.h"
#include "log.h"
#include "util.h"

/* "5-Feb-2023", "20-May-2024": e2fsprogs' E2FSPROGS_DATE. */
static bool is_release_date(const char *s, size_t n)
{
	size_t d = 0;

	while (d < n && d < 2 && isdigit((unsigned char)s[d]))
		d++;
	return d && n == d + 9 && s[d] == '-' && isupper((unsigned char)s[d + 1]) &&
	       islower((unsigned char)s[d + 2]) && islower((unsigned char)s[d + 3]) &&
	       s[d + 4] == '-' && isdigit((unsigned char)s[d + 5]) && isdigit((unsigned char)s[d + 6]) &&
	       isdigit((unsigned char)s[d + 7]) && isdigit((unsigned char)s[d + 8]);
}

/* Whether the NUL-terminated string s of length n stands in data. */
static bool has_string(const char *data, size_t len, const char *s, size_t n)
{
	for (const char *p = data; (p = memmem(p, len - (size_t)(p - data), s, n + 1)); p++)
		if (p == data || p[-1] == '\0')
			return true;
	return false;
}

/* 1 when every release date in dyn stands in sta, 0 when one does not
 * or dyn has none; date gets the first. */
static int same_release(const char *dyn, size_t dlen, const char *sta, size_t slen,
			char *date, size_t datelen)
{
	int found = 0;

	for (size_t i = 0; i < dlen;) {
		size_t n = strnlen(dyn + i, dlen - i);

		if (n < dlen - i && is_release_date(dyn + i, n)) {
			if (!has_string(sta, slen, dyn + i, n))
				return 0;
			if (!found++)
				snprintf(date, datelen, "%.*s", (int)n, dyn + i);
		}
		i += n + 1;
	}
	return found > 0;
}

static bool is_static_exec(const char *path)
{
	struct elf_file f = { 0 };
	bool ok = elf_parse_path(path, &f) == 1 && (f.type == ET_EXEC || f.type == ET_DYN) &&
		  !f.interp && !f.needed.n;

	elf_file_free(&f);
	return ok;
}

char *fsck_static_for(const char *sysroot, const char *dynamic, const char *static_path)
{
	char *spath = NULL, *dyn = NULL, *sta = NULL, date[16];
	struct stat st;
	size_t dlen, slen;
	char *use = NULL;

	if (sysroot_path(sysroot, static_path, &spath, &st) < 0 || !is_static_exec(spath))
		log_info("%s is not a static executable: packing %s", static_path, dynamic);
	else if (sysroot_read(sysroot, dynamic, &dyn, &dlen) < 0 || sysroot_read(sysroot, static_path, &sta, &slen) < 0)
		log_info("cannot compare %s with %s: %s; packing %s", static_path, dynamic, err_msg(),
			 dynamic);
	else if (!same_release(dyn, dlen, sta, slen, date, sizeof(date)))
		log_info("%s is not the release of %s: packing %s", static_path, dynamic, dynamic);
	else
		use = xstrdup(static_path);
	if (use)
		log_info("packing %s as %s (the same release, %s; no libraries to load)", static_path,
			 dynamic, date);
	free(dyn);
	free(sta);
	free(spath);
	return use;
}
