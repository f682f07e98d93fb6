/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether the image packs what root=live:https://… needs: the host's curl
 * with its libraries and CA bundle (TLS is not the init's to write). The
 * programs are uniramfs's own plugin's, plugins/live-https.conf
 * (if-feature = live-https). */
#ifndef UNIRAMFS_GEN_LIVEHTTPS_H
#define UNIRAMFS_GEN_LIVEHTTPS_H

#include <stdbool.h>

/* Does this command line's root= name an image on an HTTPS server
 * (root=live:https://… or dracut's root=https://…)? */
bool live_https_asked(const char *cmdline);
/* yes: the config's live-https; else the baked command line, and for a
 * hostonly image this machine's own (SYSROOT/proc/cmdline). */
bool live_https_wanted(bool yes, const char *cmdline, const char *sysroot, bool hostonly);

#endif
