/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_ELF_LDCACHE_H
#define UNIRAMFS_ELF_LDCACHE_H

#include "gen/image/image.h"

/* ld.so finds a library outside its default directories (/lib, /usr/lib,
 * /lib64, /usr/lib64, /lib/TUPLE, /usr/lib/TUPLE) only through
 * /etc/ld.so.cache, never by reading ld.so.conf. When the image holds
 * files in a directory that the sysroot's ld.so.conf names and ld.so does
 * not search by itself (/usr/local/lib), give it the cache ldconfig makes
 * of those directories (host `ldconfig -r` on a copy of them). Nothing
 * when there are none or the image packs its own /etc/ld.so.cache. */
int elf_ldcache_add(struct image *img, const char *sysroot);

#endif
