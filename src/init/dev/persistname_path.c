// SPDX-License-Identifier: GPL-2.0-or-later
/* /dev/disk/by-path: path_id, the device's place from the disk up to
 * its controller. */
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
		char *up = pn_parent_dev(s, dev);
		if (!up || !pn_subsystem_is(up, subsys)) {
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
	/* the scsi-H:B:T:L part with udev's host number and the kernel's,
	 * which booster writes, when the two differ */
	char *scsi_udev, *scsi_kernel;
};

/* libata: ata-PORT.TARGET (PORT.BUS.0 behind a port multiplier), and
 * the older ata-PORT kept as ID_PATH_ATA_COMPAT. */
static char *path_scsi_ata(const struct sys *s, char *dev, struct pathwalk *w)
{
	unsigned host, bus, target, lun;
	char *shost, *port = NULL, *p;

	if (sscanf(pn_sysname(dev), "%u:%u:%u:%u", &host, &bus, &target, &lun) != 4 ||
	    !(shost = pn_parent_with(s, dev, "scsi", "scsi_host")))
		goto fail;
	p = pn_parent_dev(s, shost);
	free(shost);
	if (p) {
		char *cls = xasprintf("ata_port/%s", pn_sysname(p)), *d = path_join(p, cls);
		port = pn_attr_raw(d, "port_no");
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
	char *shost = pn_parent_with(s, dev, "scsi", "scsi_host"), *dir;
	DIR *d;
	struct dirent *de;

	if (!shost || sscanf(pn_sysname(dev), "%d:%d:%d:%d", &host, &bus, &target, &lun) != 4) {
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
	if (base > 0 && !w->scsi_udev) {
		w->scsi_udev = xasprintf("scsi-%u:%u:%u:%u", (unsigned)(host - base), (unsigned)bus,
					 (unsigned)target, (unsigned)lun);
		w->scsi_kernel = xasprintf("scsi-%u:%u:%u:%u", (unsigned)host, (unsigned)bus,
					   (unsigned)target, (unsigned)lun);
	}
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

	while (up && !str_has_prefix(pn_sysname(up), "session")) {
		char *next = pn_parent_dev(s, up);
		free(up);
		up = next;
	}
	num = strrchr(pn_sysname(dev), ':');
	if (!up || !num)
		goto out;
	lun = strtoul(num + 1, NULL, 10);
	cls = xasprintf("/sys/class/iscsi_session/%s", pn_sysname(up));
	sess = s->ops->path(cls);
	target = pn_attr_raw(sess, "targetname");
	free(cls);
	cls = xasprintf("/sys/class/iscsi_connection/connection%s:0", pn_sysname(up) + 7);
	conn = s->ops->path(cls);
	addr = pn_attr_raw(conn, "persistent_address");
	port = pn_attr_raw(conn, "persistent_port");
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

	if (!pn_devtype_is(dev, "scsi_device"))
		return dev;
	if ((id = pn_attr_raw(dev, "ieee1394_id"))) {
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

	if (!pn_devtype_is(dev, "usb_interface") && !pn_devtype_is(dev, "usb_device"))
		return dev;
	if (!(port = strchr(pn_sysname(dev), '-')))
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
		char *sub = pn_subsystem(dev), *up;
		const char *name = pn_sysname(dev);

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
			char *nsid = pn_attr_raw(disk, "nsid");
			if (nsid) {
				prepend(&w->path, "nvme-%s", nsid);
				if (w->compat)
					prepend(&w->compat, "nvme-%s", nsid);
				free(nsid);
				w->parent = w->transport = true;
				if (!strcmp(sub, "nvme-subsystem")) {
					free(dev);
					/* path_id gives up when it is not there */
					if (!(dev = nvme_controller(s, pn_sysname(disk))))
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
		up = pn_parent_dev(s, dev);
		free(dev);
		dev = up;
	}
}

/* booster's HWPATH= for the disk: udev's path with the kernel's SCSI
 * host number in place of udev's, counted from the controller's first. */
static void booster_path(const struct pathwalk *w, const char *suffix, struct strv *out)
{
	size_t n = strlen(w->scsi_udev);
	const char *at = w->path;
	char *name;

	/* the part stands whole: at the start or after a '-', then '-' or the end */
	while ((at = strstr(at, w->scsi_udev)) &&
	       ((at != w->path && at[-1] != '-') || (at[n] && at[n] != '-')))
		at++;
	if (!at)
		return;
	name = xasprintf("%.*s%s%s%s", (int)(at - w->path), w->path, w->scsi_kernel, at + n, suffix);
	if (persistname_valid(name) && !strv_contains(out, name))
		strv_push_owned(out, name);
	else
		free(name);
}

void pn_paths(const struct sys *s, const char *disk, const char *name, const char *suffix,
	      struct strv *out, struct strv *booster)
{
	struct pathwalk w = { 0 };
	const char *rel = disk + s->devlen - strlen("/devices");

	/* the rules run path_id on disks outside /sys/devices/virtual, and
	 * on multipath NVMe namespaces, which live there */
	if (!pn_devtype_is(disk, "disk") ||
	    (strstr(rel, "/virtual/") && !strstr(rel, "/virtual/nvme-subsystem/")))
		return;
	path_of(s, disk, &w);
	if (w.path && w.parent && w.transport) {
		pn_add_link(out, "", w.path, suffix, false);
		pn_add_link(out, "", w.compat, suffix, false);
		if (str_has_prefix(name, "vd") && str_has_prefix(w.path, "pci-"))
			pn_add_link(out, "virtio-", w.path, suffix, false); /* the legacy name */
		if (w.scsi_udev)
			booster_path(&w, suffix, booster);
	}
	free(w.path);
	free(w.compat);
	free(w.scsi_udev);
	free(w.scsi_kernel);
}
