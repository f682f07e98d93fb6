/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether the image packs what the init needs to make an overlay's
 * upper layer at boot: rd.overlay.crypt= (a LUKS device formatted with
 * a random key) and a live medium's automatic overlay partition
 * (dracut's dmsquash-live-autooverlay). The programs are uniramfs's own
 * plugin's, plugins/overlay-tools.conf (if-feature = overlay-tools). */
#ifndef UNIRAMFS_GEN_OVERLAYTOOLS_H
#define UNIRAMFS_GEN_OVERLAYTOOLS_H

#include <stdbool.h>

/* Does this command line ask for them: rd.overlay.crypt=DEVICE, or a
 * live root (root=live:, rd.live.image) whose rd.overlay= or
 * rd.live.overlay= names a LABEL= the init may have to make? */
bool overlay_tools_asked(const char *cmdline);
/* yes: the config's overlay-tools; else the baked command line, and for
 * a hostonly image this machine's own (SYSROOT/proc/cmdline). */
bool overlay_tools_wanted(bool yes, const char *cmdline, const char *sysroot, bool hostonly);

#endif
