/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_ERR_H
#define UNIRAMFS_ERR_H

/* Errors travel up as a negative errno code (kmod's convention: -EINVAL,
 * -ENOENT, -errno taken right after the failed call), 0 or a value >= 0
 * on success; callers test < 0 and pass the code on. The message for the
 * one report at the top (main, the failure shell) is kept here with the
 * code: a deeper function that fails formats what it was doing and what
 * went wrong; callers may prefix context with err_wrap. */

/* Record a message and return -EINVAL. */
int err_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Record a message and return code, a negative errno code that the
 * message says in its own words (-ETIMEDOUT: "no answer within 30
 * seconds"). */
int err_set_code(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record "fmt: strerror(errnum)" and return -errnum. errnum may be
 * negative (a returned code) or positive (errno); 0 returns -EIO. */
int err_errno(int errnum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefix the recorded message with more context and return the code
 * recorded with it. */
int err_wrap(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *err_msg(void);
/* The code recorded with the message (-EINVAL if none). */
int err_code(void);
void err_clear(void);

#endif
