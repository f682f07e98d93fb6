/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_PLUGINS_KDUMP_KDUMP_H
#define UNIRAMFS_PLUGINS_KDUMP_KDUMP_H

#include <stddef.h>
#include <time.h>

/* Debian's kdump-tools: KDUMP_COREDIR, and makedumpfile's -d 31 (no
 * zero, cache, user or free pages) */
#define KDUMP_DEFAULT_DIR "/var/crash"
#define KDUMP_DEFAULT_LEVEL 31
#define KDUMP_DIR_MAX 256

/* What the crash kernel's command line asks of the dump. */
struct kdump_opts {
	char dir[KDUMP_DIR_MAX]; /* rd.kdump.dir=: absolute, on the root */
	int level;               /* rd.kdump.level=: makedumpfile -d, 0-31 */
};

/* cmdline: /proc/cmdline's text (may be NULL). The defaults, then each
 * rd.kdump.dir= and rd.kdump.level= (the last one counts). 0, or
 * -EINVAL with why (size n) naming the word; o then keeps the default
 * for that word. */
int kdump_parse(const char *cmdline, struct kdump_opts *o, char *why, size_t n);
/* The dump's directory name below dir and its files' suffix, as
 * kdump-tools names them: YYYYMMDDHHMM in UTC (the initramfs has no
 * time zone). */
void kdump_stamp(time_t t, char *out, size_t n);

#endif
