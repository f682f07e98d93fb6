/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_SHUTDOWN_PLAN_H
#define UNIRAMFS_SHUTDOWN_PLAN_H

#include "util.h"

/* What systemd-shutdown asks for in argv[1] when it pivots back into
 * /run/initramfs and executes /shutdown. */
enum shutdown_verb { VERB_POWEROFF, VERB_REBOOT, VERB_HALT, VERB_KEXEC };

/* -EINVAL (err set) on anything else (then the caller powers off: a machine
 * left running with its root unmounted is of no use to anyone). */
int shutdown_verb_parse(const char *arg, enum shutdown_verb *verb);
/* The reboot(2) command for a verb. */
int shutdown_verb_cmd(enum shutdown_verb verb);

/* The mount points of /proc/self/mountinfo text at or below prefix
 * (the old root), deepest first, octal escapes (\040) decoded: the
 * order to unmount them in. */
void shutdown_mounts_below(const char *mountinfo, const char *prefix, struct strv *out);

#endif
