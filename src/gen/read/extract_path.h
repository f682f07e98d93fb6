/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_EXTRACT_PATH_H
#define UNIRAMFS_EXTRACT_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Paths inside the directory `uniramfs extract` unpacks into. */

/* The components a member name names inside the target, every byte
 * kept: split on '/' only; empty and "." components go (so "/a", "./a",
 * "a/" and "a//b" name what a path lookup gives them), ".." is refused.
 * -errno + err_* on "..". */
int name_split(const char *name, struct strv *comps);
/* The first n components joined with '/' ("" for none). */
char *comps_join(const struct strv *comps, size_t n);

/* Open the directory at path below root with every symlink on the way
 * resolved as if root were "/" (openat2's RESOLVE_IN_ROOT): an absolute
 * target or a ".." above root stays inside root. Returns an O_RDONLY
 * directory fd or -errno. */
int open_dir_in_root(int root, const char *path);

/* Tests: resolve by walking component by component with O_NOFOLLOW, as
 * on kernels without openat2 (also forced by UNIRAMFS_NO_OPENAT2=1 in
 * the environment). */
void extract_path_force_walk(bool on);

#endif
