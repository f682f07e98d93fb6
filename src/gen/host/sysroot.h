/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_SYSROOT_H
#define UNIRAMFS_SYSROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Called for each symlink met on the way: its path and its target, both
 * as seen inside the sysroot. Return <0 to stop (with err_set). */
typedef int (*sysroot_link_fn)(void *userdata, const char *link, const char *target);

/* Resolve path component by component as if sysroot were "/", following
 * every symlink (an absolute link stays inside the sysroot), as usrmerge
 * makes /lib a link to usr/lib. On success *real is the final path
 * inside the sysroot and *st its lstat. -errno + err_* when a component is
 * missing, a loop, or on_link fails. */
int sysroot_resolve(const char *sysroot, const char *path, sysroot_link_fn on_link, void *userdata, char **real,
		    struct stat *st);

/* The one way to a file a sysroot names: path (crypttab's key file, a
 * firmware name, a module's path, a link's target) resolved by
 * sysroot_resolve as if sysroot were "/", so ".." stops at the sysroot
 * and an absolute link lands inside it, never on the host. On success
 * *host is the host path of the final file, with no link in it, and
 * *st its lstat. -errno + err_* as sysroot_resolve (-ENOENT: missing). */
int sysroot_path(const char *sysroot, const char *path, char **host, struct stat *st);

/* The content of the regular file path names inside sysroot
 * (sysroot_path, then read_file): 0, -ENOENT when it is missing, or
 * -errno + err_* (a FIFO or device is refused, never opened). */
int sysroot_read(const char *sysroot, const char *path, char **data, size_t *len);

/* A name that must stay below its directory (a firmware name from
 * modinfo, a module's path in modules.dep): relative, no "..". */
bool sysroot_name_plain(const char *name);

/* The first DIR/NAME of dirs that SYSROOT has with access(2) mode (X_OK
 * for a tool, R_OK for a library), as a path inside the sysroot; NULL
 * when none. */
char *sysroot_find(const char *sysroot, const char *const *dirs, size_t ndirs, const char *name,
		   int mode);

/* The generator's one search for a program: the first DIR/NAME of
 * LAYOUT_TOOL_DIRS (the init's PATH, /usr/local first) that SYSROOT has
 * as a regular file with an execute bit, as a path inside the sysroot
 * ("/usr/sbin/cryptsetup", as elf_add_binary takes it); NULL when none.
 * The stacks, SSH, the network tools, fsck and the console's setfont
 * all look here. */
char *sysroot_find_tool(const char *sysroot, const char *name);

#endif
