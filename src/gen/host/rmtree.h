/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_RMTREE_H
#define UNIRAMFS_RMTREE_H

/* Removes dir and everything below it, never following a link nor
 * crossing into another mount, so only what is really under dir goes.
 * For trees this command made: what cannot be removed is warned about
 * and left, the caller's work being done by then. */
void rm_tree(const char *dir);

#endif
