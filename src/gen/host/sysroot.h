/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_SYSROOT_H
#define UNIRAMFS_SYSROOT_H

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
