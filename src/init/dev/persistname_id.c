// SPDX-License-Identifier: GPL-2.0-or-later
/* /dev/disk/by-id: virtio's serial, NVMe's, scsi_id's from the VPD
 * pages sysfs keeps, ata_id's from the IDENTIFY data libata keeps as
 * page 0x89, usb_id's, MMC's. */
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

/* ---- by-id ---- */

/* virtio-blk: the serial the host gave the disk. */
void pn_ids_virtio(const struct sys *s, const char *disk, const char *suffix, struct strv *out)
{
	char *serial = pn_attrs_find(s, disk, "serial");

	if (serial) {
		char *id = pn_attr_subst(serial);
		pn_add_link(out, "virtio-", id, suffix, false);
		free(id);
	}
	free(serial);
}

/* NVMe: the namespace's wwid as the kernel words it, and MODEL_SERIAL
 * with and without _NSID (the rules' string_escape=replace lines). */
void pn_ids_nvme(const struct sys *s, const char *disk, const char *suffix, struct strv *out)
{
	static const char *const keys[] = { "model", "serial", "nsid" };
	char *wwid = pn_attr_raw(disk, "wwid"), *v[3], *id;

	if (wwid) {
		char *w = pn_attr_subst(wwid);
		pn_add_link(out, "nvme-", w, suffix, false);
		free(w);
		free(wwid);
	}
	for (size_t i = 0; i < 3; i++) {
		char *raw = pn_attrs_find(s, disk, keys[i]);
		v[i] = raw ? pn_attr_subst(raw) : NULL;
		free(raw);
	}
	if (v[0] && *v[0] && v[1] && *v[1]) {
		id = xasprintf("%s_%s", v[0], v[1]);
		pn_replace_chars(id, NULL);
		pn_add_link(out, "nvme-", id, suffix, true);
		free(id);
		if (v[2] && *v[2]) {
			id = xasprintf("%s_%s_%s", v[0], v[1], v[2]);
			pn_replace_chars(id, NULL);
			pn_add_link(out, "nvme-", id, suffix, true);
			free(id);
		}
	}
	for (size_t i = 0; i < 3; i++)
		free(v[i]);
}

/* MMC and SD cards: mmc-NAME_SERIAL from the card's attributes. */
void pn_ids_mmc(const struct sys *s, const char *disk, const char *suffix, struct strv *out)
{
	char *card = pn_parent_with(s, disk, "mmc", NULL), *name, *serial;

	if (!card)
		return;
	name = pn_attr_raw(card, "name");
	serial = pn_attr_raw(card, "serial");
	if (name && serial) {
		char *n = pn_attr_subst(name), *sn = pn_attr_subst(serial);
		/* two values in the rule's SYMLINK: each trimmed on its own */
		pn_replace_whitespace(n);
		pn_replace_whitespace(sn);
		if (*n && *sn) {
			char *id = xasprintf("%s_%s", n, sn);
			pn_add_link(out, "mmc-", id, suffix, false);
			free(id);
		}
		free(n);
		free(sn);
	}
	free(name);
	free(serial);
	free(card);
}

/* What ata_id, usb_id and scsi_id tell the rules. */
struct scsi_ids {
	const char *bus; /* ID_BUS: "ata", "usb", "scsi" */
	char *serial;    /* ID_SERIAL */
	char *wwn;       /* ID_WWN_WITH_EXTENSION */
	char *usb_serial; /* ID_USB_SERIAL */
};

/* An ATA string: 16-bit words, the first character in each high byte. */
static char *ata_string(const unsigned char *id, unsigned word, unsigned nchars)
{
	char *s = xmalloc(nchars + 1);

	for (unsigned i = 0; i < nchars; i += 2) {
		s[i] = (char)id[(word * 2) + i + 1];
		s[i + 1] = (char)id[(word * 2) + i];
	}
	s[nchars] = '\0';
	return s;
}

/* ata_id: MODEL_SERIAL from IDENTIFY words 27-46 and 10-19, and the WWN
 * of words 108-111 when word 108 says NAA 5. libata puts the IDENTIFY
 * data at byte 60 of its VPD page 0x89 (SAT's ATA Information page). */
static bool ata_ids(const char *scsi, struct scsi_ids *ids)
{
	size_t len = 0;
	unsigned char *pg = pn_attr_bin(scsi, "vpd_pg89", &len);
	const unsigned char *id;
	char *model, *serial, *m, *sn;

	if (!pg || len < 60 + 512 || pg[1] != 0x89) {
		free(pg);
		return false;
	}
	id = pg + 60;
	model = ata_string(id, 27, 40);
	serial = ata_string(id, 10, 20);
	m = pn_helper_string(model);
	sn = pn_helper_string(serial);
	ids->bus = "ata";
	ids->serial = *sn ? xasprintf("%s_%s", m, sn) : xstrdup(m);
	uint16_t w[4];
	for (int i = 0; i < 4; i++)
		w[i] = (uint16_t)(id[(108 + i) * 2] | id[(108 + i) * 2 + 1] << 8);
	if ((w[0] & 0xf000) == 0x5000)
		ids->wwn = xasprintf("0x%llx", (unsigned long long)w[0] << 48 |
					       (unsigned long long)w[1] << 32 |
					       (unsigned long long)w[2] << 16 | w[3]);
	free(model);
	free(serial);
	free(m);
	free(sn);
	free(pg);
	return true;
}

enum { VENDOR_LEN = 8, MODEL_LEN = 16, INQ_LEN = 254, SERIAL_MAX = 256 };
enum { ID_VENDOR_SPECIFIC = 0, ID_T10_VENDOR = 1, ID_EUI_64 = 2, ID_NAA = 3, ID_TGTGROUP = 5 };
enum { CODE_BINARY = 1, CODE_ASCII = 2 };
enum { NAA_ANY = 0xff, NAA_IEEE_REG = 5, NAA_IEEE_REG_EXT = 6 };

/* scsi_id's order of preference among page 0x83's designators. */
static const struct {
	unsigned char type, naa, code;
} id_search[] = {
	{ ID_TGTGROUP, NAA_ANY, CODE_BINARY },
	{ ID_NAA, NAA_IEEE_REG_EXT, CODE_BINARY }, { ID_NAA, NAA_IEEE_REG_EXT, CODE_ASCII },
	{ ID_NAA, NAA_IEEE_REG, CODE_BINARY },     { ID_NAA, NAA_IEEE_REG, CODE_ASCII },
	{ ID_NAA, NAA_ANY, CODE_BINARY },          { ID_NAA, NAA_ANY, CODE_ASCII },
	{ ID_EUI_64, NAA_ANY, CODE_BINARY },       { ID_EUI_64, NAA_ANY, CODE_ASCII },
	{ ID_T10_VENDOR, NAA_ANY, CODE_BINARY },   { ID_T10_VENDOR, NAA_ANY, CODE_ASCII },
	{ ID_VENDOR_SPECIFIC, NAA_ANY, CODE_BINARY }, { ID_VENDOR_SPECIFIC, NAA_ANY, CODE_ASCII },
};

/* The standard INQUIRY's vendor and model as sysfs shows them: 8 and 16
 * characters, padding kept. */
struct inquiry {
	char vendor[VENDOR_LEN + 1], model[MODEL_LEN + 1];
	bool ok; /* both full length, as scsi_id insists before using them */
};

static const char hexd[] = "0123456789abcdef";

/* scsi_id's check_fill_0x83_id: one designator d against one search
 * entry; its serial (type digit, then the id) in serial. */
static bool fill_0x83(const unsigned char *d, size_t room, unsigned k, const struct inquiry *inq,
		      char serial[SERIAL_MAX], size_t *short_at)
{
	size_t len, j = 0;
	unsigned assoc = d[1] & 0x30;

	if (room < 5 || (assoc == 0x10 && id_search[k].type != ID_TGTGROUP) ||
	    (assoc != 0x10 && assoc != 0))
		return false;
	if ((d[1] & 0x0f) != id_search[k].type)
		return false;
	if (id_search[k].naa != NAA_ANY && id_search[k].naa != (d[4] & 0xf0) >> 4)
		return false;
	if ((d[0] & 0x0f) != id_search[k].code)
		return false;
	len = d[3];
	if ((d[0] & 0x0f) != CODE_ASCII)
		len *= 2;
	len += 2;
	if (id_search[k].type == ID_VENDOR_SPECIFIC)
		len += VENDOR_LEN + MODEL_LEN;
	/* a target port group names no device */
	if (len > SERIAL_MAX || id_search[k].type == ID_TGTGROUP)
		return false;
	memset(serial, 0, SERIAL_MAX);
	serial[j++] = hexd[id_search[k].type];
	if (id_search[k].type == ID_VENDOR_SPECIFIC) {
		if (!inq->ok)
			return false;
		memcpy(serial + j, inq->vendor, VENDOR_LEN);
		memcpy(serial + j + VENDOR_LEN, inq->model, MODEL_LEN);
		j += VENDOR_LEN + MODEL_LEN;
	}
	*short_at = j;
	for (size_t i = 4; i < 4u + d[3] && i < room; i++) {
		if ((d[0] & 0x0f) == CODE_ASCII) {
			serial[j++] = (char)d[i];
		} else {
			serial[j++] = hexd[d[i] >> 4];
			serial[j++] = hexd[d[i] & 0x0f];
		}
	}
	return true;
}

/* scsi_id --whitelisted: page 0x83's best designator, else page 0x80's
 * serial behind 'S' and the vendor and model. An NAA id is the WWN. */
static bool scsi_ids(const char *scsi, struct scsi_ids *ids)
{
	struct inquiry inq = { 0 };
	char serial[SERIAL_MAX] = { 0 }, *v = pn_attr_raw(scsi, "vendor"), *m = pn_attr_raw(scsi, "model");
	unsigned char page[INQ_LEN] = { 0 }, *pg;
	size_t len = 0, short_at = 0;
	bool found = false, naa = false;

	if (v && m) {
		snprintf(inq.vendor, sizeof(inq.vendor), "%s", v);
		snprintf(inq.model, sizeof(inq.model), "%s", m);
		inq.ok = strlen(inq.vendor) == VENDOR_LEN && strlen(inq.model) == MODEL_LEN;
	}
	free(v);
	free(m);
	/* scsi_id reads INQ_LEN bytes of the page: the rest is not seen */
	if ((pg = pn_attr_bin(scsi, "vpd_pg83", &len))) {
		memcpy(page, pg, len < INQ_LEN ? len : INQ_LEN);
		free(pg);
	}
	if (len >= 4 && page[1] == 0x83 && page[6] != 0) {
		/* SCSI-2 (pre-SPC-3) layout: the page is one binary id */
		size_t j = 0;
		serial[j++] = hexd[ID_NAA];
		for (size_t i = 0; i < page[3] && j < SERIAL_MAX - 3 && 4 + i < INQ_LEN; i++) {
			serial[j++] = hexd[page[4 + i] >> 4];
			serial[j++] = hexd[page[4 + i] & 0x0f];
		}
		found = true;
	} else if (len >= 4 && page[1] == 0x83) {
		size_t end = ((size_t)page[2] << 8) + page[3] + 3;
		for (unsigned k = 0; k < ARRAY_SIZE(id_search) && !found; k++)
			for (size_t j = 4; j <= end && j + 4 <= INQ_LEN && !found; j += page[j + 3] + 4u)
				if (fill_0x83(page + j, INQ_LEN - j, k, &inq, serial, &short_at)) {
					found = true;
					naa = id_search[k].type == ID_NAA;
				}
	}
	if (!found && (pg = pn_attr_bin(scsi, "vpd_pg80", &len))) {
		if (len >= 4 && pg[1] == 0x80 && inq.ok && 1u + VENDOR_LEN + MODEL_LEN + pg[3] < SERIAL_MAX) {
			size_t n = pg[3] <= len - 4 ? pg[3] : len - 4;
			serial[0] = 'S';
			memcpy(serial + 1, inq.vendor, VENDOR_LEN);
			memcpy(serial + 1 + VENDOR_LEN, inq.model, MODEL_LEN);
			memcpy(serial + 1 + VENDOR_LEN + MODEL_LEN, pg + 4, n);
			found = true;
		}
		free(pg);
	}
	if (!found || !serial[0])
		return false;
	ids->bus = "scsi";
	ids->serial = pn_helper_string(serial);
	if (naa) {
		const char *sh = serial + short_at;
		size_t n = strlen(sh);
		ids->wwn = n > 16 ? xasprintf("0x%.16s%.16s", sh, sh + 16) : xasprintf("0x%s", sh);
	}
	return true;
}

/* usb_id: VENDOR_MODEL_SERIAL-TARGET:LUN, the vendor and model from the
 * SCSI INQUIRY for SCSI and ATAPI mass storage, else from USB; the
 * serial from USB, dropped when it has bytes Windows would refuse. */
static char *usb_serial(const struct sys *s, const char *disk, const char *scsi)
{
	char *intf = pn_parent_with(s, disk, "usb", "usb_interface"), *usb, *sub, *v = NULL, *m = NULL;
	char *sn = NULL, *inst = NULL, *r;
	int proto = 0;

	if (!intf)
		return NULL;
	usb = pn_parent_with(s, intf, "usb", "usb_device");
	if (!usb) {
		free(intf);
		return NULL;
	}
	sub = pn_attr_raw(intf, "bInterfaceClass");
	if (sub && strtoul(sub, NULL, 16) == 8) {
		free(sub);
		sub = pn_attr_raw(intf, "bInterfaceSubClass");
		proto = sub ? atoi(sub) : 0;
	}
	free(sub);
	unsigned host, bus, target, lun;
	if ((proto == 6 || proto == 2) && scsi &&
	    sscanf(pn_sysname(scsi), "%u:%u:%u:%u", &host, &bus, &target, &lun) == 4) {
		char *a = pn_attr_raw(scsi, "vendor"), *b = pn_attr_raw(scsi, "model");
		v = a ? pn_helper_string(a) : NULL;
		m = b ? pn_helper_string(b) : NULL;
		free(a);
		free(b);
		inst = xasprintf("%u:%u", target, lun);
	}
	if (!v || !*v) {
		char *a = pn_attr_raw(usb, "manufacturer");
		if (!a)
			a = pn_attr_raw(usb, "idVendor");
		free(v);
		v = a ? pn_helper_string(a) : xstrdup("");
		free(a);
	}
	if (!m || !*m) {
		char *a = pn_attr_raw(usb, "product");
		if (!a)
			a = pn_attr_raw(usb, "idProduct");
		free(m);
		m = a ? pn_helper_string(a) : xstrdup("");
		free(a);
	}
	char *raw = pn_attr_raw(usb, "serial");
	bool good = raw != NULL;
	for (const unsigned char *p = (const unsigned char *)raw; good && *p; p++)
		good = *p >= 0x20 && *p <= 0x7f && *p != ',';
	if (good)
		sn = pn_helper_string(raw);
	free(raw);
	r = xasprintf("%s_%s%s%s%s%s", v, m, sn && *sn ? "_" : "", sn && *sn ? sn : "",
		      inst ? "-" : "", inst ? inst : "");
	free(v);
	free(m);
	free(sn);
	free(inst);
	free(intf);
	free(usb);
	return r;
}

/* sd and sr: ata_id when the SCSI vendor is "ATA" (libata), usb_id below
 * a USB interface, and scsi_id when neither set ID_SERIAL. */
void pn_ids_scsi(const struct sys *s, const char *disk, const char *suffix, struct strv *out)
{
	char *scsi = pn_parent_with(s, disk, "scsi", "scsi_device");
	struct scsi_ids ids = { 0 };

	if (!scsi)
		return;
	char *vendor = pn_attr_raw(scsi, "vendor");
	bool ata = false;
	if (vendor) {
		pn_strip_trailing_space(vendor);
		ata = !strcmp(vendor, "ATA");
	}
	free(vendor);
	/* udev's ata_id asks an ATAPI drive (no page 0x89) itself: no
	 * scsi_id name in its place */
	if (ata && !ata_ids(scsi, &ids)) {
		free(scsi);
		return;
	}
	ids.usb_serial = usb_serial(s, disk, scsi);
	if (ids.usb_serial && !ids.bus) {
		ids.bus = "usb";
		ids.serial = xstrdup(ids.usb_serial);
	}
	if (!ids.serial)
		scsi_ids(scsi, &ids);
	if (ids.serial) {
		char *pre = xasprintf("%s-", ids.bus);
		pn_add_link(out, pre, ids.serial, suffix, false);
		free(pre);
	}
	pn_add_link(out, "usb-", ids.usb_serial, suffix, false);
	pn_add_link(out, "wwn-", ids.wwn, suffix, false);
	free(ids.serial);
	free(ids.wwn);
	free(ids.usb_serial);
	free(scsi);
}
