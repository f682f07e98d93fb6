// SPDX-License-Identifier: GPL-2.0-or-later
/* Network root specs. Two families of syntax: the kernel's
 * nfsroot=[SERVER:]PATH[,OPTS] (fs/nfs/nfsroot.c, also what a DHCP
 * root-path holds when it names no type), and dracut's TYPE:… specs in
 * root= and netroot= (its nfs, iscsi and nbd modules). */
#include "init/net/netroot.h"
#include "init/net/netroot_priv.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void iscsi_target_free(struct iscsi_target *t)
{
	free(t->server);
	free(t->name);
	free(t->user);
	free(t->password);
	free(t->in_user);
	free(t->in_password);
	memset(t, 0, sizeof(*t));
}

void iscsi_root_free(struct iscsi_root *r)
{
	free(r->initiator);
	iscsi_target_free(&r->target);
	for (size_t i = 0; i < r->nmore; i++)
		iscsi_target_free(&r->more[i]);
	free(r->more);
	memset(r, 0, sizeof(*r));
}

/* iscsi_parse, its warnings quoting shown: the spec with its CHAP
 * secrets masked. */
static int iscsi_parse_shown(const char *spec, const char *shown, struct iscsi_root *r, struct strv *w)
{
	struct iscsi_target *t = &r->target;
	const char *s = spec, *at = strchr(spec, '@'), *f[3];
	size_t flen[3];
	long v;
	bool bad;

	t->port = 3260;
	if (at) {
		struct strv a = { 0 };
		char *auth = xstrndup(spec, (size_t)(at - spec));
		/* Split on every ':' keeping empty fields: strv_split drops them. */
		for (char *p = auth, *c;; p = c + 1) {
			c = strchr(p, ':');
			strv_push_owned(&a, c ? xstrndup(p, (size_t)(c - p)) : xstrdup(p));
			if (!c)
				break;
		}
		free(auth);
		if (a.n != 2 && a.n != 4) {
			netroot_warn(w, xasprintf("iscsi:%s: the part before '@' is not USER:PASS[:RUSER:RPASS]", shown));
			strv_free(&a);
			return -EINVAL;
		}
		t->user = xstrdup(a.v[0]);
		t->password = xstrdup(a.v[1]);
		if (a.n == 4) {
			t->in_user = xstrdup(a.v[2]);
			t->in_password = xstrdup(a.v[3]);
		}
		strv_free(&a);
		s = at + 1;
	}
	t->server = netroot_take_server(&s, &bad);
	if (bad || !t->server) {
		netroot_warn(w, xasprintf("iscsi:%s: \"%s\" is not SERVER:[PROTO]:[PORT]:[LUN]:TARGET", shown, s));
		return -EINVAL;
	}
	if (!*t->server) {
		free(t->server);
		t->server = NULL;
	}
	for (int i = 0; i < 3; i++) {
		const char *c = strchr(s, ':');
		if (!c) {
			netroot_warn(w, xasprintf("iscsi:%s: \"%s\" is not [PROTO]:[PORT]:[LUN]:TARGET", shown, s));
			return -EINVAL;
		}
		f[i] = s;
		flen[i] = (size_t)(c - s);
		s = c + 1;
	}
	if (flen[0] && !(flen[0] == 1 && f[0][0] == '6')) {
		netroot_warn(w, xasprintf("iscsi:%s: protocol \"%.*s\" is not 6 (TCP)", shown, (int)flen[0], f[0]));
		return -EINVAL;
	}
	if (flen[1]) {
		if ((v = netroot_small_number(f[1], flen[1], 1, 65535)) < 0) {
			netroot_warn(w, xasprintf("iscsi:%s: \"%.*s\" is not a port", shown, (int)flen[1], f[1]));
			return -EINVAL;
		}
		t->port = (unsigned)v;
	}
	if (flen[2]) {
		if ((v = netroot_small_number(f[2], flen[2], 0, 16383)) < 0) {
			netroot_warn(w, xasprintf("iscsi:%s: \"%.*s\" is not a LUN (0 to 16383)", shown, (int)flen[2], f[2]));
			return -EINVAL;
		}
		t->lun = (unsigned)v;
	}
	if (!*s) {
		netroot_warn(w, xasprintf("iscsi:%s: no target name", shown));
		return -EINVAL;
	}
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f) {
			netroot_warn(w, xasprintf("iscsi:%s: target name \"%s\" has a space or control character", shown, s));
			return -EINVAL;
		}
	t->name = xstrdup(s);
	return 0;
}
/* The part of an iSCSI spec (after "iscsi:") before its last '@', which
 * holds the CHAP users and passwords, as "(secret)", as the iSCSI job
 * shows iscsistart's -w/-W: warnings and the log quote specs, and the
 * log is kept on the real system. The last '@', so that a password
 * holding one is masked whole. */
static char *iscsi_shown(const char *spec, size_t len)
{
	const char *at = NULL;

	for (size_t i = 0; i < len; i++)
		if (spec[i] == '@')
			at = spec + i;
	if (!at)
		return xstrndup(spec, len);
	return xasprintf("(secret)%.*s", (int)(len - (size_t)(at - spec)), at);
}

int iscsi_parse(const char *spec, struct iscsi_root *r, struct strv *w)
{
	char *shown = iscsi_shown(spec, strlen(spec));
	int e = iscsi_parse_shown(spec, shown, r, w);

	free(shown);
	return e;
}

char *netroot_shown(const char *text)
{
	static const char *const keys[] = { "rd.iscsi.password=", "rd.iscsi.in.password=" };
	struct buf b = { 0 };
	const char *p = text;

	while (*p) {
		/* a word as cmdline_parse reads it: a blank inside quotes
		 * does not end it, and a quote may open it, so that
		 * rd.iscsi.password="a b" is masked whole */
		size_t word = 0, quote = *p == '"';
		const char *iscsi = NULL;
		bool done = false, in_quote = false;

		for (; p[word] && (in_quote || !isspace((unsigned char)p[word])); word++)
			if (p[word] == '"')
				in_quote = !in_quote;
		for (size_t i = 0; i < ARRAY_SIZE(keys) && !done; i++)
			if (str_has_prefix(p + quote, keys[i])) {
				buf_printf(&b, "%.*s%s(secret)", (int)quote, p, keys[i]);
				done = true;
			}
		/* root=iscsi:…, netroot=iscsi:…, or the spec alone */
		if (!done && (iscsi = memmem(p, word, "iscsi:", 6))) {
			size_t head = (size_t)(iscsi - p) + 6;
			char *m = iscsi_shown(p + head, word - head);
			buf_append(&b, p, head);
			buf_append(&b, m, strlen(m));
			free(m);
			done = true;
		}
		if (!done)
			buf_append(&b, p, word);
		p += word;
		if (*p) {
			buf_append(&b, p, 1);
			p++;
		}
	}
	buf_append(&b, "", 1);
	return b.p;
}


static void nbd_root_free(struct nbd_root *r)
{
	free(r->server);
	free(r->export);
	free(r->fstype);
	free(r->rootflags);
	free(r->nbdopts);
	memset(r, 0, sizeof(*r));
}

/* SERVER:PORT[/EXPORT][:FSTYPE[:ROOTFLAGS[:NBDOPTS]]]; a non-numeric
 * PORT field is an export name on the default port. */
int nbd_parse(const char *spec, struct nbd_root *r, struct strv *w)
{
	const char *s = spec, *end, *slash;
	char *fields[3] = { NULL, NULL, NULL };
	bool bad;
	long v;

	memset(r, 0, sizeof(*r));
	r->port = 10809;
	r->server = netroot_take_server(&s, &bad);
	if (bad || !r->server || !*r->server) {
		netroot_warn(w, xasprintf("nbd:%s: is not SERVER:PORT[/EXPORT]", spec));
		nbd_root_free(r);
		return -EINVAL;
	}
	end = strchr(s, ':');
	if (!end)
		end = s + strlen(s);
	slash = memchr(s, '/', (size_t)(end - s));
	size_t plen = (size_t)((slash ? slash : end) - s);
	if (netroot_all_digits(s, plen)) {
		if ((v = netroot_small_number(s, plen, 1, 65535)) < 0) {
			netroot_warn(w, xasprintf("nbd:%s: \"%.*s\" is not a port", spec, (int)plen, s));
			nbd_root_free(r);
			return -EINVAL;
		}
		r->port = (unsigned)v;
		if (slash && end > slash + 1)
			r->export = xstrndup(slash + 1, (size_t)(end - slash - 1));
	} else if (end > s) {
		r->export = xstrndup(s, (size_t)(end - s));
	}
	for (int i = 0; i < 3 && *end == ':'; i++) {
		s = end + 1;
		end = i < 2 ? strchr(s, ':') : NULL;
		if (!end)
			end = s + strlen(s);
		if (end > s)
			fields[i] = xstrndup(s, (size_t)(end - s));
	}
	r->fstype = fields[0];
	r->rootflags = fields[1];
	r->nbdopts = fields[2];
	return 0;
}

int netroot_parse(const char *spec, struct netroot *r, struct strv *w)
{
	memset(r, 0, sizeof(*r));
	if (strcmp(spec, "dhcp") == 0 || strcmp(spec, "dhcp6") == 0) {
		r->kind = NETROOT_DHCP;
		return 0;
	}
	if (str_has_prefix(spec, "nfs:") || str_has_prefix(spec, "nfs4:")) {
		bool v4 = spec[3] == '4';
		r->kind = NETROOT_NFS;
		return nfs_dracut_parse(spec + (v4 ? 5 : 4), spec, v4 ? 4 : 0, &r->nfs, w);
	}
	if (str_has_prefix(spec, "iscsi:")) {
		r->kind = NETROOT_ISCSI;
		int e = iscsi_parse(spec + 6, &r->iscsi, w);
		if (e < 0) {
			iscsi_root_free(&r->iscsi);
			r->kind = NETROOT_NONE;
		}
		return e;
	}
	if (str_has_prefix(spec, "nbd:")) {
		r->kind = NETROOT_NBD;
		return nbd_parse(spec + 4, &r->nbd, w);
	}
	netroot_warn(w, xasprintf("\"%s\" is not a network root (nfs:, nfs4:, iscsi:, nbd: or dhcp)", spec));
	return -EINVAL;
}

int netroot_from_root_path(const char *root_path, struct netroot *r, struct strv *w)
{
	if (str_has_prefix(root_path, "nfs:") || str_has_prefix(root_path, "nfs4:") ||
	    str_has_prefix(root_path, "iscsi:") || str_has_prefix(root_path, "nbd:"))
		return netroot_parse(root_path, r, w);
	memset(r, 0, sizeof(*r));
	r->kind = NETROOT_NFS;
	return nfs_kernel_parse(NULL, root_path, &r->nfs, w);
}

static const char *last_val(const struct cmdline *c, const char *key)
{
	const struct cmdline_param *p = cmdline_last(c, key);
	return p && p->val ? p->val : NULL;
}

static void fill(char **dst, const char *val)
{
	if (val && !*dst)
		*dst = xstrdup(val);
}

/* The netroot=iscsi: words besides the one chosen: more portals of the
 * root's LUN, as dracut logs in to each for multipath. A bad one is
 * warned about and skipped (the chosen one still boots). */
static void iscsi_more_paths(const struct cmdline *c, const char *chosen, struct netroot *r,
			     struct strv *w)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct cmdline_param *p = &c->p[i];
		struct iscsi_root one = { 0 };
		if (strcmp(p->key, "netroot") || !p->val || p->val == chosen ||
		    !str_has_prefix(p->val, "iscsi:"))
			continue;
		if (iscsi_parse(p->val + 6, &one, w) < 0) {
			char *shown = netroot_shown(p->val);
			strv_push_owned(w, xasprintf("ignoring netroot=%s: not an iSCSI path uniramfs "
						     "understands", shown));
			free(shown);
			iscsi_root_free(&one);
			continue;
		}
		r->iscsi.more = xrealloc(r->iscsi.more, (r->iscsi.nmore + 1) * sizeof(*r->iscsi.more));
		r->iscsi.more[r->iscsi.nmore++] = one.target;
		memset(&one.target, 0, sizeof(one.target));
		iscsi_root_free(&one);
	}
}

/* rd.iscsi.*: settings for a netroot=iscsi: without them, or an iSCSI
 * root on their own when rd.iscsi.target.name is given. */
static int iscsi_from_cmdline(const struct cmdline *c, struct netroot *r, struct strv *w)
{
	const char *name = last_val(c, "rd.iscsi.target.name"), *v;
	struct iscsi_root *i = &r->iscsi;
	bool fw = false;

	/* each on its own, as a flag or a boolean: rd.iscsi.ibft=0 says no */
	static const char *const keys[] = { "rd.iscsi.firmware", "rd.iscsi.ibft" };
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		if (!cmdline_has(c, keys[k]))
			continue;
		fw = false;
		v = last_val(c, keys[k]);
		if (!v || (cmdline_parse_bool(v, &fw) == 0 && fw)) {
			i->firmware = true;
			i->ibft_net |= k == 1; /* dracut's rd.iscsi.ibft: its NIC too */
		}
	}
	if (r->kind == NETROOT_NONE && (name || i->firmware)) {
		r->kind = NETROOT_ISCSI;
		i->target.port = 3260;
	}
	/* a DHCP root-path may name an iSCSI disk: our name for its login */
	if (r->kind == NETROOT_ISCSI || r->kind == NETROOT_DHCP)
		fill(&i->initiator, last_val(c, "rd.iscsi.initiator"));
	if (r->kind != NETROOT_ISCSI)
		return 0;
	/* dracut-ng's rd.iscsi.waitnet is off unless given (a flag is on);
	 * rd.iscsi.testroute has nothing to change here (docs/cmdline.md),
	 * but a value that is not a boolean is said */
	static const char *const waits[] = { "rd.iscsi.waitnet", "rd.iscsi.testroute" };
	for (size_t k = 0; k < ARRAY_SIZE(waits); k++) {
		bool on = true;
		if (!cmdline_has(c, waits[k]))
			continue;
		v = last_val(c, waits[k]);
		if (v && cmdline_parse_bool(v, &on) < 0) {
			netroot_warn(w, xasprintf("ignoring %s=%s: not a boolean (use 1 or 0)", waits[k], v));
			continue;
		}
		if (k == 0)
			i->waitnet = on;
	}
	fill(&i->target.name, name);
	fill(&i->target.server, last_val(c, "rd.iscsi.target.ip"));
	fill(&i->target.user, last_val(c, "rd.iscsi.username"));
	fill(&i->target.password, last_val(c, "rd.iscsi.password"));
	fill(&i->target.in_user, last_val(c, "rd.iscsi.in.username"));
	fill(&i->target.in_password, last_val(c, "rd.iscsi.in.password"));
	if ((v = last_val(c, "rd.iscsi.target.port"))) {
		long port = netroot_small_number(v, strlen(v), 1, 65535);
		if (port < 0) {
			netroot_warn(w, xasprintf("rd.iscsi.target.port=%s: \"%s\" is not a port", v, v));
			return -EINVAL;
		}
		i->target.port = (unsigned)port;
	}
	return 0;
}

/* root=ADDR:/PATH, the kernel's legacy NFS root that dracut takes as
 * nfs:ADDR:/PATH: an address literal, then an absolute path. */
static bool legacy_nfs(const char *root)
{
	const char *s = root;
	struct net_addr a;
	bool bad, ok;
	char *server;

	if (!((*s >= '0' && *s <= '9') || *s == '['))
		return false;
	server = netroot_take_server(&s, &bad);
	ok = server && *s == '/' && net_parse_addr(server, &a) == 0;
	free(server);
	return ok;
}

int netroot_from_cmdline(const struct cmdline *c, struct netroot *r, struct strv *w)
{
	const char *netroot = last_val(c, "netroot"), *root = last_val(c, "root");
	const char *nfsroot = last_val(c, "nfsroot"), *nbdroot = last_val(c, "nbdroot");
	const char *boot = last_val(c, "boot"), *fetch = last_val(c, "fetch");
	int ret = 0;

	memset(r, 0, sizeof(*r));
	/* Debian live-boot's boot=live fetch=URL: the image over HTTP; live-boot
	 * reads no root= (core/options_live.c) */
	if (boot && !strcmp(boot, "live") && fetch)
		root = fetch;
	if (!netroot && root && netroot_http_parse(root, r, w, &ret)) {
		/* the URL names the root; nothing below applies */
	} else if (netroot) {
		ret = netroot_parse(netroot, r, w);
	} else if (root && (str_has_prefix(root, "nfs:") || str_has_prefix(root, "nfs4:") ||
			    str_has_prefix(root, "iscsi:") || str_has_prefix(root, "nbd:") || strcmp(root, "dhcp") == 0 ||
			    strcmp(root, "dhcp6") == 0)) {
		ret = netroot_parse(root, r, w);
	} else if (root && strcmp(root, "ibft") == 0) {
		/* the firmware's table names it all: NIC, target, LUN */
		r->kind = NETROOT_ISCSI;
		r->iscsi.firmware = r->iscsi.ibft_net = r->iscsi.ibft_root = true;
		r->iscsi.target.port = 3260;
	} else if (root && legacy_nfs(root)) {
		r->kind = NETROOT_NFS;
		ret = nfs_dracut_parse(root, root, 0, &r->nfs, w);
	} else if (root && strcmp(root, "/dev/nfs") == 0) {
		r->kind = NETROOT_NFS;
		ret = nfs_kernel_parse(nfsroot, NULL, &r->nfs, w);
	} else if (nbdroot) {
		r->kind = NETROOT_NBD;
		ret = nbd_parse(nbdroot, &r->nbd, w);
	}
	if (ret < 0) {
		netroot_free(r);
		return ret;
	}
	if (netroot && r->kind == NETROOT_ISCSI)
		iscsi_more_paths(c, netroot, r, w);
	if ((ret = iscsi_from_cmdline(c, r, w)) < 0)
		return ret;
	if (r->kind == NETROOT_NONE && !r->iscsi.firmware && nvmf_from_cmdline(c, &r->nvmf, w) > 0)
		r->kind = NETROOT_NVMF;
	return 0;
}

void netroot_free(struct netroot *r)
{
	nfs_root_free(&r->nfs);
	iscsi_root_free(&r->iscsi);
	nbd_root_free(&r->nbd);
	nvmf_root_free(&r->nvmf);
	free(r->http.url);
	free(r->http.server);
	r->http.url = r->http.server = NULL;
	r->kind = NETROOT_NONE;
}

enum netroot_use netroot_use(const struct netroot *r)
{
	switch (r->kind) {
	case NETROOT_NFS:
	case NETROOT_DHCP:
	case NETROOT_HTTP:
		return NETROOT_USE_MOUNT;
	case NETROOT_ISCSI:
	case NETROOT_NBD:
	case NETROOT_NVMF:
		return NETROOT_USE_DEVICE;
	default:
		return r->iscsi.firmware ? NETROOT_USE_DEVICE : NETROOT_USE_NONE;
	}
}

char *netroot_root_spec(const struct netroot *r, const char *root, const char **fstype,
			const char **rootflags)
{
	/* no root=, or one that names nothing but "the network's root"
	 * (dracut's root=/dev/root; root=dhcp once DHCP named a disk): the
	 * filesystem on the network disk is the root, as in dracut */
	bool own = !root || !strcmp(root, "/dev/root") || !strcmp(root, "dhcp") ||
		   !strcmp(root, "dhcp6") || !strcmp(root, "ibft");

	*fstype = *rootflags = NULL;
	if (r->kind == NETROOT_NBD && (own || str_has_prefix(root, "nbd:"))) {
		*fstype = r->nbd.fstype && *r->nbd.fstype ? r->nbd.fstype : NULL;
		*rootflags = r->nbd.rootflags && *r->nbd.rootflags ? r->nbd.rootflags : NULL;
		return xstrdup(NETROOT_NBD_DEVICE);
	}
	/* udev's path_id names an iSCSI LUN's disk so, the address as the
	 * session's connection has it (the init's /dev/disk/by-path links
	 * are udev's names: dev/persistname.c) */
	if (r->kind == NETROOT_ISCSI && (own || str_has_prefix(root, "iscsi:")) && r->iscsi.target.name &&
	    r->iscsi.target.server) {
		const struct iscsi_target *t = &r->iscsi.target;
		if (t->lun < 256)
			return xasprintf("/dev/disk/by-path/ip-%s:%u-iscsi-%s-lun-%u", t->server,
					 t->port, t->name, t->lun);
		return xasprintf("/dev/disk/by-path/ip-%s:%u-iscsi-%s-lun-0x%04x%04x00000000",
				 t->server, t->port, t->name, t->lun & 0xffff, (t->lun >> 16) & 0xffff);
	}
	return NULL;
}
