// SPDX-License-Identifier: GPL-2.0-or-later
/* booster's own names for a disk, which its root=WWID= and root=HWPATH=
 * spell and which are not always udev's: a machine moving from booster
 * keeps its kernel command line. Matched, never made into links. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "init/dev/persistname.h"
#include "init/dev/persistname_priv.h"

/* An INQUIRY string as booster writes it: blanks at both ends gone,
 * those inside as '_'. */
static void booster_field(char *s)
{
	size_t n = strlen(s), start = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[start]))
		start++;
	memmove(s, s + start, n - start + 1);
	for (char *p = s; *p; p++)
		if (*p == ' ')
			*p = '_';
}

/* A SCSI disk's WWID in booster: scsi-VENDOR_MODEL_SERIAL-0:0, the
 * serial the unit serial page (0x80) as the disk gave it (empty without
 * one), and "0:0" whatever the target and LUN. udev's scsi_id prefers
 * page 0x83, so the two differ. Left out: a libata disk, which booster
 * names as ata_id does; a USB disk, whose usb_id name is booster's
 * "usb-" one; and an sr drive, whose serial page the kernel does not
 * read for sysfs (booster asks the drive itself). */
void pn_booster_wwid(const struct sys *s, const char *disk, const char *suffix, struct strv *out)
{
	char *scsi, *v = NULL, *m = NULL, *serial = NULL, *usb = NULL, *name;
	unsigned char *pg;
	size_t len = 0;

	if (!str_has_prefix(pn_sysname(disk), "sd") ||
	    !(scsi = pn_parent_with(s, disk, "scsi", "scsi_device")))
		return;
	v = pn_attr_raw(scsi, "vendor");
	m = pn_attr_raw(scsi, "model");
	if (!v || !m)
		goto out;
	booster_field(v);
	booster_field(m);
	if (!strcmp(v, "ATA"))
		goto out;
	if ((pg = pn_attr_bin(scsi, "vpd_pg80", &len)) && len >= 4 && pg[1] == 0x80)
		serial = xstrndup((const char *)pg + 4, pg[3] <= len - 4 ? pg[3] : len - 4);
	free(pg);
	if ((usb = pn_parent_with(s, disk, "usb", "usb_interface")))
		goto out;
	name = xasprintf("scsi-%s_%s_%s-0:0%s", v, m, serial ? serial : "", suffix);
	if (persistname_valid(name) && !strv_contains(out, name))
		strv_push_owned(out, name);
	else
		free(name);
out:
	free(usb);
	free(serial);
	free(v);
	free(m);
	free(scsi);
}
