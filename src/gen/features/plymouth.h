/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Plymouth splash (docs/cmdline.md "Plymouth"): plymouthd, its client
 * and DRM drivers come from uniramfs's own plugin plugins/plymouth.conf
 * (if-feature = plymouth); what depends on the host's choice of theme is
 * packed here: the theme, its splash module and images, the renderers,
 * the label plugin and fonts when the theme draws text, and the daemon's
 * configuration naming the theme packed. */
#ifndef UNIRAMFS_GEN_PLYMOUTH_H
#define UNIRAMFS_GEN_PLYMOUTH_H

#include <stdbool.h>

#include "gen/image/image.h"
#include "util.h"

/* The plymouth config key: auto, yes, no. */
enum plymouth_mode {
	PLYMOUTH_AUTO, /* the host's chosen theme, or splash on a command line */
	PLYMOUTH_YES,
	PLYMOUTH_NO,
};

/* Does this command line ask for the splash: `splash` (or `rhgb`) and
 * neither plymouth.enable=0 nor rd.plymouth=0? NULL: no line. */
bool plymouth_asked(const char *cmdline);
/* The config's plymouth: yes or no; auto: when the host's plymouth files
 * name an installed theme (plymouth_host_theme: the host shows that
 * splash, and initramfs-tools' and dracut's images would carry it), or as
 * feature_wanted, the baked command line, and for a hostonly image this
 * machine's, asks for it. A host without plymouthd never has it (the
 * plugin would fail). */
bool plymouth_wanted(enum plymouth_mode mode, const char *cmdline, const char *sysroot, bool hostonly);
/* 1 and *name when the host's plymouthd.conf, plymouthd.defaults or
 * default.plymouth link (in that order, as plymouth-set-default-theme
 * reads them) names an installed theme; 0 when none does; an error for a
 * name that is not one. */
int plymouth_host_theme(const char *sysroot, char **name);

/* One value of an ini text as plymouth reads its files: KEY in [SECTION]
 * (the first), blanks around '=' and at the ends cut; NULL when absent. */
char *plymouth_ini_get(const char *text, const char *section, const char *key);
/* The theme plymouthd would show on the host, as plymouth-set-default-theme
 * says: theme (the config's plymouth-theme) if given, else
 * /etc/plymouth/plymouthd.conf's, else plymouthd.defaults', else the
 * default.plymouth link's, each only when the theme is installed; else
 * "text". A name that is not one (letters, digits, ._-) is an error
 * naming it and its file. */
int plymouth_theme_name(const char *sysroot, const char *theme, char **name);
/* Pack the theme and what it needs (above) into img. */
int plymouth_plan_add(struct image *img, const char *sysroot, const char *theme);
/* Hostonly: the modules of the DRM drivers bound to this machine's
 * displays (SYSFS/class/drm/card*), added to *mods. */
void plymouth_host_drm(const char *sysfs, struct strv *mods);

#endif
