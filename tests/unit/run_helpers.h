/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running the built binaries from a test, and finding what they run on. */
#ifndef UNIRAMFS_TEST_RUN_HELPERS_H
#define UNIRAMFS_TEST_RUN_HELPERS_H

#include <stdbool.h>

/* cmd run by sh; its stdout (never NULL, NUL-terminated) in *out if out
 * is given, the caller frees it. Returns the exit status, 128 when the
 * command did not exit (a signal). */
int run_capture(const char *cmd, char **out);

/* The command made from fmt run by sh, its output let through; a failure
 * names the command on stdout (a TAP comment). Returns system()'s status. */
int run_shf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write text to dir/rel, making rel's directories first. */
void write_under(const char *dir, const char *rel, const char *text);

/* Whether files a and b both read and hold the same bytes. */
bool same_file(const char *a, const char *b);

/* uniramfs and uniramfs-init of UNIRAMFS_BUILDDIR, and the last kernel
 * release listed in /lib/modules; false when there is no build dir or no
 * kernel (the callers skip). */
bool find_binaries(char **uniramfs, char **init_bin, char **kver);

/* tests/unit/fixtures/hostonly/NAME of UNIRAMFS_SRCDIR, resolved, or
 * "(missing fixture)" so the check that uses it names what is missing.
 * The caller frees it. */
char *hostonly_fixture(const char *name);

struct strv;
/* s's words joined by commas (at most 1000 bytes), so one CHECK_STR shows
 * the whole list; the string lives until four later calls. */
const char *strv_joined(const struct strv *s);

#endif
