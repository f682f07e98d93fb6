/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_RUN_TOOL_H
#define UNIRAMFS_RUN_TOOL_H

#include <stddef.h>

#include "util.h"

/* Run a host tool (argv[0], looked up in PATH) with stdin on /dev/null
 * and its stderr ours, and collect at most max bytes of its stdout.
 * 0 when it exited 0; otherwise an error naming the tool and its status
 * (127: not installed, with pkg named). More output than max is an error. */
int run_tool_capture(const char *const argv[], const char *pkg, size_t max, struct buf *out);

/* The same, the tool also given the descriptors keep (open in it under
 * the same numbers, as /dev/fd/N names them). */
int run_tool_fds(const char *const argv[], const char *pkg, const int *keep, size_t nkeep, size_t max,
		 struct buf *out);

#endif
