// SPDX-License-Identifier: GPL-2.0-or-later
/* NFS roots: the kernel's nfsroot=[SERVER:]PATH[,OPTS] (fs/nfs/nfsroot.c,
 * also a DHCP root-path naming no type) and dracut's nfs:/nfs4: specs,
 * the versions to try, and the mount(2) data for each. */
#include "init/net/netroot.h"
#include "init/net/netroot_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

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

void nfs_root_free(struct nfs_root *r)
{
	free(r->server);
	free(r->path);
	free(r->options);
	memset(r, 0, sizeof(*r));
}

/* dracut: [SERVER:]PATH[:OPTS] after "nfs:" or "nfs4:". */
int nfs_dracut_parse(const char *spec, const char *whole, int vers, struct nfs_root *r, struct strv *w)
{
	const char *s = spec, *colon;
	char *comma;
	bool bad;

	memset(r, 0, sizeof(*r));
	if (*s != '/') {
		r->server = netroot_take_server(&s, &bad);
		if (bad) {
			netroot_warn(w, xasprintf("%s: \"%s\" has an unclosed '[' or no ':' after ']'", whole, spec));
			return -EINVAL;
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
	/* PATH,OPTS, the kernel's way of giving options, is also what dracut
	 * takes there (TEST-60's root-paths): the path ends at the comma,
	 * and its options come before any after a ':'. */
	comma = strchr(r->path, ',');
	if (comma && comma[1]) {
		char *both = r->options ? xasprintf("%s,%s", comma + 1, r->options) : xstrdup(comma + 1);
		free(r->options);
		r->options = both;
	}
	if (comma)
		*comma = '\0';
	if (r->path[0] != '/') {
		netroot_warn(w, xasprintf("%s: \"%s\" is not an absolute path", whole, r->path));
		nfs_root_free(r);
		return -EINVAL;
	}
	options_vers(r->options, &r->vers, &r->minor);
	if (vers && r->vers != 4) { /* nfs4: and a vers=3 option: nfs4: wins */
		r->vers = vers;
		r->minor = -1;
	}
	return 0;
}

/* Options that say where the server is or how it is reached. A DHCP
 * root-path may not set them over an administrator's nfsroot=: a rogue
 * DHCP server would otherwise send the mount to itself (issue 24). */
static bool redirects(const char *o)
{
	static const char *const keys[] = { "addr", "port", "mountaddr", "mountport", "proto" };
	size_t n = strcspn(o, "=");

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (n == strlen(keys[i]) && strncasecmp(o, keys[i], n) == 0)
			return true;
	return false;
}

/* Append the comma-separated options of text to opts; those that
 * redirect the mount are dropped with a warning when guarded (DHCP's
 * text under an administrator's nfsroot=). */
static void add_options(struct buf *opts, const char *text, const char *guarded, struct strv *w)
{
	struct strv o = { 0 };

	strv_split(&o, text, ",");
	for (size_t i = 0; i < o.n; i++) {
		if (guarded && redirects(o.v[i])) {
			netroot_warn(w, xasprintf("root-path \"%s\" from DHCP: \"%s\" ignored: "
						  "nfsroot= names the server",
						  guarded, o.v[i]));
			continue;
		}
		if (opts->len)
			buf_append(opts, ",", 1);
		buf_append(opts, o.v[i], strlen(o.v[i]));
	}
	strv_free(&o);
}

/* The kernel's root_nfs_parse_options: the first comma field is the
 * path unless empty or "default", the rest are options appended.
 * guarded: the whole DHCP text when an administrator's nfsroot= comes
 * over it (for the warnings), else NULL. */
static void kernel_layer(char *text, char **server, char **path, struct buf *opts, const char *guarded,
			 struct strv *w)
{
	char *comma = strchr(text, ','), *p = text;
	const char *q = text;
	bool bad;

	if (comma)
		*comma = '\0';
	/* An address before the path: "1.2.3.4:/x" or "[v6]:/x". */
	if ((*p >= '0' && *p <= '9') || *p == '[') {
		char *srv = netroot_take_server(&q, &bad);
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
	if (comma && comma[1])
		add_options(opts, comma + 1, guarded, w);
}

int nfs_kernel_parse(const char *nfsroot, const char *dhcp_root_path, struct nfs_root *r, struct strv *w)
{
	struct buf opts = { 0 };
	bool named = nfsroot && *nfsroot;
	char *t;

	memset(r, 0, sizeof(*r));
	r->kernel_form = true;
	r->path = xstrdup("/tftpboot/%s");
	if (dhcp_root_path && *dhcp_root_path) {
		t = xstrdup(dhcp_root_path);
		kernel_layer(t, &r->server, &r->path, &opts, named ? dhcp_root_path : NULL, w);
		free(t);
	}
	if (named) {
		t = xstrdup(nfsroot);
		kernel_layer(t, &r->server, &r->path, &opts, NULL, w);
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
	bool lock_said = false, clientaddr_said = false;

	memset(m, 0, sizeof(*m));
	m->read_only = -1;
	if (r->server) {
		if (net_parse_addr(r->server, &srv) < 0) {
			netroot_warn(w, xasprintf("nfs: server \"%s\" is not an IP address (the initramfs resolves no names)",
					   r->server));
			return -EINVAL;
		}
	} else if (server && server->family) {
		srv = *server;
	} else {
		strv_push(w, "nfs: no server: none in the root spec, none from DHCP or ip=");
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (strcmp(vers, known[i]) == 0)
			major = vers[0] - '0';
	if (!major) {
		netroot_warn(w, xasprintf("nfs: version \"%s\" is not 2, 3, 4, 4.0, 4.1 or 4.2", vers));
		return -EINVAL;
	}
	net_addr_str(&srv, sbuf);
	net_addr_str(client, cbuf);
	if (strstr(r->path, "%s") && !client->family) {
		netroot_warn(w, xasprintf("nfs: \"%s\" needs the client address for %%s, and there is none", r->path));
		return -EINVAL;
	}
	path = substitute_client(r->path, cbuf);
	m->source = srv.family == AF_INET6 ? xasprintf("[%s]:%s", sbuf, path) : xasprintf("%s:%s", sbuf, path);
	free(path);

	/* The kernel's nfsroot also sets rsize=4096,wsize=4096: not here.
	 * 4 KiB transfers cripple a root's throughput; the sizes are left to
	 * the server to negotiate, as dracut and mount.nfs leave them. */
	buf_printf(&d, "vers=%s", vers);
	if (r->kernel_form)
		buf_printf(&d, ",tcp");
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
		/* The server's address is ours to set, last (below), as the
		 * kernel's nfsroot appends it: nothing may send the mount to
		 * another host than the one the spec names. */
		if (str_has_prefix(o, "addr="))
			continue;
		if (str_has_prefix(o, "clientaddr="))
			clientaddr_said = true;
		buf_printf(&d, ",%s", o);
	}
	strv_free(&user);
	/* No rpc.statd in the initramfs: NLM locking would hang the mount. */
	if (major < 4 && !lock_said)
		buf_printf(&d, ",nolock");
	/* NFSv4 wants the callback address; the kernel has no default. */
	if (major == 4 && !clientaddr_said && client->family)
		buf_printf(&d, ",clientaddr=%s", cbuf);
	buf_printf(&d, ",addr=%s", sbuf);
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
