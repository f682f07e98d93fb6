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

/* ---- udev's string steps ---- */

/* udev_replace_whitespace: leading and trailing whitespace dropped, each
 * run inside becomes one '_'. In place: the result is never longer. */
static void replace_whitespace(char *s)
{
	size_t len = strlen(s), i = 0, j = 0;
	bool space = false;

	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	for (; i < len; i++) {
		if (isspace((unsigned char)s[i])) {
			space = true;
			continue;
		}
		if (space)
			s[j++] = '_';
		space = false;
		s[j++] = s[i];
	}
	s[j] = '\0';
}

/* The length of the valid UTF-8 sequence of two or more bytes at s (as
 * systemd's utf8_encoded_valid_unichar: shortest form, a character and
 * not a surrogate or noncharacter), else 0. */
static size_t utf8_multibyte(const unsigned char *s)
{
	size_t len;
	uint32_t c;

	if (s[0] >= 0xc0 && s[0] < 0xe0) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] < 0xf0) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] < 0xf8) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000))
		return 0; /* overlong */
	if (c >= 0x110000 || (c & 0xfffff800) == 0xd800 || (c >= 0xfdd0 && c <= 0xfdef) ||
	    (c & 0xfffe) == 0xfffe)
		return 0;
	return len;
}

/* udev_replace_chars: all but letters, digits, "#+-.:=@_", the bytes in
 * allow, "\x" and valid UTF-8 becomes '_' (whitespace becomes ' ' where
 * allow has a space). */
static void replace_chars(char *s, const char *allow)
{
	for (size_t i = 0; s[i];) {
		unsigned char c = (unsigned char)s[i];
		size_t n;

		if ((c < 0x80 && isalnum(c)) || strchr("#+-.:=@_", c) || (allow && strchr(allow, c))) {
			i++;
		} else if (c == '\\' && s[i + 1] == 'x') {
			i += 2;
		} else if ((n = utf8_multibyte((const unsigned char *)s + i)) > 1) {
			i += n;
		} else {
			s[i++] = isspace(c) && allow && strchr(allow, ' ') ? ' ' : '_';
		}
	}
}

static void strip_trailing_space(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* What "$attr{X}" puts in a rule: udev's UDEV_ALLOWED_CHARS_INPUT. */
static char *attr_subst(const char *v)
{
	char *s = xstrdup(v);

	strip_trailing_space(s);
	replace_chars(s, "/ $%?,");
	return s;
}

/* Whitespace runs to '_', then replace_chars: what ata_id, scsi_id and
 * usb_id do to each string they report. */
static char *helper_string(const char *v)
{
	char *s = xstrdup(v);

	replace_whitespace(s);
	replace_chars(s, NULL);
	return s;
}

/* ---- sysfs ---- */

struct sys {
	const struct sysops *ops;
	char *root;    /* /sys as ops->path() has it, resolved */
	size_t devlen; /* strlen(root) + strlen("/devices") */
};

/* An attribute with only the kernel's trailing newlines taken off (SCSI
 * vendor and model keep their padding: scsi_id counts it). */
static char *attr_raw(const char *dir, const char *attr)
{
	char *p = path_join(dir, attr), *data = NULL;
	size_t len = 0;
	int r = read_file(p, &data, &len);

	free(p);
	if (r < 0)
		return NULL;
	data[strnlen(data, len)] = '\0';
	for (len = strlen(data); len && (data[len - 1] == '\n' || data[len - 1] == '\r');)
		data[--len] = '\0';
	return data;
}

/* A binary attribute (the VPD pages), NULL when absent or empty. */
static unsigned char *attr_bin(const char *dir, const char *attr, size_t *len)
{
	char *p = path_join(dir, attr), *data = NULL;
	int r = read_file(p, &data, len);

	free(p);
	if (r < 0 || *len == 0) {
		free(data);
		return NULL;
	}
	return (unsigned char *)data;
}

static bool is_device(const char *dir)
{
	char *p = path_join(dir, "uevent");
	bool r = access(p, F_OK) == 0;

	free(p);
	return r;
}

static const char *sysname(const char *dir)
{
	const char *s = strrchr(dir, '/');

	return s ? s + 1 : dir;
}

/* sd_device_get_parent: the nearest directory above that is a device,
 * never above /sys/devices. */
static char *parent_dev(const struct sys *s, const char *dir)
{
	char *p = xstrdup(dir);

	for (;;) {
		char *slash = strrchr(p, '/');
		if (!slash || (size_t)(slash - p) <= s->devlen) {
			free(p);
			return NULL;
		}
		*slash = '\0';
		if (is_device(p))
			return p;
	}
}

/* The name of the subsystem the "subsystem" link points at. */
static char *subsystem(const char *dir)
{
	char *p = path_join(dir, "subsystem"), link[PATH_MAX];
	ssize_t n = readlink(p, link, sizeof(link) - 1);

	free(p);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	return xstrdup(sysname(link));
}

static bool subsystem_is(const char *dir, const char *want)
{
	char *sub = subsystem(dir);
	bool r = sub && !strcmp(sub, want);

	free(sub);
	return r;
}

static bool devtype_is(const char *dir, const char *want)
{
	char *ue = attr_raw(dir, "uevent");
	bool r = false;

	for (char *line = ue, *next; line && *line && !r; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		r = str_has_prefix(line, "DEVTYPE=") && !strcmp(line + 8, want);
	}
	free(ue);
	return r;
}

/* sd_device_get_parent_with_subsystem_devtype */
static char *parent_with(const struct sys *s, const char *dir, const char *subsys,
			 const char *devtype)
{
	char *p = parent_dev(s, dir);

	while (p && !(subsystem_is(p, subsys) && (!devtype || devtype_is(p, devtype)))) {
		char *up = parent_dev(s, p);
		free(p);
		p = up;
	}
	return p;
}

/* ATTRS{X}=="?*": the device's or the nearest parent's non-blank X. */
static char *attrs_find(const struct sys *s, const char *dir, const char *attr)
{
	char *d = xstrdup(dir);

	while (d) {
		char *v = attr_raw(d, attr), *up;
		if (v) {
			char *t = xstrdup(v);
			strip_trailing_space(t);
			bool blank = !*t;
			free(t);
			if (!blank) {
				free(d);
				return v;
			}
			free(v);
		}
		up = parent_dev(s, d);
		free(d);
		d = up;
	}
	return NULL;
}

/* ---- links ---- */

/* udev would make directories for a '/' in a value (a virtio serial
 * "a/b" gives by-id/virtio-a/b); an empty, "." or ".." part could point
 * outside /dev/disk, so such a name is not given. */
bool persistname_valid(const char *name)
{
	const char *p = name;

	for (;;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

/* SYMLINK+="disk/by-X/PREFIX$env{VALUE}SUFFIX": the value's whitespace
 * runs become '_', then the whole name goes through replace_chars
 * keeping '/' (and ' ', which would split it, unless the rule says
 * string_escape=replace). */
static void add_link(struct strv *v, const char *prefix, const char *value, const char *suffix,
		     bool escape_replace)
{
	char *val, *name;

	if (!value || !*value)
		return;
	val = xstrdup(value);
	replace_whitespace(val);
	name = xasprintf("%s%s%s", prefix, val, suffix);
	free(val);
	replace_chars(name, escape_replace ? "/" : "/ ");
	name[strcspn(name, " ")] = '\0';
	if (*name && persistname_valid(name) && !strv_contains(v, name))
		strv_push_owned(v, name);
	else
		free(name);
}

/* ---- by-id ---- */

/* virtio-blk: the serial the host gave the disk. */
static void ids_virtio(const struct sys *s, const char *disk, const char *suffix, struct strv *out)
{
	char *serial = attrs_find(s, disk, "serial");

	if (serial) {
		char *id = attr_subst(serial);
		add_link(out, "virtio-", id, suffix, false);
		free(id);
	}
	free(serial);
}

/* NVMe: the namespace's wwid as the kernel words it, and MODEL_SERIAL
 * with and without _NSID (the rules' string_escape=replace lines). */
static void ids_nvme(const struct sys *s, const char *disk, const char *suffix, struct strv *out)
{
	static const char *const keys[] = { "model", "serial", "nsid" };
	char *wwid = attr_raw(disk, "wwid"), *v[3], *id;

	if (wwid) {
		char *w = attr_subst(wwid);
		add_link(out, "nvme-", w, suffix, false);
		free(w);
		free(wwid);
	}
	for (size_t i = 0; i < 3; i++) {
		char *raw = attrs_find(s, disk, keys[i]);
		v[i] = raw ? attr_subst(raw) : NULL;
		free(raw);
	}
	if (v[0] && *v[0] && v[1] && *v[1]) {
		id = xasprintf("%s_%s", v[0], v[1]);
		replace_chars(id, NULL);
		add_link(out, "nvme-", id, suffix, true);
		free(id);
		if (v[2] && *v[2]) {
			id = xasprintf("%s_%s_%s", v[0], v[1], v[2]);
			replace_chars(id, NULL);
			add_link(out, "nvme-", id, suffix, true);
			free(id);
		}
	}
	for (size_t i = 0; i < 3; i++)
		free(v[i]);
}

/* MMC and SD cards: mmc-NAME_SERIAL from the card's attributes. */
static void ids_mmc(const struct sys *s, const char *disk, const char *suffix, struct strv *out)
{
	char *card = parent_with(s, disk, "mmc", NULL), *name, *serial;

	if (!card)
		return;
	name = attr_raw(card, "name");
	serial = attr_raw(card, "serial");
	if (name && serial) {
		char *n = attr_subst(name), *sn = attr_subst(serial);
		/* two values in the rule's SYMLINK: each trimmed on its own */
		replace_whitespace(n);
		replace_whitespace(sn);
		if (*n && *sn) {
			char *id = xasprintf("%s_%s", n, sn);
			add_link(out, "mmc-", id, suffix, false);
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
	unsigned char *pg = attr_bin(scsi, "vpd_pg89", &len);
	const unsigned char *id;
	char *model, *serial, *m, *sn;

	if (!pg || len < 60 + 512 || pg[1] != 0x89) {
		free(pg);
		return false;
	}
	id = pg + 60;
	model = ata_string(id, 27, 40);
	serial = ata_string(id, 10, 20);
	m = helper_string(model);
	sn = helper_string(serial);
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
	char serial[SERIAL_MAX] = { 0 }, *v = attr_raw(scsi, "vendor"), *m = attr_raw(scsi, "model");
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
	if ((pg = attr_bin(scsi, "vpd_pg83", &len))) {
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
	if (!found && (pg = attr_bin(scsi, "vpd_pg80", &len))) {
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
	ids->serial = helper_string(serial);
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
	char *intf = parent_with(s, disk, "usb", "usb_interface"), *usb, *sub, *v = NULL, *m = NULL;
	char *sn = NULL, *inst = NULL, *r;
	int proto = 0;

	if (!intf)
		return NULL;
	usb = parent_with(s, intf, "usb", "usb_device");
	if (!usb) {
		free(intf);
		return NULL;
	}
	sub = attr_raw(intf, "bInterfaceClass");
	if (sub && strtoul(sub, NULL, 16) == 8) {
		free(sub);
		sub = attr_raw(intf, "bInterfaceSubClass");
		proto = sub ? atoi(sub) : 0;
	}
	free(sub);
	unsigned host, bus, target, lun;
	if ((proto == 6 || proto == 2) && scsi &&
	    sscanf(sysname(scsi), "%u:%u:%u:%u", &host, &bus, &target, &lun) == 4) {
		char *a = attr_raw(scsi, "vendor"), *b = attr_raw(scsi, "model");
		v = a ? helper_string(a) : NULL;
		m = b ? helper_string(b) : NULL;
		free(a);
		free(b);
		inst = xasprintf("%u:%u", target, lun);
	}
	if (!v || !*v) {
		char *a = attr_raw(usb, "manufacturer");
		if (!a)
			a = attr_raw(usb, "idVendor");
		free(v);
		v = a ? helper_string(a) : xstrdup("");
		free(a);
	}
	if (!m || !*m) {
		char *a = attr_raw(usb, "product");
		if (!a)
			a = attr_raw(usb, "idProduct");
		free(m);
		m = a ? helper_string(a) : xstrdup("");
		free(a);
	}
	char *raw = attr_raw(usb, "serial");
	bool good = raw != NULL;
	for (const unsigned char *p = (const unsigned char *)raw; good && *p; p++)
		good = *p >= 0x20 && *p <= 0x7f && *p != ',';
	if (good)
		sn = helper_string(raw);
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
static void ids_scsi(const struct sys *s, const char *disk, const char *suffix, struct strv *out)
{
	char *scsi = parent_with(s, disk, "scsi", "scsi_device");
	struct scsi_ids ids = { 0 };

	if (!scsi)
		return;
	char *vendor = attr_raw(scsi, "vendor");
	bool ata = false;
	if (vendor) {
		strip_trailing_space(vendor);
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
		add_link(out, pre, ids.serial, suffix, false);
		free(pre);
	}
	add_link(out, "usb-", ids.usb_serial, suffix, false);
	add_link(out, "wwn-", ids.wwn, suffix, false);
	free(ids.serial);
	free(ids.wwn);
	free(ids.usb_serial);
	free(scsi);
}

/* ---- by-path: path_id ---- */

static void prepend(char **path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void prepend(char **path, const char *fmt, ...)
{
	va_list ap;
	char *pre, *n;

	va_start(ap, fmt);
	if (vasprintf(&pre, fmt, ap) < 0)
		abort();
	va_end(ap);
	if (*path) {
		n = xasprintf("%s-%s", pre, *path);
		free(pre);
		free(*path);
		*path = n;
	} else {
		*path = pre;
	}
}

/* path_id's skip_subsystem: up through the parents of the same
 * subsystem, to the last of them. Takes dev, returns the one to go on
 * from. */
static char *skip_subsystem(const struct sys *s, char *dev, const char *subsys)
{
	for (;;) {
		char *up = parent_dev(s, dev);
		if (!up || !subsystem_is(up, subsys)) {
			free(up);
			return dev;
		}
		free(dev);
		dev = up;
	}
}

struct pathwalk {
	char *path, *compat;
	bool transport, parent; /* path_id's supported_transport, _parent */
};

/* libata: ata-PORT.TARGET (PORT.BUS.0 behind a port multiplier), and
 * the older ata-PORT kept as ID_PATH_ATA_COMPAT. */
static char *path_scsi_ata(const struct sys *s, char *dev, struct pathwalk *w)
{
	unsigned host, bus, target, lun;
	char *shost, *port = NULL, *p;

	if (sscanf(sysname(dev), "%u:%u:%u:%u", &host, &bus, &target, &lun) != 4 ||
	    !(shost = parent_with(s, dev, "scsi", "scsi_host")))
		goto fail;
	p = parent_dev(s, shost);
	free(shost);
	if (p) {
		char *cls = xasprintf("ata_port/%s", sysname(p)), *d = path_join(p, cls);
		port = attr_raw(d, "port_no");
		free(cls);
		free(d);
		free(p);
	}
	if (!port)
		goto fail;
	if (bus != 0)
		prepend(&w->path, "ata-%s.%u.0", port, bus);
	else
		prepend(&w->path, "ata-%s.%u", port, target);
	prepend(&w->compat, "ata-%s", port);
	free(port);
	return dev;
fail:
	free(dev);
	return NULL;
}

/* Parallel SCSI and everything else: scsi-H:B:T:L, the host number
 * counted from the lowest host of the same controller. */
static char *path_scsi_default(const struct sys *s, char *dev, struct pathwalk *w)
{
	int host, bus, target, lun, base = -1;
	char *shost = parent_with(s, dev, "scsi", "scsi_host"), *dir;
	DIR *d;
	struct dirent *de;

	if (!shost || sscanf(sysname(dev), "%d:%d:%d:%d", &host, &bus, &target, &lun) != 4) {
		free(shost);
		free(dev);
		return NULL;
	}
	free(dev);
	dir = xstrndup(shost, (size_t)(strrchr(shost, '/') - shost));
	d = opendir(dir);
	free(dir);
	if (!d) {
		free(shost);
		return NULL;
	}
	while ((de = readdir(d))) {
		char *end;
		if (!str_has_prefix(de->d_name, "host") || !isdigit((unsigned char)de->d_name[4]) ||
		    (de->d_type != DT_DIR && de->d_type != DT_LNK && de->d_type != DT_UNKNOWN))
			continue;
		unsigned long n = strtoul(de->d_name + 4, &end, 10);
		if (*end || n > INT_MAX)
			continue;
		if (base == -1 || (int)n < base)
			base = (int)n;
	}
	closedir(d);
	if (base == -1)
		return shost;
	prepend(&w->path, "scsi-%u:%u:%u:%u", (unsigned)(host - base), (unsigned)bus,
		(unsigned)target, (unsigned)lun);
	return shost;
}

/* iSCSI: ip-ADDRESS:PORT-iscsi-TARGET-lun-LUN from the session's
 * target name and its first connection's address, instead of the
 * controller's place (a software session has none). */
static char *path_scsi_iscsi(const struct sys *s, char *dev, struct pathwalk *w)
{
	char *up = xstrdup(dev), *cls = NULL, *conn = NULL, *target = NULL, *addr = NULL,
	     *port = NULL, *sess = NULL;
	unsigned long lun = 0;
	const char *num;

	while (up && !str_has_prefix(sysname(up), "session")) {
		char *next = parent_dev(s, up);
		free(up);
		up = next;
	}
	num = strrchr(sysname(dev), ':');
	if (!up || !num)
		goto out;
	lun = strtoul(num + 1, NULL, 10);
	cls = xasprintf("/sys/class/iscsi_session/%s", sysname(up));
	sess = s->ops->path(cls);
	target = attr_raw(sess, "targetname");
	free(cls);
	cls = xasprintf("/sys/class/iscsi_connection/connection%s:0", sysname(up) + 7);
	conn = s->ops->path(cls);
	addr = attr_raw(conn, "persistent_address");
	port = attr_raw(conn, "persistent_port");
	if (!target || !addr || !port)
		goto out;
	if (lun < 256)
		prepend(&w->path, "ip-%s:%s-iscsi-%s-lun-%lu", addr, port, target, lun);
	else
		prepend(&w->path, "ip-%s:%s-iscsi-%s-lun-0x%04lx%04lx00000000", addr, port, target,
			lun & 0xffff, (lun >> 16) & 0xffff);
	w->parent = true;
out:
	free(up);
	free(cls);
	free(sess);
	free(conn);
	free(target);
	free(addr);
	free(port);
	return dev;
}

static char *path_scsi(const struct sys *s, char *dev, struct pathwalk *w)
{
	const char *rel;
	char *id;

	if (!devtype_is(dev, "scsi_device"))
		return dev;
	if ((id = attr_raw(dev, "ieee1394_id"))) {
		prepend(&w->path, "ieee1394-0x%s", id);
		free(id);
		w->parent = true;
		return skip_subsystem(s, dev, "scsi");
	}
	rel = dev + s->devlen - strlen("/devices");
	if (strstr(rel, "/session"))
		return path_scsi_iscsi(s, dev, w);
	/* fc, sas and Hyper-V name devices from transport classes we do
	 * not follow: no name rather than another one */
	if (strstr(rel, "/rport-") || strstr(rel, "/end_device-") || strstr(rel, "/vmbus_") ||
	    strstr(rel, "/VMBUS")) {
		free(dev);
		return NULL;
	}
	if (strstr(rel, "/ata"))
		return path_scsi_ata(s, dev, w);
	return path_scsi_default(s, dev, w);
}

/* usb-0:PORTS (the bus number changes between boots: udev writes 0). */
static char *path_usb(const struct sys *s, char *dev, struct pathwalk *w)
{
	const char *port;

	if (!devtype_is(dev, "usb_interface") && !devtype_is(dev, "usb_device"))
		return dev;
	if (!(port = strchr(sysname(dev), '-')))
		return dev;
	prepend(&w->path, "usb-0:%s", port + 1);
	return skip_subsystem(s, dev, "usb");
}

/* The controller of a multipath namespace (below nvme-subsystem): the
 * nvme class device of the name's "nvmeN". */
static char *nvme_controller(const struct sys *s, const char *blockname)
{
	size_t n = strlen("nvme") + strspn(blockname + 4, "0123456789");
	char *cls = xasprintf("/sys/class/nvme/%.*s", (int)n, blockname), *p = s->ops->path(cls);
	char *real = realpath(p, NULL);

	free(cls);
	free(p);
	return real;
}

/* Names that are the subsystem and the device's own name. */
static const char *const plain[] = { "platform", "acpi", "xen", "scm", "ccw", "ccwgroup", "iucv" };
/* ... of those, the ones path_id counts as a transport as well */
static bool plain_transport(const char *sub)
{
	return strcmp(sub, "acpi") && strcmp(sub, "xen");
}

static void path_of(const struct sys *s, const char *disk, struct pathwalk *w)
{
	char *dev = xstrdup(disk);

	while (dev) {
		char *sub = subsystem(dev), *up;
		const char *name = sysname(dev);

		if (!sub) {
			/* nothing to add */
		} else if (!strcmp(sub, "scsi")) {
			dev = path_scsi(s, dev, w);
			w->transport = true;
		} else if (!strcmp(sub, "usb")) {
			dev = path_usb(s, dev, w);
			w->transport = true;
		} else if (!strcmp(sub, "pci")) {
			prepend(&w->path, "pci-%s", name);
			if (w->compat)
				prepend(&w->compat, "pci-%s", name);
			dev = skip_subsystem(s, dev, "pci");
			w->parent = true;
		} else if (!strcmp(sub, "virtio")) {
			dev = skip_subsystem(s, dev, "virtio");
			w->transport = true;
		} else if (!strcmp(sub, "nvme") || !strcmp(sub, "nvme-subsystem")) {
			char *nsid = attr_raw(disk, "nsid");
			if (nsid) {
				prepend(&w->path, "nvme-%s", nsid);
				if (w->compat)
					prepend(&w->compat, "nvme-%s", nsid);
				free(nsid);
				w->parent = w->transport = true;
				if (!strcmp(sub, "nvme-subsystem")) {
					free(dev);
					/* path_id gives up when it is not there */
					if (!(dev = nvme_controller(s, sysname(disk))))
						w->parent = false;
				}
				if (dev)
					dev = skip_subsystem(s, dev, "nvme");
			}
		} else {
			for (size_t i = 0; i < ARRAY_SIZE(plain); i++) {
				if (strcmp(sub, plain[i]))
					continue;
				prepend(&w->path, "%s-%s", sub, name);
				if (w->compat)
					prepend(&w->compat, "%s-%s", sub, name);
				dev = skip_subsystem(s, dev, sub);
				w->parent = true;
				w->transport = w->transport || plain_transport(sub);
				break;
			}
		}
		free(sub);
		if (!dev)
			break;
		up = parent_dev(s, dev);
		free(dev);
		dev = up;
	}
}

static void paths(const struct sys *s, const char *disk, const char *name, const char *suffix,
		  struct strv *out)
{
	struct pathwalk w = { 0 };
	const char *rel = disk + s->devlen - strlen("/devices");

	/* the rules run path_id on disks outside /sys/devices/virtual, and
	 * on multipath NVMe namespaces, which live there */
	if (!devtype_is(disk, "disk") ||
	    (strstr(rel, "/virtual/") && !strstr(rel, "/virtual/nvme-subsystem/")))
		return;
	path_of(s, disk, &w);
	if (w.path && w.parent && w.transport) {
		add_link(out, "", w.path, suffix, false);
		add_link(out, "", w.compat, suffix, false);
		if (str_has_prefix(name, "vd") && str_has_prefix(w.path, "pci-"))
			add_link(out, "virtio-", w.path, suffix, false); /* the legacy name */
	}
	free(w.path);
	free(w.compat);
}

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
	char *hidden = attr_raw(disk, "hidden");
	bool is_hidden = hidden && !strcmp(hidden, "1");
	free(hidden);
	if (is_hidden) {
		free(disk);
		goto out;
	}
	diskname = xstrdup(sysname(disk));
	suffix = part ? xasprintf("-part%s", digits) : xstrdup("");
	if (str_has_prefix(diskname, "vd"))
		ids_virtio(&s, disk, suffix, &pn->by_id);
	else if (nvme_namespace(diskname))
		ids_nvme(&s, disk, suffix, &pn->by_id);
	else if (str_has_prefix(diskname, "sd") || str_has_prefix(diskname, "sr"))
		ids_scsi(&s, disk, suffix, &pn->by_id);
	else if (str_has_prefix(diskname, "mmcblk") && isdigit((unsigned char)diskname[6]) &&
		 !diskname[7]) /* the rules' KERNEL=="mmcblk[0-9]" */
		ids_mmc(&s, disk, suffix, &pn->by_id);
	/* mmcblkNbootM has its own "-bootM" name; not made here */
	if (!(str_has_prefix(diskname, "mmcblk") && strstr(diskname, "boot")))
		paths(&s, disk, diskname, suffix, &pn->by_path);
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
	strv_free(&pn->by_path);
}
