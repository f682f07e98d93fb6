/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A path of the root opened as the root's own programs would resolve
 * it: its links (absolute ones too) are followed inside the root and
 * can never lead out of it, into the initramfs or /proc's magic links.
 * The root is someone else's disk, so its links are hostile input. */
#ifndef UNIRAMFS_INIT_CORE_INROOT_H
#define UNIRAMFS_INIT_CORE_INROOT_H

/* rel below the directory rootfd (an O_PATH fd will do), with open(2)'s
 * flags: an fd, or -errno. On a kernel without openat2 (before 5.6) a
 * link in rel's last part is refused (-ELOOP) rather than followed. */
int inroot_open(int rootfd, const char *rel, int flags);

#endif
