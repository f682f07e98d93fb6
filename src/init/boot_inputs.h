/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_BOOT_INPUTS_H
#define UNIRAMFS_INIT_BOOT_INPUTS_H

#include "init/init.h"

/* The options from /etc/uniramfs/cmdline, then the kernel's command
 * line over them (the kernel's win), and the log level they ask for. */
void boot_read_cmdline(struct init *in, int argc, char **argv);
/* in->envp, what the real init gets (the kernel's environment, PATH
 * added if absent), and in->tool_envp, the clean one hooks, tools and
 * the shell get. */
void boot_make_env(struct init *in, char **envp);
/* The running kernel is the one the image was made for (in->kver set):
 * 0, or a negative code (err set) naming both. */
int boot_check_kver(struct init *in);

#endif
