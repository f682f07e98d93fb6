/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by netroot.c (iSCSI, NBD, the dispatch) and netroot_nfs.c;
 * the words of a spec live in netroot_words.c, below both. Not an API. */
#ifndef UNIRAMFS_INIT_NET_NETROOT_PRIV_H
#define UNIRAMFS_INIT_NET_NETROOT_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "init/net/netroot.h"
#include "util.h"

/* netroot_words.c. Add an owned warning message to w. */
void netroot_warn(struct strv *w, char *msg);
/* Take "[v6]" or up to the first ':' off *s as the server. Returns the
 * server (owned), or NULL with *s unchanged when there is no ':'. */
char *netroot_take_server(const char **s, bool *bad_bracket);
bool netroot_all_digits(const char *s, size_t n);
/* A decimal number of at most 5 digits in [min, max], or -EINVAL. */
long netroot_small_number(const char *s, size_t n, long min, long max);
/* netroot_nfs.c: dracut's [SERVER:]PATH[:OPTS] after "nfs:" or "nfs4:"
 * (vers 4 or 0: as the options say). */
int nfs_dracut_parse(const char *spec, const char *whole, int vers, struct nfs_root *r, struct strv *w);
void nfs_root_free(struct nfs_root *r);

#endif
