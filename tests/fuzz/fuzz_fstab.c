// SPDX-License-Identifier: GPL-2.0-or-later
/* The root's /etc/fstab as the init reads it (stages/xinitrd_fstab.c):
 * it decides what is mounted below /sysroot before switch_root, and the
 * root may be anyone's disk. Rules beyond "no crash": at most one entry a
 * line and FSTAB_MAX_ENTRIES in all, in line order; every entry has a
 * spec, an absolute mount point (or "none"/"swap"), a type and options,
 * none empty; its quoted line is printable ASCII and short; every warning
 * names the file and has no control byte. A broken rule traps. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "init/stages/xinitrd.h"

static bool printable(const char *s, size_t max)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return n <= max;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fstab t;
	size_t lines = 1;
	int last = 0;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	fstab_parse((const char *)data, size, "fstab", &t);
	if (t.n > lines || t.n > FSTAB_MAX_ENTRIES)
		__builtin_trap();
	for (size_t i = 0; i < t.n; i++) {
		const struct fstab_entry *e = &t.v[i];
		if (!e->spec || !*e->spec || !e->file || !e->type || !*e->type || !e->opts ||
		    !*e->opts || !e->line)
			__builtin_trap();
		if (e->file[0] != '/' && strcmp(e->file, "none") && strcmp(e->file, "swap"))
			__builtin_trap();
		if (e->lineno <= last || e->passno < 0 || e->passno > 9999)
			__builtin_trap();
		last = e->lineno;
		if (!printable(e->line, 83))
			__builtin_trap();
		/* a selection's word is a whole option, never a part of one */
		if (fstab_has_opt(e->opts, "x-initrd.mount") && !strstr(e->opts, "x-initrd.mount"))
			__builtin_trap();
	}
	for (size_t i = 0; i < t.warnings.n; i++)
		if (strncmp(t.warnings.v[i], "fstab line ", 11) || !printable(t.warnings.v[i], 300))
			__builtin_trap();
	fstab_free(&t);
	return 0;
}
