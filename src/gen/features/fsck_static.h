/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_GEN_FSCK_STATIC_H
#define UNIRAMFS_GEN_FSCK_STATIC_H

/* The statically linked checker a distribution ships beside the dynamic
 * one (Debian's e2fsck-static: /sbin/e2fsck.static), to pack in its
 * place: the same program without ld.so and its libraries to load,
 * which under QEMU TCG is 80 ms of a boot's fsck.
 *
 * dynamic is the checker's path below sysroot ("/usr/sbin/e2fsck"). The
 * static one's path below sysroot, or NULL (said why at -v) when there
 * is none, it is not a static ELF executable, or it is not the same
 * release: every date of the form 5-Feb-2023 in the dynamic one
 * (e2fsprogs' release date, which `e2fsck -V` prints) must stand in the
 * static one too, since an older checker refuses a filesystem with
 * features it does not know and the boot would stop there. */
char *fsck_static_for(const char *sysroot, const char *dynamic, const char *static_path);

#endif
