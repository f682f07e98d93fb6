/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_CONSOLE_H
#define UNIRAMFS_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/image/image.h"

/* The console's keymap and font for the passphrase prompt: a keymap
 * compiled by the host's loadkeys (kbd) to its binary form, which the
 * init loads with KDSKBENT, and a PSF font it loads with KDFONTOP. */
struct console_plan {
	char *keymap, *keymap_from; /* its name and where that was said */
	char *font, *font_from;
	/* FONT_MAP, FONT_UNIMAP: loaded at boot by the packed setfont, since
	 * reading kbd's map formats is kbd's job */
	char *font_map, *font_map_from;
	char *font_unimap, *font_unimap_from;
	char *xkb_variant; /* /etc/default/keyboard's, for its first layout */
};

/* What to pack: the baked command line's vconsole.keymap= /
 * rd.vconsole.keymap= (and .font) first; a hostonly build then reads the
 * sysroot's /etc/vconsole.conf, else Debian's /etc/default/keyboard. A
 * generic image without either keeps the kernel's US layout. */
int console_plan_settings(struct console_plan *cp, const char *sysroot, const char *cmdline,
			  bool hostonly);
/* Find, compile and check them and add LAYOUT_KEYMAP_FILE,
 * LAYOUT_FONT_FILE and LAYOUT_VCONSOLE_FILE. Nothing asked: nothing. */
int console_plan_add(const struct console_plan *cp, struct image *img, const char *sysroot);
void console_plan_free(struct console_plan *cp);

#endif
