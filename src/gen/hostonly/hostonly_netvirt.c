// SPDX-License-Identifier: GPL-2.0-or-later
/* Hostonly for a network root reached through a bond, a bridge or a
 * VLAN: the link's driver (bonding, bridge, 8021q), its ports' NIC
 * drivers, and the bond=, bridge= or vlan= word (dracut's syntax, which
 * the init reads: net/netvirt.h) that makes the link again at boot.
 * Everything read here comes from the host's sysfs and /proc and is
 * checked before it goes on a command line. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gen/hostonly/hostonly_net_priv.h"
#include "log.h"

#define MAX_PORTS 8

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 15 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '/' || *p == ':' || *p == ',' || *p == '"')
			return false;
	return true;
}

static bool is_dir(const char *dir, const char *sub)
{
	char *p = xasprintf("%s/%s", dir, sub);
	DIR *d = opendir(p);

	free(p);
	if (d)
		closedir(d);
	return d != NULL;
}

/* The ports: bonding/slaves' words, or brif/'s or lower_*'s names. */
static int ports_of(const char *dir, const char *kind, struct strv *out)
{
	if (!strcmp(kind, "bond")) {
		char *line = read_attr(dir, "bonding/slaves");
		if (line)
			strv_split(out, line, " ");
		free(line);
	} else {
		char *p = !strcmp(kind, "bridge") ? xasprintf("%s/brif", dir) : xstrdup(dir);
		DIR *d = opendir(p);
		struct dirent *e;
		while (d && (e = readdir(d)))
			if (!strcmp(kind, "bridge") ? e->d_name[0] != '.' : !strncmp(e->d_name, "lower_", 6))
				strv_push(out, e->d_name + (strcmp(kind, "bridge") ? 6 : 0));
		if (d)
			closedir(d);
		free(p);
		strv_sort_uniq(out);
	}
	int r;

	for (size_t i = 0; i < out->n; i++)
		if (!name_ok(out->v[i])) {
			char *t = hostonly_printable(out->v[i]);
			r = err_set("hostonly: a port \"%s\" of %s cannot go on the command line", t, dir);
			free(t);
			return r;
		}
	if (!out->n || out->n > MAX_PORTS || (!strcmp(kind, "vlan") && out->n != 1))
		return err_set("hostonly: %s has %zu ports: not a link the init can make again", dir, out->n);
	return 0;
}

/* bond=NAME:PORTS:mode=M,miimon=N from the bonding driver's own files. */
static char *bond_word(const char *dir, const char *iface, const char *ports)
{
	char *mode = read_attr(dir, "bonding/mode"), *mii = read_attr(dir, "bonding/miimon"), *w;
	char *sp = mode ? strchr(mode, ' ') : NULL;

	if (sp)
		*sp = '\0'; /* "active-backup 1" */
	if (mode && (!*mode || strspn(mode, "abcdefghijklmnopqrstuvwxyz0123456789.-+") != strlen(mode))) {
		free(mode);
		mode = NULL;
	}
	if (mii && strspn(mii, "0123456789") != strlen(mii)) {
		free(mii);
		mii = NULL;
	}
	w = xasprintf("%s:%s:mode=%s%s%s", iface, ports, mode ? mode : "balance-rr", mii && *mii ? ",miimon=" : "",
		      mii && *mii ? mii : "");
	free(mode);
	free(mii);
	return w;
}

int hostonly_net_virtual(const struct ctx *c, const char *iface, int depth)
{
	char *dir = xasprintf("%s/sys/class/net/%s", c->root, iface);
	const char *kind = NULL, *module = NULL;
	struct strv ports = { 0 };
	struct buf list = { 0 };
	char *vlanf = NULL, *word = NULL;
	int r;

	if (is_dir(dir, "bonding")) {
		kind = "bond", module = "bonding";
	} else if (is_dir(dir, "bridge")) {
		kind = "bridge", module = "bridge";
	} else {
		vlanf = xasprintf("%s/proc/net/vlan/%s", c->root, iface);
		if (access(vlanf, F_OK) == 0)
			kind = "vlan", module = "8021q";
		free(vlanf);
	}
	if (!kind || depth > 2 || !name_ok(iface)) {
		free(dir);
		return 1;
	}
	if ((r = ports_of(dir, kind, &ports)) < 0)
		goto out;
	hostonly_net_push_module(c, module);
	for (size_t i = 0; i < ports.n; i++)
		buf_printf(&list, "%s%s", i ? "," : "", ports.v[i]);
	log_info("hostonly: %s is a %s over %s", iface, kind, list.p);
	for (size_t i = 0; i < ports.n && r == 0; i++) {
		char *link = xasprintf("%s/sys/class/net/%s/device", c->root, ports.v[i]), *dev = NULL;
		r = hostonly_resolve_link(c, link, &dev);
		free(link);
		if (r == 0)
			r = hostonly_walk_up(c, dev);
		else if (r > 0)
			r = hostonly_net_virtual(c, ports.v[i], depth + 1) < 0 ? err_code() : 0; /* 1: none */
		free(dev);
	}
	if (r < 0)
		goto out;
	if (!strcmp(kind, "bond")) {
		word = bond_word(dir, iface, list.p);
	} else if (!strcmp(kind, "bridge")) {
		word = xasprintf("%s:%s", iface, list.p);
	} else {
		/* the init (as dracut) reads the id from the name alone */
		const char *dot = strrchr(iface, '.');
		if (strncmp(iface, "vlan", 4) && !(dot && dot[1])) {
			log_warn("hostonly: the VLAN %s has no id in its name (vlan5, %s.5): add vlan=NAME:%s "
				 "with --cmdline under such a name",
				 iface, list.p, list.p);
			goto out;
		}
		word = xasprintf("%s:%s", iface, list.p);
	}
	r = hostonly_net_push_word(c, kind, word, "the link");
out:
	free(word);
	buf_free(&list);
	strv_free(&ports);
	free(dir);
	return r;
}
