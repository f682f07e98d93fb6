/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_BUILD_H
#define UNIRAMFS_BUILD_H

#include "gen/build/opts.h"
#include "gen/image/image.h"

/* Make the image the options describe and write it atomically. */
int build_image(const struct build_opts *o);
/* The distribution's name for KVER's image in /boot: initrd.img-KVER
 * where SYSROOT/etc/debian_version exists, else initramfs-KVER.img. */
char *build_image_name(const char *sysroot, const char *kver);
/* build_files.c: --add-files's SRC[:DST] entries, directories with all
 * under them. */
int add_host_files(struct image *img, const struct strv *files);
/* build_uki.c: --uki FILE.efi around the image at path image (written
 * already), atomically like the image. */
int uki_write(const struct build_opts *o, const char *sysroot, const char *kver, const char *image);
/* build_uki.c: the --uki-* options that name the user's files (signing
 * keys), checked before any work; an error for one without --uki. */
int uki_check(const struct build_opts *o);

#endif
