/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tiny TAP producer: meson counts each subtest, and a failure prints
 * the file, line and expression that failed. */
#ifndef UNIRAMFS_TEST_H
#define UNIRAMFS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_n, test_failed_total, test_cur_failed;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			printf("# %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
			test_cur_failed++;                                                   \
		}                                                                            \
	} while (0)

#define CHECK_STR(a, b)                                                                      \
	do {                                                                                 \
		const char *a_ = (a), *b_ = (b);                                             \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                     \
			printf("# %s:%d: CHECK_STR failed: %s == %s\n#   got:      '%s'\n#   expected: '%s'\n", \
			       __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
			test_cur_failed++;                                                   \
		}                                                                            \
	} while (0)

/* Skip the current subtest with a reason (missing host facility). */
#define SKIP(reason)                                                                         \
	do {                                                                                 \
		printf("ok %d - %s # SKIP %s\n", ++test_n, __func__, reason);               \
		return;                                                                      \
	} while (0)

static inline void test_run(const char *name, void (*fn)(void))
{
	int before = test_n;
	test_cur_failed = 0;
	fn();
	if (test_n != before) /* skipped */
		return;
	test_n++;
	if (test_cur_failed) {
		test_failed_total++;
		printf("not ok %d - %s\n", test_n, name);
	} else {
		printf("ok %d - %s\n", test_n, name);
	}
	fflush(stdout);
}

#define RUN(fn) test_run(#fn, fn)

static inline int test_done(void)
{
	printf("1..%d\n", test_n);
	return test_failed_total ? 1 : 0;
}

#endif
