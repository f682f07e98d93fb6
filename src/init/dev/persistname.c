// SPDX-License-Identifier: GPL-2.0-or-later
/* /dev/disk/by-id and /dev/disk/by-path names, as systemd-udevd 252 and
 * its 60-persistent-storage.rules make them, from sysfs alone.
 *
 * udev asks the drive itself for some of them (ata_id's ATA IDENTIFY,
 * scsi_id's INQUIRY pages); the kernel keeps copies of those pages in
 * sysfs (vpd_pg80, vpd_pg83, and vpd_pg89 for a libata disk, whose bytes
 * 60..571 are the IDENTIFY data), so the same names come out without
 * opening the device. Where udev gets a name we cannot (fc, sas, iSCSI
 * and Hyper-V by-path, ata_id on a USB bridge, CD drives, which have no
 * VPD pages in sysfs), we give none rather than a different one: a spec
 * naming it then waits as it would for a missing disk, instead of
 * finding the wrong one. docs/cmdline.md has the list; the unit test
 * compares every name with udev's own, captured in a real boot.
 *
 * The escaping is udev's own: a sysfs value put in a rule by $attr{}
 * loses trailing whitespace and has characters outside a safe set
 * replaced by '_'; a value put in a SYMLINK has each run of whitespace
 * made one '_'. The helpers below are those steps, one each. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "init/dev/persistname.h"
#include "init/dev/persistname_priv.h"

/* ---- the device ---- */

/* The KERNEL== list 60-persistent-storage.rules starts with. */
static bool named_by_rules(const char *name)
{
	static const char *const prefixes[] = { "loop", "mmcblk", "msblk", "mspblk", "nvme",
						"sd", "sr", "vd", "xvd", "bcache", "cciss",
						"dasd", "ubd", "ubi", "scm", "pmem", "nbd", "zd" };
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (str_has_prefix(name, prefixes[i]))
			return true;
	return false;
}

/* nvme*[0-9]n*[0-9], a namespace (its partitions end p*[0-9]) */
static bool nvme_namespace(const char *name)
{
	size_t d;

	if (!str_has_prefix(name, "nvme"))
		return false;
	name += 4;
	if (!(d = strspn(name, "0123456789")) || name[d] != 'n')
		return false;
	name += d + 1;
	return (d = strspn(name, "0123456789")) && !name[d];
}

int persistname_get(const struct sysops *ops, const char *name, struct persistnames *pn)
{
	struct sys s = { .ops = ops };
	char *p = ops->path("/sys"), *cls, *real, *disk, *suffix, *diskname;
	const char *digits;
	bool part;

	memset(pn, 0, sizeof(*pn));
	s.root = realpath(p, NULL);
	free(p);
	cls = xasprintf("/sys/class/block/%s", name);
	p = ops->path(cls);
	free(cls);
	real = s.root ? realpath(p, NULL) : NULL;
	free(p);
	if (!real || !str_has_prefix(real, s.root)) {
		free(real);
		free(s.root);
		return -ENOENT;
	}
	s.devlen = strlen(s.root) + strlen("/devices");
	if (!named_by_rules(name) || strchr(name, '/'))
		goto out;
	/* A partition takes its disk's names, "-partN" after (N the
	 * number its kernel name ends in, udev's %n). */
	char *pf = path_join(real, "partition");
	part = access(pf, F_OK) == 0;
	free(pf);
	for (digits = name + strlen(name); digits > name && isdigit((unsigned char)digits[-1]);)
		digits--;
	if (part && !*digits)
		goto out;
	disk = part ? xstrndup(real, (size_t)(strrchr(real, '/') - real)) : xstrdup(real);
	/* a multipath NVMe namespace's path through one controller
	 * (nvme0c0n1) has no device node: udev never sees it */
	char *hidden = pn_attr_raw(disk, "hidden");
	bool is_hidden = hidden && !strcmp(hidden, "1");
	free(hidden);
	if (is_hidden) {
		free(disk);
		goto out;
	}
	diskname = xstrdup(pn_sysname(disk));
	suffix = part ? xasprintf("-part%s", digits) : xstrdup("");
	if (str_has_prefix(diskname, "vd"))
		pn_ids_virtio(&s, disk, suffix, &pn->by_id);
	else if (nvme_namespace(diskname))
		pn_ids_nvme(&s, disk, suffix, &pn->by_id);
	else if (str_has_prefix(diskname, "sd") || str_has_prefix(diskname, "sr")) {
		pn_ids_scsi(&s, disk, suffix, &pn->by_id);
		pn_booster_wwid(&s, disk, suffix, &pn->booster_wwid);
	}
	else if (str_has_prefix(diskname, "mmcblk") && isdigit((unsigned char)diskname[6]) &&
		 !diskname[7]) /* the rules' KERNEL=="mmcblk[0-9]" */
		pn_ids_mmc(&s, disk, suffix, &pn->by_id);
	/* mmcblkNbootM has its own "-bootM" name; not made here */
	if (!(str_has_prefix(diskname, "mmcblk") && strstr(diskname, "boot")))
		pn_paths(&s, disk, diskname, suffix, &pn->by_path, &pn->booster_hwpath);
	free(disk);
	free(diskname);
	free(suffix);
out:
	free(real);
	free(s.root);
	return 0;
}

void persistnames_free(struct persistnames *pn)
{
	strv_free(&pn->by_id);
	strv_free(&pn->booster_wwid);
	strv_free(&pn->booster_hwpath);
	strv_free(&pn->by_path);
}
