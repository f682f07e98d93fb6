// SPDX-License-Identifier: GPL-2.0-or-later
/* Hostonly for a root on NVMe over Fabrics (issue 27): a namespace whose
 * controller lives under /sys/devices/virtual/nvme-fabrics/ctl/, either
 * directly (no native multipath) or as a link of the nvme-subsystem
 * device the namespace hangs off (native multipath, Debian's default).
 * The controller's transport, address, subsysnqn, hostnqn and hostid
 * become the init's rd.nvmf.traddr=, rd.nvmf.trsvcid=, rd.nvmf.nqn=,
 * rd.nvmf.hostnqn= and rd.nvmf.hostid= (src/init/net/nvmf.c reads them):
 * the subsystem the host reached, connected to directly, as the host it
 * connected as. Only TCP: RDMA and FC need hardware an initramfs of
 * ours does not set up. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/hostonly/hostonly_net_priv.h"
#include "gen/hostonly/hostonly_priv.h"

#define CTL_DIR "/nvme-fabrics/ctl/nvme"

/* "/…/nvme-fabrics/ctl/nvmeN" in path: that directory (malloc'd), or NULL. */
static char *fabrics_ctl_in(const char *path)
{
	const char *p = strstr(path, CTL_DIR), *end;

	if (!p)
		return NULL;
	end = p + strlen(CTL_DIR);
	end += strspn(end, "0123456789");
	if (end == p + strlen(CTL_DIR) || (*end && *end != '/'))
		return NULL;
	return xstrndup(path, (size_t)(end - path));
}

/* The fabrics controller of namespace disk dir: itself under one, or
 * the first nvmeN link of its nvme-subsystem parent that points at one.
 * NULL: not NVMe over Fabrics. */
static char *controller_of(const struct ctx *c, const char *disk)
{
	char *ctl = fabrics_ctl_in(disk), *parent;
	struct dirent **ents = NULL;
	int n;

	if (ctl)
		return ctl;
	parent = xstrdup(disk);
	*strrchr(parent, '/') = '\0';
	if (!strstr(parent, "/nvme-subsystem/nvme-subsys")) {
		free(parent);
		return NULL;
	}
	n = scandir(parent, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *d = ents[i]->d_name;
		if (!ctl && str_has_prefix(d, "nvme") && d[4] && strspn(d + 4, "0123456789") == strlen(d + 4)) {
			char *link = xasprintf("%s/%s", parent, d), *real = NULL;
			if (hostonly_resolve_link(c, link, &real) == 0)
				ctl = fabrics_ctl_in(real);
			free(real);
			free(link);
		}
		free(ents[i]);
	}
	free(ents);
	free(parent);
	return ctl;
}

/* A value the init's nvmf.c takes into an options string, and the
 * kernel command line can carry: printable, no space, quote or ','. */
static bool plain(const char *s)
{
	if (!*s || strlen(s) > 223)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == ',')
			return false;
	return true;
}

static int bad_value(const char *ctl, const char *what, const char *val)
{
	char *t = hostonly_printable(val ? val : "");
	int r = err_set("NVMe over Fabrics %s: %s \"%s\" cannot go on the kernel command line "
			"(empty, or a space, quote, ',' or control character)",
			strrchr(ctl, '/') + 1, what, t);

	free(t);
	return r;
}

int hostonly_net_nvmf(const struct ctx *c, const char *disk)
{
	char *ctl = controller_of(c, disk), *transport = NULL, *address = NULL, *nqn = NULL;
	char *hostnqn = NULL, *hostid = NULL, *addr = NULL, *port = NULL, *t;
	int family, r = 0;

	if (!ctl)
		return 1;
	transport = read_attr(ctl, "transport");
	address = read_attr(ctl, "address");
	nqn = read_attr(ctl, "subsysnqn");
	hostnqn = read_attr(ctl, "hostnqn");
	hostid = read_attr(ctl, "hostid");
	if (!transport || strcmp(transport, "tcp") != 0) {
		t = hostonly_printable(transport ? transport : "");
		r = err_set("the root is on NVMe over Fabrics %s, transport \"%s\": uniramfs connects over tcp only",
			    strrchr(ctl, '/') + 1, t);
		free(t);
		goto out;
	}
	addr = address ? optlist_value(address, "traddr") : NULL;
	port = address ? optlist_value(address, "trsvcid") : NULL;
	if (!addr || !hostonly_net_is_addr(addr, &family)) {
		t = hostonly_printable(address ? address : "");
		r = err_set("the root is on NVMe/TCP %s, but its address \"%s\" has no IP traddr=",
			    strrchr(ctl, '/') + 1, t);
		free(t);
		goto out;
	}
	if (port && (!*port || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 ||
		     atoi(port) < 1 || atoi(port) > 65535)) {
		r = bad_value(ctl, "trsvcid", port);
		goto out;
	}
	if (!nqn || !plain(nqn)) {
		r = bad_value(ctl, "subsysnqn", nqn);
		goto out;
	}
	free(c->h->net.kind);
	free(c->h->net.server);
	c->h->net.kind = xstrdup("nvmf");
	c->h->net.server = xstrdup(addr);
	hostonly_net_push_module(c, "nvme_tcp");
	r = hostonly_net_push_word(c, "rd.nvmf.traddr", addr, "the NVMe/TCP address");
	if (r == 0 && port && strcmp(port, "4420"))
		r = hostonly_net_push_word(c, "rd.nvmf.trsvcid", port, "the NVMe/TCP port");
	if (r == 0)
		r = hostonly_net_push_word(c, "rd.nvmf.nqn", nqn, "the NVMe subsystem");
	/* the target may admit this host alone: connect as it */
	if (r == 0 && hostnqn && plain(hostnqn))
		r = hostonly_net_push_word(c, "rd.nvmf.hostnqn", hostnqn, "the NVMe host NQN");
	if (r == 0 && hostid && plain(hostid))
		r = hostonly_net_push_word(c, "rd.nvmf.hostid", hostid, "the NVMe host ID");
	if (r == 0)
		r = hostonly_net_reach_server(c);
out:
	free(port);
	free(addr);
	free(hostid);
	free(hostnqn);
	free(nqn);
	free(address);
	free(transport);
	free(ctl);
	return r;
}
