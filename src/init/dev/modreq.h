/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_DEV_MODREQ_H
#define UNIRAMFS_INIT_DEV_MODREQ_H

#include <stdbool.h>

/* The kernel's module requests: request_module() runs the program of
 * /proc/sys/kernel/modprobe as "PATH -q -- NAME" (kernel/module/kmod.c),
 * and the init answers it under that name from the image's index. */
struct modreq {
	const char *name; /* a module name or alias: "crypto-xts(serpent)", "fs-btrfs" */
	bool quiet;       /* -q: a name with no module is not an error to show */
};

/* argv as modprobe gets it: [-q|--quiet] [--] NAME, nothing else. The
 * name comes from the kernel, but is checked as any input: 1 to
 * MODREQ_NAME_MAX bytes of letters, digits and "-_.,:()+@=", not
 * starting with '-'. 0, or -EINVAL with err set naming what is wrong. */
int modreq_parse(int argc, char *const argv[], struct modreq *rq);

/* The kernel's own limit is MODULE_NAME_LEN (64) for what it asks;
 * modprobe run by hand may name a longer modalias. */
#define MODREQ_NAME_MAX 255

#endif
