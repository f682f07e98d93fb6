/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_MOUNTOPTS_H
#define UNIRAMFS_INIT_MOUNTOPTS_H

/* fstab-style options ("noatime,subvol=@,ro") split into mount(2)
 * flags and the data string the filesystem parses: words mount(8)
 * knows become MS_ flags (later words win: "ro,rw" is rw), everything
 * else ("subvol=@", "errors=remount-ro") is passed on in data, in
 * order. *data is NULL when nothing is left for the filesystem. */
void mountopts_parse(const char *opts, unsigned long *flags, char **data);

#endif
