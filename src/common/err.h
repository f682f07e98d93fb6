/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_ERR_H
#define UNIRAMFS_ERR_H

/* Errors travel up as -1 with a message kept here; the one place at the
 * top (main) prints it. A deeper function that fails formats what it was
 * doing and what went wrong; callers may prefix context with err_wrap. */

/* Record a message and return -1. */
int err_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Record "fmt: strerror(errnum)" and return -1. errnum may be negative. */
int err_errno(int errnum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefix the recorded message with more context and return -1. */
int err_wrap(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *err_msg(void);
void err_clear(void);

#endif
