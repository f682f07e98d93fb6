// SPDX-License-Identifier: GPL-2.0-or-later
/* Predictable interface names as systemd 252's udev gives them. Written
 * from systemd.net-naming-scheme(7) and udev's behaviour, and checked
 * name for name against udevadm test-builtin net_id on real machines
 * (tests/unit/fixtures/netname/). Every rule below is v252's; a later
 * scheme changes some (the comments say which, where it matters).
 *
 * Paths here are sysfs paths ("/sys/devices/…"); each access maps one
 * through path(), so a test's fake tree is read as the real one is. */
#include "init/net/netname.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "init/net/netaddr.h"

typedef char *(*path_fn)(const char *p);

/* The kernel's name_assign_type values (linux/netdevice.h). */
#define NAME_PREDICTABLE 2
#define NAME_USER 3
#define NAME_RENAMED 4

/* The onboard index limit of v249's 16-bit rule: firmware has been
 * seen reporting 2^24-1 for every card. */
#define ONBOARD_INDEX_MAX 65535UL

/* dir/name as udev reads a sysfs attribute: the whole value, trailing
 * newlines removed; NULL when it cannot be read. */
static char *attr(path_fn path, const char *dir, const char *name)
{
	char *rel = xasprintf("%s/%s", dir, name), *p = path(rel), *v = NULL;
	size_t len = 0;

	free(rel);
	if (read_file(p, &v, &len) < 0)
		v = NULL;
	free(p);
	while (v && len && (v[len - 1] == '\n' || v[len - 1] == '\r'))
		v[--len] = '\0';
	return v;
}

static bool exists(path_fn path, const char *dir, const char *name)
{
	char *rel = xasprintf("%s/%s", dir, name), *p = path(rel);
	bool r = access(p, F_OK) == 0;

	free(rel);
	free(p);
	return r;
}

/* Where the link dir/name points, as a sysfs path: sysfs links are
 * relative, so resolving them by hand keeps a fake tree's inside it. */
static char *link_target(path_fn path, const char *dir, const char *name)
{
	char *rel = xasprintf("%s/%s", dir, name), *p = path(rel), buf[PATH_MAX], *joined, *r;
	ssize_t n = readlink(p, buf, sizeof(buf) - 1);

	free(rel);
	free(p);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	joined = buf[0] == '/' ? xstrdup(buf) : xasprintf("%s/%s", dir, buf);
	r = path_normalize(joined);
	free(joined);
	return r;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Is the device at dir in this subsystem (its subsystem link's name)? */
static bool in_subsystem(path_fn path, const char *dir, const char *subsystem)
{
	char *t = link_target(path, dir, "subsystem");
	bool r = t && !strcmp(base(t), subsystem);

	free(t);
	return r;
}

/* The next device up: the nearest directory above with a uevent file,
 * as udev finds a parent. NULL at the top. */
static char *parent_device(path_fn path, const char *dev)
{
	char *d = xstrdup(dev), *slash;

	while ((slash = strrchr(d, '/')) && slash != d) {
		*slash = '\0';
		if (!strcmp(d, "/sys") || !strcmp(d, "/sys/devices"))
			break;
		if (exists(path, d, "uevent"))
			return d;
	}
	free(d);
	return NULL;
}

static char *parent_pci(path_fn path, const char *dev)
{
	char *p = parent_device(path, dev);

	while (p && !in_subsystem(path, p, "pci")) {
		char *up = parent_device(path, p);
		free(p);
		p = up;
	}
	return p;
}

/* systemd's safe_atolu: optional leading blanks, no sign, the whole
 * string a number in the base (0: C's prefixes). */
static int parse_ulong(const char *s, int base_, unsigned long *out)
{
	char *end;

	if (!s)
		return -ENOENT;
	s += strspn(s, " \t\n\r");
	if (*s == '-' || *s == '+' || !*s)
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &end, base_);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

/* Appends to a name; one that does not fit is dropped whole, as udev
 * drops it rather than export a truncated name. */
static void add(char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(char *name, const char *fmt, ...)
{
	size_t len = strlen(name);
	va_list ap;
	int n;

	if (len == 0)
		return; /* dropped already */
	va_start(ap, fmt);
	n = vsnprintf(name + len, NET_NAME_MAX - len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= NET_NAME_MAX - len)
		name[0] = '\0';
}

/* What the interface adds after the function: the port name its
 * driver gives, else dev_port when not 0 (several ports on one PCI
 * function). */
struct port {
	const char *name;   /* phys_port_name, NULL */
	unsigned long num;  /* dev_port */
};

static void add_port(char *name, const struct port *pt)
{
	if (pt->name && *pt->name)
		add(name, "n%s", pt->name);
	else if (pt->num > 0)
		add(name, "d%lu", pt->num);
}

/* Bit 7 of the header type byte of the configuration space: the
 * device has several functions, and even function 0 carries its f. */
static bool pci_multifunction(path_fn path, const char *pcidev)
{
	char *rel = xasprintf("%s/config", pcidev), *p = path(rel);
	unsigned char cfg[15];
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	bool r = false;

	free(rel);
	free(p);
	if (fd < 0)
		return false;
	if (read(fd, cfg, sizeof(cfg)) == (ssize_t)sizeof(cfg))
		r = cfg[14] & 0x80;
	close(fd);
	return r;
}

/* udev's test: the modalias's subclass (after the last "sc") is 04,
 * whatever the class. */
static bool pci_bridge(path_fn path, const char *pcidev)
{
	char *m = attr(path, pcidev, "modalias"), *s;
	bool r = false;

	if (m && !strncmp(m, "pci:", 4) && (s = strrchr(m, 's')) && s[1] == 'c')
		r = !strncmp(s + 2, "04", 2);
	free(m);
	return r;
}

/* eno<index>: the firmware's number for an onboard device, ACPI's
 * acpi_index before SMBIOS's index. 0 counts since v240. */
static void names_onboard(path_fn path, const char *pcidev, const char *prefix, const struct port *pt,
			  char *out)
{
	char *v = attr(path, pcidev, "acpi_index");
	unsigned long idx;

	if (!v)
		v = attr(path, pcidev, "index");
	if (v && parse_ulong(v, 0, &idx) == 0 && idx <= ONBOARD_INDEX_MAX) {
		snprintf(out, NET_NAME_MAX, "%so%lu", prefix, idx);
		add_port(out, pt);
	}
	free(v);
}

/* The number of the hotplug slot whose address starts sysname; 0
 * when none. Slot directories are numbers >= 1 (strtoul's base 0, as
 * udev reads them); others are not slots udev names by. */
static unsigned long slot_of(path_fn path, DIR *slots, const char *sysname)
{
	struct dirent *e;

	rewinddir(slots);
	while ((e = readdir(slots))) {
		unsigned long i;
		char *dir, *addr;
		bool match;

		if (e->d_name[0] == '.' || parse_ulong(e->d_name, 0, &i) < 0 || i < 1 || i > UINT32_MAX)
			continue;
		dir = xasprintf("/sys/bus/pci/slots/%s", e->d_name);
		addr = attr(path, dir, "address");
		match = addr && !strncmp(sysname, addr, strlen(addr));
		free(addr);
		free(dir);
		if (match)
			return i;
	}
	return 0;
}

/* enp<bus>s<slot>[f<fn>] and ens<slot>[f<fn>] from the PCI address and
 * the hotplug slot of the device or of the nearest bridge above it. */
static void names_slot_path(path_fn path, const char *pcidev, const char *prefix, const struct port *pt,
			    char *slot_out, char *path_out)
{
	unsigned domain, bus, slot, func;
	unsigned long hotplug = 0;
	bool multi;
	char *ari, *slots_dir, *dev;
	DIR *slots;

	if (sscanf(base(pcidev), "%x:%x:%x.%u", &domain, &bus, &slot, &func) != 4)
		return;
	/* ARI: up to 256 functions, the slot bits are the function's top */
	if ((ari = attr(path, pcidev, "ari_enabled")) && !strcmp(ari, "1"))
		func += slot * 8;
	free(ari);
	multi = pci_multifunction(path, pcidev);

	snprintf(path_out, NET_NAME_MAX, "%s", prefix);
	if (domain > 0)
		add(path_out, "P%u", domain);
	add(path_out, "p%us%u", bus, slot);
	if (func > 0 || multi)
		add(path_out, "f%u", func);
	add_port(path_out, pt);

	slots_dir = path("/sys/bus/pci/slots");
	slots = opendir(slots_dir);
	free(slots_dir);
	if (!slots)
		return;
	for (dev = xstrdup(pcidev); dev; ) {
		char *up;
		if ((hotplug = slot_of(path, slots, base(dev)))) {
			/* A bridge's slot would name every card behind it
			 * the same (v247); v251 allows it again for a
			 * multi-function card, whose f tells them apart. */
			if (pci_bridge(path, dev) && !multi)
				hotplug = 0;
			break;
		}
		up = parent_pci(path, dev);
		free(dev);
		dev = up;
	}
	free(dev);
	closedir(slots);
	if (!hotplug)
		return;
	snprintf(slot_out, NET_NAME_MAX, "%s", prefix);
	if (domain > 0)
		add(slot_out, "P%u", domain);
	add(slot_out, "s%lu", hotplug);
	if (func > 0 || multi)
		add(slot_out, "f%u", func);
	add_port(slot_out, pt);
}

/* An SR-IOV virtual function: its physical function's device, and the
 * number of the virtfnN link there that points back at it. */
static char *virtfn_of(path_fn path, const char *pcidev, char *num, size_t size)
{
	char *pf = link_target(path, pcidev, "physfn"), *p;
	DIR *d;
	struct dirent *e;

	if (!pf)
		return NULL;
	p = path(pf);
	d = opendir(p);
	free(p);
	while (d && (e = readdir(d))) {
		const char *n = e->d_name + 6;
		char *t;
		if (strncmp(e->d_name, "virtfn", 6) || !*n || strspn(n, "0123456789") != strlen(n) ||
		    strlen(n) >= size)
			continue;
		t = link_target(path, pf, e->d_name);
		if (t && !strcmp(t, pcidev)) {
			snprintf(num, size, "%s", n);
			free(t);
			closedir(d);
			return pf;
		}
		free(t);
	}
	if (d)
		closedir(d);
	free(pf);
	return NULL;
}

/* A virtual function is named after its physical function, plus v<N>
 * (v239); a name that would not fit is left out. */
static void add_vf(char *name, const char *num)
{
	if (name[0] && strlen(name) + 1 + strlen(num) < NET_NAME_MAX)
		add(name, "v%s", num);
	else
		name[0] = '\0';
}

static void names_pci(path_fn path, const char *pcidev, const char *prefix, const struct port *pt,
		      struct net_names *out)
{
	char num[16], *pf = virtfn_of(path, pcidev, num, sizeof(num));

	names_onboard(path, pf ? pf : pcidev, prefix, pt, out->onboard);
	names_slot_path(path, pf ? pf : pcidev, prefix, pt, out->slot, out->path);
	if (pf) {
		add_vf(out->onboard, num);
		add_vf(out->slot, num);
		add_vf(out->path, num);
		free(pf);
	}
}

/* enx<mac>, only for an address the hardware holds (addr_assign_type
 * 0, NET_ADDR_PERM): a random one would rename the card every boot. */
static void names_mac(path_fn path, const char *dev, const char *prefix, char *out)
{
	char *a = attr(path, dev, "address"), *t = attr(path, dev, "addr_assign_type");
	unsigned long type;
	uint8_t m[6];

	if (a && net_parse_mac(a, m) == 0 && strlen(a) == 17 && parse_ulong(t, 0, &type) == 0 && type == 0)
		snprintf(out, NET_NAME_MAX, "%sx%02x%02x%02x%02x%02x%02x", prefix, m[0], m[1], m[2], m[3], m[4],
			 m[5]);
	free(a);
	free(t);
}

/* uevent's DEVTYPE: wlan and wwan cards get their own prefix. */
static const char *name_prefix(path_fn path, const char *dev)
{
	char *u = attr(path, dev, "uevent"), *l;
	const char *prefix = "en";

	for (l = u; l && *l;) {
		size_t n = strcspn(l, "\n");
		if (n == 12 && !strncmp(l, "DEVTYPE=wlan", 12))
			prefix = "wl";
		else if (n == 12 && !strncmp(l, "DEVTYPE=wwan", 12))
			prefix = "ww";
		l += n + (l[n] == '\n');
	}
	free(u);
	return prefix;
}

static int read_int(path_fn path, const char *dev, const char *name, long *out)
{
	char *v = attr(path, dev, name), *end;
	int r = -ENOENT;

	if (v && *v) {
		errno = 0;
		*out = strtol(v, &end, 10);
		r = errno || *end ? -EINVAL : 0;
	}
	free(v);
	return r;
}

int net_names_read(path_fn path, const char *ifname, struct net_names *out)
{
	long ifindex, iflink, type, assign;
	char *dev, *pci = NULL, *v;
	const char *prefix;
	struct port pt = { 0 };
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!net_ifname_valid(ifname))
		return -EINVAL;
	dev = link_target(path, "/sys/class/net", ifname);
	if (!dev)
		dev = xasprintf("/sys/class/net/%s", ifname);
	if (read_int(path, dev, "ifindex", &ifindex) < 0 || read_int(path, dev, "iflink", &iflink) < 0 ||
	    read_int(path, dev, "type", &type) < 0) {
		r = -ENOENT;
		goto out;
	}
	if (read_int(path, dev, "name_assign_type", &assign) == 0)
		out->assign_type = (int)assign;
	/* a VLAN, a macvlan…: stacked on another link, never named here;
	 * only Ethernet (ARPHRD_ETHER) */
	if (ifindex != iflink || type != 1)
		goto out;
	prefix = name_prefix(path, dev);
	names_mac(path, dev, prefix, out->mac);

	/* the card: the parent, past virtio's bus (one per PCI device) */
	pci = parent_device(path, dev);
	while (pci && in_subsystem(path, pci, "virtio")) {
		char *up = parent_device(path, pci);
		free(pci);
		pci = up;
	}
	if (!pci || !in_subsystem(path, pci, "pci"))
		goto out; /* USB and the others: see netname.h */
	pt.name = attr(path, dev, "phys_port_name");
	v = attr(path, dev, "dev_port");
	if (parse_ulong(v, 10, &pt.num) < 0)
		pt.num = 0;
	free(v);
	names_pci(path, pci, prefix, &pt, out);
	free((char *)pt.name);
out:
	free(pci);
	free(dev);
	return r;
}

static bool usable(const char *name)
{
	return name[0] && net_ifname_valid(name);
}

const char *net_names_policy(const struct net_names *n)
{
	/* keep: userspace named it already; kernel: its driver's name is
	 * stable. database (hwdb) is not read: see netname.h. */
	if (n->assign_type == NAME_USER || n->assign_type == NAME_RENAMED || n->assign_type == NAME_PREDICTABLE)
		return NULL;
	if (usable(n->onboard))
		return n->onboard;
	if (usable(n->slot))
		return n->slot;
	if (usable(n->path))
		return n->path;
	return NULL;
}

bool net_names_has(const struct net_names *n, const char *name)
{
	const char *v[] = { n->onboard, n->slot, n->path, n->mac };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (usable(v[i]) && !strcmp(v[i], name))
			return true;
	return false;
}
