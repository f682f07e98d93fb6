// SPDX-License-Identifier: GPL-2.0-or-later
/* The network root's share of an image (issue 11): iscsistart and
 * nbd-client with their libraries, the netroot=/ip= defaults a hostonly
 * image bakes in (an NVMe/TCP root's rd.nvmf.* too: it needs no tool),
 * and the line that says which network roots the image can boot. */
#include "gen/features/nettools.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildconf.h"

#include "cmdline.h"
#include "err.h"
#include "gen/elf/elf.h"
#include "gen/features/stack.h"
#include "gen/host/companion.h"
#include "gen/host/sysroot.h"
#include "log.h"

/* src/notls/meson.build names it so */
#define NOTLS_NAME "gnutls-notls.so"

static const struct net_tool {
	const char *kind, *name, *what, *package;
} net_tools[] = {
	{ "iscsi", "iscsistart", "iSCSI", "open-iscsi" },
	{ "nbd", "nbd-client", "NBD", "nbd-client" },
};

/* nbd-client's GnuTLS stand-in (src/notls/): the init never asks for
 * TLS. Beside uniramfs in a build tree, else in the libexec directory;
 * NULL (the real GnuTLS is packed) when neither has it. */
static char *find_notls(void)
{
	static const char *const beside[] = { "src/notls/" NOTLS_NAME, NOTLS_NAME,
					      "../notls/" NOTLS_NAME };
	char *c = companion_find(beside, ARRAY_SIZE(beside), NOTLS_NAME, R_OK);

	if (!c)
		log_debug("%s not found: nbd-client gets the real GnuTLS", NOTLS_NAME);
	return c;
}

void net_plan_hostonly(struct net_plan *np, const struct hostonly *h)
{
	np->hostonly = true;
	np->kind = h->net.kind ? xstrdup(h->net.kind) : NULL;
	np->server = h->net.server ? xstrdup(h->net.server) : NULL;
	np->iface = h->net.iface ? xstrdup(h->net.iface) : NULL;
	for (size_t i = 0; i < h->net.cmdline.n; i++)
		strv_push(&np->cmdline, h->net.cmdline.v[i]);
}

int net_plan_add(struct net_plan *np, struct image *img, const char *sysroot)
{
	struct elf_resolver *er = NULL;
	int r = 0;

	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(net_tools); i++) {
		const struct net_tool *t = &net_tools[i];
		char *path;

		np->have[i] = false;
		if (np->hostonly && (!np->kind || strcmp(np->kind, t->kind) != 0))
			continue;
		path = sysroot_find_tool(sysroot, t->name);
		if (!path) {
			if (np->hostonly)
				r = err_set("the root is on %s but %s is not installed (apt install %s)", t->what,
					    t->name, t->package);
			continue;
		}
		if (!er)
			er = elf_resolver_new(sysroot);
		if (!strcmp(t->kind, "nbd")) {
			char *notls = getenv("UNIRAMFS_NOTLS") ? xstrdup(getenv("UNIRAMFS_NOTLS")) : find_notls();
			if (notls && *notls)
				elf_resolver_stand_in(er, "libgnutls.so.30", notls);
			free(notls);
		}
		r = elf_add_binary(er, img, path);
		if (r < 0)
			err_wrap("%s", t->name);
		np->have[i] = r == 0;
		free(path);
	}
	if (er)
		elf_resolver_free(er);
	return r;
}

/* Does the user's command line already say this? A root= of any kind
 * overrides a baked netroot=; an ip= of theirs, our ifname= too. */
static bool user_sets(const struct cmdline *u, const char *word)
{
	static const char *const netroot[] = { "netroot", "root", "nfsroot", "nbdroot" };
	static const char *const ip[] = { "ip", "nfsaddrs" };
	size_t kl = strcspn(word, "=");

	if (!strncmp(word, "netroot=", 8)) {
		for (size_t i = 0; i < ARRAY_SIZE(netroot); i++)
			if (cmdline_has(u, netroot[i]))
				return true;
		return false;
	}
	if (!strncmp(word, "ip=", 3) || !strncmp(word, "ifname=", 7))
		for (size_t i = 0; i < ARRAY_SIZE(ip); i++)
			if (cmdline_has(u, ip[i]))
				return true;
	for (size_t i = 0; i < u->n; i++)
		if (strlen(u->p[i].key) == kl && !strncmp(u->p[i].key, word, kl))
			return true;
	return false;
}

char *net_plan_cmdline(const struct net_plan *np, const char *user)
{
	struct cmdline u = { 0 };
	struct buf b = { 0 };

	cmdline_parse(&u, user);
	for (size_t i = 0; i < np->cmdline.n; i++)
		if (!user_sets(&u, np->cmdline.v[i]))
			buf_printf(&b, "%s%s", b.len ? " " : "", np->cmdline.v[i]);
	/* Ours first: the user's line may end in "-- init args". */
	if (user && *user)
		buf_printf(&b, "%s%s", b.len ? " " : "", user);
	cmdline_free(&u);
	if (!b.p)
		return xstrdup("");
	return b.p;
}

char *net_plan_summary(const struct net_plan *np)
{
	struct buf b = { 0 }, missing = { 0 };

	if (np->hostonly) {
		if (!np->kind)
			return NULL;
		buf_printf(&b, "%s from %s", np->kind, np->server ? np->server : "an unknown server");
		if (np->iface)
			buf_printf(&b, " via %s", np->iface);
		return b.p;
	}
	buf_printf(&b, "nfs");
	for (size_t i = 0; i < ARRAY_SIZE(net_tools); i++) {
		if (np->have[i])
			buf_printf(&b, ", %s", net_tools[i].kind);
		else
			buf_printf(&missing, "%sno %s: apt install %s", missing.len ? "; " : "", net_tools[i].name,
				   net_tools[i].package);
	}
	/* NFS and NVMe/TCP need no tool: the init speaks to the kernel */
	buf_printf(&b, ", nvmf");
	if (missing.len)
		buf_printf(&b, " (%s)", missing.p);
	buf_free(&missing);
	return b.p;
}

void net_plan_free(struct net_plan *np)
{
	free(np->kind);
	free(np->server);
	free(np->iface);
	strv_free(&np->cmdline);
	memset(np, 0, sizeof(*np));
}
