/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_BUILD_ALL_H
#define UNIRAMFS_BUILD_ALL_H

#include "gen/build/opts.h"

/* `uniramfs build --all`: the default image of every installed kernel.
 * One kernel's failure is reported and the others are still built; the
 * result is then -errno + err_* naming the kernels that failed. */
int build_all(struct build_opts *o);

#endif
