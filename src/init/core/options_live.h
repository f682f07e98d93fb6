/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_OPTIONS_LIVE_H
#define UNIRAMFS_INIT_OPTIONS_LIVE_H

#include <stdbool.h>

#include "cmdline.h"
#include "init/core/options.h"

/* Debian live-boot's words (boot=live, live-media=, live-media-path=, and
 * those it acts on that uniramfs does not, said by name). true if p was
 * one of them. */
bool live_word(struct options *o, const struct cmdline_param *p);
/* After the whole line: boot=live makes the root a live one, on the medium
 * live-media= names (root=, which live-boot ignores, is dropped) or else
 * the one a scan of the block devices finds, in Debian's layout
 * (live/filesystem.squashfs) unless rd.live.dir= or live-media-path= say
 * otherwise. */
void live_fold(struct options *o);
/* live-media-path=: the directory below the medium's top, without its
 * leading and trailing slashes, in a new string; NULL for a path that is
 * empty, goes up (..) or is too long, with *why saying which. */
char *live_media_path(const char *val, const char **why);

#endif
