/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by persistname*.c: sysfs read as udev's rules read it
 * (persistname_sysfs.c), and the by-id (persistname_id.c) and by-path
 * (persistname_path.c) names made of it, and booster's
 * own spellings (persistname_booster.c). Not an API. */
#ifndef UNIRAMFS_INIT_DEV_PERSISTNAME_PRIV_H
#define UNIRAMFS_INIT_DEV_PERSISTNAME_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "init/core/ops.h"
#include "util.h"

struct sys {
	const struct sysops *ops;
	char *root;    /* /sys as ops->path() has it, resolved */
	size_t devlen; /* strlen(root) + strlen("/devices") */
};

char *pn_attr_subst(const char *v);
char *pn_helper_string(const char *v);
void pn_replace_chars(char *s, const char *allow);
void pn_replace_whitespace(char *s);
void pn_strip_trailing_space(char *s);
unsigned char *pn_attr_bin(const char *dir, const char *attr, size_t *len);
char *pn_attr_raw(const char *dir, const char *attr);
char *pn_attrs_find(const struct sys *s, const char *dir, const char *attr);
bool pn_devtype_is(const char *dir, const char *want);
char *pn_parent_dev(const struct sys *s, const char *dir);
char *pn_parent_with(const struct sys *s, const char *dir, const char *subsys,
		    const char *devtype);
char *pn_subsystem(const char *dir);
bool pn_subsystem_is(const char *dir, const char *want);
const char *pn_sysname(const char *dir);
void pn_add_link(struct strv *v, const char *prefix, const char *value, const char *suffix,
		 bool escape_replace);
void pn_ids_mmc(const struct sys *s, const char *disk, const char *suffix, struct strv *out);
void pn_ids_nvme(const struct sys *s, const char *disk, const char *suffix, struct strv *out);
void pn_ids_scsi(const struct sys *s, const char *disk, const char *suffix, struct strv *out);
void pn_ids_virtio(const struct sys *s, const char *disk, const char *suffix, struct strv *out);
void pn_paths(const struct sys *s, const char *disk, const char *name, const char *suffix,
	      struct strv *out, struct strv *booster);
void pn_booster_wwid(const struct sys *s, const char *disk, const char *suffix, struct strv *out);

#endif
