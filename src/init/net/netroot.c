// SPDX-License-Identifier: GPL-2.0-or-later
/* Network root specs. Two families of syntax: the kernel's
 * nfsroot=[SERVER:]PATH[,OPTS] (fs/nfs/nfsroot.c, also what a DHCP
 * root-path holds when it names no type), and dracut's TYPE:… specs in
 * root= and netroot= (its nfs, iscsi and nbd modules). */
#include "init/net/netroot.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static void warnf(struct strv *w, char *msg)
{
	strv_push_owned(w, msg);
}

/* Take "[v6]" or up to the first ':' off *s as the server. Returns the
 * server (owned), or NULL with *s unchanged when there is no ':'. */
static char *take_server(const char **s, bool *bad_bracket)
{
	const char *p = *s, *end;
	char *server;

	*bad_bracket = false;
	if (*p == '[') {
		end = strchr(p, ']');
		if (!end || end[1] != ':') {
			*bad_bracket = true;
			return NULL;
		}
		server = xstrndup(p + 1, (size_t)(end - p - 1));
		*s = end + 2;
		return server;
	}
	end = strchr(p, ':');
	if (!end)
		return NULL;
	server = xstrndup(p, (size_t)(end - p));
	*s = end + 1;
	return server;
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* A decimal number of at most 5 digits in [min, max], or -1. */
static long small_number(const char *s, size_t n, long min, long max)
{
	long v = 0;

	if (!all_digits(s, n) || n > 5)
		return -1;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v >= min && v <= max ? v : -1;
}

/* vers=N[.M], nfsvers=N[.M], v2, v3, v4 … in an option list: the
 * major version (0: none) and the minor (-1: none). The last one wins,
 * as in the kernel's option parser. */
static void options_vers(const char *opts, int *major, int *minor)
{
	struct strv w = { 0 };

	*major = 0;
	*minor = -1;
	if (!opts)
		return;
	strv_split(&w, opts, ",");
	for (size_t i = 0; i < w.n; i++) {
		const char *o = w.v[i];
		if (str_has_prefix(o, "vers="))
			o += 5;
		else if (str_has_prefix(o, "nfsvers="))
			o += 8;
		else if (o[0] == 'v' && o[1] >= '2' && o[1] <= '4' && !o[2])
			o += 1;
		else
			continue;
		if (o[0] < '2' || o[0] > '4')
			continue;
		if (!o[1]) {
			*major = o[0] - '0';
			*minor = -1;
		} else if (o[0] == '4' && o[1] == '.' && o[2] >= '0' && o[2] <= '2' && !o[3]) {
			*major = 4;
			*minor = o[2] - '0';
		}
	}
	strv_free(&w);
}

static void nfs_root_free(struct nfs_root *r)
{
	free(r->server);
	free(r->path);
	free(r->options);
	memset(r, 0, sizeof(*r));
}

/* dracut: [SERVER:]PATH[:OPTS] after "nfs:" or "nfs4:". */
static int nfs_dracut_parse(const char *spec, const char *whole, int vers, struct nfs_root *r, struct strv *w)
{
	const char *s = spec, *colon;
	bool bad;

	memset(r, 0, sizeof(*r));
	if (*s != '/') {
		r->server = take_server(&s, &bad);
		if (bad) {
			warnf(w, xasprintf("%s: \"%s\" has an unclosed '[' or no ':' after ']'", whole, spec));
			return -1;
		}
		if (r->server && !*r->server) {
			free(r->server);
			r->server = NULL;
		}
	}
	colon = strchr(s, ':');
	r->path = colon ? xstrndup(s, (size_t)(colon - s)) : xstrdup(s);
	if (colon && colon[1])
		r->options = xstrdup(colon + 1);
	if (r->path[0] != '/') {
		warnf(w, xasprintf("%s: \"%s\" is not an absolute path", whole, r->path));
		nfs_root_free(r);
		return -1;
	}
	options_vers(r->options, &r->vers, &r->minor);
	if (vers && r->vers != 4) { /* nfs4: and a vers=3 option: nfs4: wins */
		r->vers = vers;
		r->minor = -1;
	}
	return 0;
}

/* The kernel's root_nfs_parse_options: the first comma field is the
 * path unless empty or "default", the rest are options appended. */
static void kernel_layer(char *text, char **server, char **path, struct buf *opts)
{
	char *comma = strchr(text, ','), *p = text;
	const char *q = text;
	bool bad;

	if (comma)
		*comma = '\0';
	/* An address before the path: "1.2.3.4:/x" or "[v6]:/x". */
	if ((*p >= '0' && *p <= '9') || *p == '[') {
		char *srv = take_server(&q, &bad);
		struct net_addr a;
		if (srv && net_parse_addr(srv, &a) == 0) {
			free(*server);
			*server = srv;
			p = (char *)q;
		} else {
			free(srv);
		}
	}
	if (*p && strcmp(p, "default") != 0) {
		free(*path);
		*path = *p == '/' ? xstrdup(p) : xasprintf("/tftpboot/%s", p);
	}
	if (comma && comma[1]) {
		if (opts->len)
			buf_append(opts, ",", 1);
		buf_append(opts, comma + 1, strlen(comma + 1));
	}
}

int nfs_kernel_parse(const char *nfsroot, const char *dhcp_root_path, struct nfs_root *r, struct strv *w)
{
	struct buf opts = { 0 };
	char *t;

	(void)w;
	memset(r, 0, sizeof(*r));
	r->kernel_form = true;
	r->path = xstrdup("/tftpboot/%s");
	if (dhcp_root_path && *dhcp_root_path) {
		t = xstrdup(dhcp_root_path);
		kernel_layer(t, &r->server, &r->path, &opts);
		free(t);
	}
	if (nfsroot && *nfsroot) {
		t = xstrdup(nfsroot);
		kernel_layer(t, &r->server, &r->path, &opts);
		free(t);
	}
	if (opts.len) {
		buf_append(&opts, "", 1);
		r->options = opts.p;
	}
	options_vers(r->options, &r->vers, &r->minor);
	return 0;
}

int nfs_versions(const struct nfs_root *r, const char *vers[NFS_MAX_TRIES])
{
	static const char *const minors[] = { "4.0", "4.1", "4.2" };
	int n = 0;

	if (r->vers == 4 && r->minor >= 0) {
		vers[n++] = minors[r->minor];
		return n;
	}
	if (r->vers == 2 || r->vers == 3) {
		vers[n++] = r->vers == 2 ? "2" : "3";
		return n;
	}
	if (r->vers == 0 && r->kernel_form) { /* the kernel's default, v2 being gone */
		vers[n++] = "3";
		return n;
	}
	vers[n++] = "4.2";
	vers[n++] = "4.1";
	vers[n++] = "4.0";
	if (r->vers == 0)
		vers[n++] = "3";
	return n;
}

/* Replace each "%s" in path with the client address. */
static char *substitute_client(const char *path, const char *client)
{
	struct buf b = { 0 };

	for (const char *p = path; *p;) {
		const char *hit = strstr(p, "%s");
		size_t n = hit ? (size_t)(hit - p) : strlen(p);
		buf_append(&b, p, n);
		if (!hit)
			break;
		buf_append(&b, client, strlen(client));
		p = hit + 2;
	}
	buf_append(&b, "", 1);
	return b.p;
}

int nfs_mount_args(const struct nfs_root *r, const char *vers, const struct net_addr *server, const struct net_addr *client,
		   struct nfs_mount *m, struct strv *w)
{
	static const char *const known[] = { "2", "3", "4", "4.0", "4.1", "4.2" };
	int major = 0;
	char sbuf[NET_ADDR_TEXT], cbuf[NET_ADDR_TEXT], *path;
	struct net_addr srv;
	struct strv user = { 0 };
	struct buf d = { 0 };
	bool lock_said = false, addr_said = false, clientaddr_said = false;

	memset(m, 0, sizeof(*m));
	m->read_only = -1;
	if (r->server) {
		if (net_parse_addr(r->server, &srv) < 0) {
			warnf(w, xasprintf("nfs: server \"%s\" is not an IP address (the initramfs resolves no names)",
					   r->server));
			return -1;
		}
	} else if (server && server->family) {
		srv = *server;
	} else {
		strv_push(w, "nfs: no server: none in the root spec, none from DHCP or ip=");
		return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (strcmp(vers, known[i]) == 0)
			major = vers[0] - '0';
	if (!major) {
		warnf(w, xasprintf("nfs: version \"%s\" is not 2, 3, 4, 4.0, 4.1 or 4.2", vers));
		return -1;
	}
	net_addr_str(&srv, sbuf);
	net_addr_str(client, cbuf);
	if (strstr(r->path, "%s") && !client->family) {
		warnf(w, xasprintf("nfs: \"%s\" needs the client address for %%s, and there is none", r->path));
		return -1;
	}
	path = substitute_client(r->path, cbuf);
	m->source = srv.family == AF_INET6 ? xasprintf("[%s]:%s", sbuf, path) : xasprintf("%s:%s", sbuf, path);
	free(path);

	buf_printf(&d, "vers=%s", vers);
	if (r->kernel_form)
		buf_printf(&d, ",tcp,rsize=4096,wsize=4096");
	if (r->options)
		strv_split(&user, r->options, ",");
	for (size_t i = 0; i < user.n; i++) {
		const char *o = user.v[i];
		if (strcmp(o, "ro") == 0 || strcmp(o, "rw") == 0) {
			m->read_only = o[1] == 'o';
			continue;
		}
		/* The version is ours to set: the caller may be trying 4 then 3. */
		if (str_has_prefix(o, "vers=") || str_has_prefix(o, "nfsvers=") ||
		    (o[0] == 'v' && o[1] >= '2' && o[1] <= '4' && (o[2] == '\0' || o[2] == '.')))
			continue;
		if (strcmp(o, "lock") == 0 || strcmp(o, "nolock") == 0)
			lock_said = true;
		if (str_has_prefix(o, "addr="))
			addr_said = true;
		if (str_has_prefix(o, "clientaddr="))
			clientaddr_said = true;
		buf_printf(&d, ",%s", o);
	}
	strv_free(&user);
	/* No rpc.statd in the initramfs: NLM locking would hang the mount. */
	if (major < 4 && !lock_said)
		buf_printf(&d, ",nolock");
	if (!addr_said)
		buf_printf(&d, ",addr=%s", sbuf);
	/* NFSv4 wants the callback address; the kernel has no default. */
	if (major == 4 && !clientaddr_said && client->family)
		buf_printf(&d, ",clientaddr=%s", cbuf);
	buf_append(&d, "", 1);
	m->data = d.p;
	return 0;
}

void nfs_mount_free(struct nfs_mount *m)
{
	free(m->source);
	free(m->data);
	memset(m, 0, sizeof(*m));
}

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
	memset(r, 0, sizeof(*r));
}

int iscsi_parse(const char *spec, struct iscsi_root *r, struct strv *w)
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
			warnf(w, xasprintf("iscsi:%s: the part before '@' is not USER:PASS[:RUSER:RPASS]", spec));
			strv_free(&a);
			return -1;
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
	t->server = take_server(&s, &bad);
	if (bad || !t->server) {
		warnf(w, xasprintf("iscsi:%s: \"%s\" is not SERVER:[PROTO]:[PORT]:[LUN]:TARGET", spec, s));
		return -1;
	}
	if (!*t->server) {
		free(t->server);
		t->server = NULL;
	}
	for (int i = 0; i < 3; i++) {
		const char *c = strchr(s, ':');
		if (!c) {
			warnf(w, xasprintf("iscsi:%s: \"%s\" is not [PROTO]:[PORT]:[LUN]:TARGET", spec, s));
			return -1;
		}
		f[i] = s;
		flen[i] = (size_t)(c - s);
		s = c + 1;
	}
	if (flen[0] && !(flen[0] == 1 && f[0][0] == '6')) {
		warnf(w, xasprintf("iscsi:%s: protocol \"%.*s\" is not 6 (TCP)", spec, (int)flen[0], f[0]));
		return -1;
	}
	if (flen[1]) {
		if ((v = small_number(f[1], flen[1], 1, 65535)) < 0) {
			warnf(w, xasprintf("iscsi:%s: \"%.*s\" is not a port", spec, (int)flen[1], f[1]));
			return -1;
		}
		t->port = (unsigned)v;
	}
	if (flen[2]) {
		if ((v = small_number(f[2], flen[2], 0, 16383)) < 0) {
			warnf(w, xasprintf("iscsi:%s: \"%.*s\" is not a LUN (0 to 16383)", spec, (int)flen[2], f[2]));
			return -1;
		}
		t->lun = (unsigned)v;
	}
	if (!*s) {
		warnf(w, xasprintf("iscsi:%s: no target name", spec));
		return -1;
	}
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f) {
			warnf(w, xasprintf("iscsi:%s: target name \"%s\" has a space or control character", spec, s));
			return -1;
		}
	t->name = xstrdup(s);
	return 0;
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
	r->server = take_server(&s, &bad);
	if (bad || !r->server || !*r->server) {
		warnf(w, xasprintf("nbd:%s: is not SERVER:PORT[/EXPORT]", spec));
		nbd_root_free(r);
		return -1;
	}
	end = strchr(s, ':');
	if (!end)
		end = s + strlen(s);
	slash = memchr(s, '/', (size_t)(end - s));
	size_t plen = (size_t)((slash ? slash : end) - s);
	if (all_digits(s, plen)) {
		if ((v = small_number(s, plen, 1, 65535)) < 0) {
			warnf(w, xasprintf("nbd:%s: \"%.*s\" is not a port", spec, (int)plen, s));
			nbd_root_free(r);
			return -1;
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
		if (iscsi_parse(spec + 6, &r->iscsi, w) < 0) {
			iscsi_root_free(&r->iscsi);
			r->kind = NETROOT_NONE;
			return -1;
		}
		return 0;
	}
	if (str_has_prefix(spec, "nbd:")) {
		r->kind = NETROOT_NBD;
		return nbd_parse(spec + 4, &r->nbd, w);
	}
	warnf(w, xasprintf("\"%s\" is not a network root (nfs:, nfs4:, iscsi:, nbd: or dhcp)", spec));
	return -1;
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

/* rd.iscsi.*: settings for a netroot=iscsi: without them, or an iSCSI
 * root on their own when rd.iscsi.target.name is given. */
static int iscsi_from_cmdline(const struct cmdline *c, struct netroot *r, struct strv *w)
{
	const char *name = last_val(c, "rd.iscsi.target.name"), *v;
	struct iscsi_root *i = &r->iscsi;
	bool fw = false;

	if ((v = last_val(c, "rd.iscsi.firmware")) && cmdline_parse_bool(v, &fw) == 0 && fw)
		i->firmware = true;
	if (cmdline_has(c, "rd.iscsi.ibft") || (cmdline_has(c, "rd.iscsi.firmware") && !last_val(c, "rd.iscsi.firmware")))
		i->firmware = true;
	if (r->kind == NETROOT_NONE && (name || i->firmware)) {
		r->kind = NETROOT_ISCSI;
		i->target.port = 3260;
	}
	if (r->kind != NETROOT_ISCSI)
		return 0;
	fill(&i->initiator, last_val(c, "rd.iscsi.initiator"));
	fill(&i->target.name, name);
	fill(&i->target.server, last_val(c, "rd.iscsi.target.ip"));
	fill(&i->target.user, last_val(c, "rd.iscsi.username"));
	fill(&i->target.password, last_val(c, "rd.iscsi.password"));
	fill(&i->target.in_user, last_val(c, "rd.iscsi.in.username"));
	fill(&i->target.in_password, last_val(c, "rd.iscsi.in.password"));
	if ((v = last_val(c, "rd.iscsi.target.port"))) {
		long port = small_number(v, strlen(v), 1, 65535);
		if (port < 0) {
			warnf(w, xasprintf("rd.iscsi.target.port=%s: \"%s\" is not a port", v, v));
			return -1;
		}
		i->target.port = (unsigned)port;
	}
	return 0;
}

int netroot_from_cmdline(const struct cmdline *c, struct netroot *r, struct strv *w)
{
	const char *netroot = last_val(c, "netroot"), *root = last_val(c, "root");
	const char *nfsroot = last_val(c, "nfsroot"), *nbdroot = last_val(c, "nbdroot");
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (netroot) {
		ret = netroot_parse(netroot, r, w);
	} else if (root && (str_has_prefix(root, "nfs:") || str_has_prefix(root, "nfs4:") ||
			    str_has_prefix(root, "iscsi:") || str_has_prefix(root, "nbd:") || strcmp(root, "dhcp") == 0 ||
			    strcmp(root, "dhcp6") == 0)) {
		ret = netroot_parse(root, r, w);
	} else if (root && strcmp(root, "/dev/nfs") == 0) {
		r->kind = NETROOT_NFS;
		ret = nfs_kernel_parse(nfsroot, NULL, &r->nfs, w);
	} else if (nbdroot) {
		r->kind = NETROOT_NBD;
		ret = nbd_parse(nbdroot, &r->nbd, w);
	}
	if (ret < 0) {
		netroot_free(r);
		return -1;
	}
	return iscsi_from_cmdline(c, r, w);
}

void netroot_free(struct netroot *r)
{
	nfs_root_free(&r->nfs);
	iscsi_root_free(&r->iscsi);
	nbd_root_free(&r->nbd);
	r->kind = NETROOT_NONE;
}
