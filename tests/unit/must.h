/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For the helpers linked into tests: test.h's counters are per file, so
 * a helper that fails stops the test. */
#ifndef UNIRAMFS_TEST_MUST_H
#define UNIRAMFS_TEST_MUST_H

#include <stdio.h>
#include <stdlib.h>

#define MUST(cond)                                                                           \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			printf("# %s:%d: helper failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                             \
		}                                                                            \
	} while (0)

#endif
