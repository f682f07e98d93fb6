// SPDX-License-Identifier: GPL-2.0-or-later
/* NVMe over TCP roots: dracut's rd.nvmf.* words (its nvmf module,
 * dracut.cmdline(7)), the kernel's /dev/nvme-fabrics options string
 * (drivers/nvme/host/fabrics.c) and its answer, and the discovery log
 * page of the NVMe-oF specification. Everything here is text from the
 * command line or bytes from the network: each value is checked before
 * it goes into an options string, where a ',' would start a new option. */
#include "init/net/nvmf.h"
#include "init/net/netaddr.h"
#include "init/net/netroot_priv.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void nvmf_root_free(struct nvmf_root *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->t[i].traddr);
		free(r->t[i].host_traddr);
		free(r->t[i].nqn);
	}
	free(r->t);
	free(r->hostnqn);
	free(r->hostid);
	memset(r, 0, sizeof(*r));
}

/* An address literal, as the kernel's nvme-tcp takes it (it resolves
 * no names): its canonical text, or NULL. */
static char *addr_text(const char *s, size_t n)
{
	char *copy = xstrndup(s, n), buf[NET_ADDR_TEXT];
	struct net_addr a;
	int e = net_parse_addr(copy, &a);

	free(copy);
	return e < 0 ? NULL : xstrdup(net_addr_str(&a, buf));
}

/* An NQN the options string can carry: 1..223 printable bytes, no ','
 * (the next option) and no white space. */
static bool nqn_ok(const char *s, size_t n)
{
	if (n == 0 || n > NVMF_NQN_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f || s[i] == ',')
			return false;
	return true;
}

/* 8-4-4-4-12 hex digits, what the kernel's uuid_parse takes. */
static bool uuid_ok(const char *s)
{
	static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	if (strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == '-' ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static long port_of(const char *s, size_t n)
{
	if (n == 0)
		return NVMF_PORT;
	return netroot_small_number(s, n, 1, 65535);
}

static void target_free(struct nvmf_target *t)
{
	free(t->traddr);
	free(t->host_traddr);
	free(t->nqn);
}

/* t into r, owned, unless r has it (discovery may list a subsystem
 * twice) or is full. */
static void add_target(struct nvmf_root *r, struct nvmf_target *t, struct strv *w)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct nvmf_target *o = &r->t[i];
		if (!strcmp(o->traddr, t->traddr) && o->port == t->port &&
		    !!o->nqn == !!t->nqn && (!o->nqn || !strcmp(o->nqn, t->nqn))) {
			target_free(t);
			return;
		}
	}
	if (r->n >= NVMF_MAX_TARGETS) {
		netroot_warn(w, xasprintf("NVMe over TCP: more than %d targets: %s:%u left out",
					  NVMF_MAX_TARGETS, t->traddr, t->port));
		target_free(t);
		return;
	}
	r->t = xrealloc(r->t, (r->n + 1) * sizeof(*r->t));
	r->t[r->n++] = *t;
}

void nvmf_add_target(struct nvmf_root *r, const struct nvmf_target *t, struct strv *w)
{
	struct nvmf_target c = { .traddr = xstrdup(t->traddr), .port = t->port,
				 .host_traddr = t->host_traddr ? xstrdup(t->host_traddr) : NULL,
				 .nqn = t->nqn ? xstrdup(t->nqn) : NULL };

	add_target(r, &c, w);
}

/* One rd.nvmf.discover= value: TRTYPE,TRADDR[,HOST_TRADDR[,TRSVCID]]
 * with empty fields allowed, as dracut splits it. */
static void discover_one(const char *key, const char *v, struct nvmf_root *r, struct strv *w)
{
	const char *f[4] = { NULL }, *p = v;
	size_t len[4] = { 0 }, n = 0;
	struct nvmf_target t = { 0 };
	long port;

	for (;;) {
		const char *c = strchr(p, ',');
		if (n == 4) {
			netroot_warn(w, xasprintf("%s=%s: more than TRTYPE,TRADDR,HOST_TRADDR,TRSVCID", key, v));
			return;
		}
		f[n] = p;
		len[n++] = c ? (size_t)(c - p) : strlen(p);
		if (!c)
			break;
		p = c + 1;
	}
	if (n < 2) {
		netroot_warn(w, xasprintf("%s=%s: not TRTYPE,TRADDR[,HOST_TRADDR[,TRSVCID]]", key, v));
		return;
	}
	if (len[0] != 3 || strncmp(f[0], "tcp", 3) != 0) {
		netroot_warn(w, xasprintf("%s=%s: transport \"%.*s\" is not tcp (the only one uniramfs "
					  "connects over)", key, v, (int)len[0], f[0]));
		return;
	}
	if (!len[1] || !(t.traddr = addr_text(f[1], len[1]))) {
		netroot_warn(w, xasprintf("%s=%s: \"%.*s\" is not an IP address", key, v, (int)len[1], f[1]));
		return;
	}
	if (n > 2 && len[2] && !(t.host_traddr = addr_text(f[2], len[2]))) {
		netroot_warn(w, xasprintf("%s=%s: host address \"%.*s\" is not an IP address", key, v,
					  (int)len[2], f[2]));
		free(t.traddr);
		return;
	}
	port = n > 3 ? port_of(f[3], len[3]) : NVMF_PORT;
	if (port < 0) {
		netroot_warn(w, xasprintf("%s=%s: \"%.*s\" is not a port", key, v, (int)len[3], f[3]));
		free(t.traddr);
		free(t.host_traddr);
		return;
	}
	t.port = (unsigned)port;
	add_target(r, &t, w);
}

/* The last value of rd.KEY= or else of KEY= (dracut's older spelling). */
static const char *word(const struct cmdline *c, const char *key)
{
	char rd[64];
	const struct cmdline_param *p;

	snprintf(rd, sizeof(rd), "rd.%s", key);
	if ((p = cmdline_last(c, rd)) && p->val)
		return p->val;
	p = cmdline_last(c, key);
	return p && p->val ? p->val : NULL;
}

/* rd.nvmf.traddr= [rd.nvmf.trsvcid=] [rd.nvmf.nqn=]: one subsystem, or
 * the discovery controller at that address when no NQN is said. */
static void direct_one(const struct cmdline *c, struct nvmf_root *r, struct strv *w)
{
	const char *addr = word(c, "nvmf.traddr"), *svc = word(c, "nvmf.trsvcid");
	const char *nqn = word(c, "nvmf.nqn");
	struct nvmf_target t = { 0 };
	long port;

	if (!addr) {
		if (svc || nqn)
			netroot_warn(w, xasprintf("rd.nvmf.%s=%s without rd.nvmf.traddr=: no NVMe over TCP target",
						  svc ? "trsvcid" : "nqn", svc ? svc : nqn));
		return;
	}
	if (!(t.traddr = addr_text(addr, strlen(addr)))) {
		netroot_warn(w, xasprintf("rd.nvmf.traddr=%s: \"%s\" is not an IP address", addr, addr));
		return;
	}
	port = svc ? port_of(svc, strlen(svc)) : NVMF_PORT;
	if (port < 0 || (svc && !*svc)) {
		netroot_warn(w, xasprintf("rd.nvmf.trsvcid=%s: \"%s\" is not a port", svc, svc));
		free(t.traddr);
		return;
	}
	t.port = (unsigned)port;
	if (nqn && !nqn_ok(nqn, strlen(nqn))) {
		netroot_warn(w, xasprintf("rd.nvmf.nqn=%s: not an NQN (1 to %d printable bytes, no ',')", nqn,
					  NVMF_NQN_MAX));
		free(t.traddr);
		return;
	}
	t.nqn = nqn ? xstrdup(nqn) : NULL;
	add_target(r, &t, w);
}

int nvmf_from_cmdline(const struct cmdline *c, struct nvmf_root *r, struct strv *w)
{
	const char *v;
	bool off = false;

	memset(r, 0, sizeof(*r));
	if (cmdline_has(c, "rd.nonvmf")) {
		v = cmdline_last(c, "rd.nonvmf")->val;
		off = !v || cmdline_parse_bool(v, &off) < 0 || off;
	}
	if (off)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct cmdline_param *p = &c->p[i];
		if ((!strcmp(p->key, "rd.nvmf.discover") || !strcmp(p->key, "nvmf.discover")) && p->val)
			discover_one(p->key, p->val, r, w);
	}
	direct_one(c, r, w);
	if (!r->n)
		return 0;
	if ((v = word(c, "nvmf.hostnqn"))) {
		if (nqn_ok(v, strlen(v)))
			r->hostnqn = xstrdup(v);
		else
			netroot_warn(w, xasprintf("rd.nvmf.hostnqn=%s: not an NQN (1 to %d printable bytes, "
						  "no ','): the kernel's own is used", v, NVMF_NQN_MAX));
	}
	if ((v = word(c, "nvmf.hostid"))) {
		if (uuid_ok(v))
			r->hostid = xstrdup(v);
		else
			netroot_warn(w, xasprintf("rd.nvmf.hostid=%s: not a UUID: the kernel's own is used", v));
	}
	return (int)r->n;
}

void nvmf_options(const struct nvmf_root *r, const struct nvmf_target *t, const char *nqn, struct buf *b)
{
	buf_printf(b, "nqn=%s,transport=tcp,traddr=%s,trsvcid=%u", nqn, t->traddr, t->port);
	if (t->host_traddr)
		buf_printf(b, ",host_traddr=%s", t->host_traddr);
	if (r->hostnqn)
		buf_printf(b, ",hostnqn=%s", r->hostnqn);
	if (r->hostid)
		buf_printf(b, ",hostid=%s", r->hostid);
}

int nvmf_reply_instance(const char *reply)
{
	long v = 0;
	size_t n;

	if (!str_has_prefix(reply, "instance="))
		return -EINVAL;
	reply += 9;
	n = strspn(reply, "0123456789");
	if (n == 0 || n > 6 || (reply[n] != ',' && reply[n] != '\n' && reply[n]))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (reply[i] - '0');
	return (int)v;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

long nvmf_disc_count(const uint8_t *page, size_t len, size_t max, struct strv *w)
{
	uint64_t numrec;

	if (len < NVMF_DISC_HDR) {
		netroot_warn(w, xasprintf("NVMe discovery log page: %zu bytes, shorter than its %d-byte header", len,
					  NVMF_DISC_HDR));
		return -EINVAL;
	}
	numrec = le64(page + 8);
	return numrec > max ? (long)max : (long)numrec;
}

/* A fixed-size text field of the log page: up to its first NUL, its
 * trailing spaces (the padding) off. */
static size_t field_len(const uint8_t *f, size_t size)
{
	const uint8_t *nul = memchr(f, '\0', size);
	size_t n = nul ? (size_t)(nul - f) : size;

	while (n && f[n - 1] == ' ')
		n--;
	return n;
}

static bool printable(const uint8_t *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (f[i] < ' ' || f[i] >= 0x7f)
			return false;
	return true;
}

enum { TRTYPE_TCP = 3, SUBTYPE_NVME = 2 };

int nvmf_disc_parse(const uint8_t *page, size_t len, const struct nvmf_target *from, struct nvmf_root *r,
		    struct strv *w)
{
	long count = nvmf_disc_count(page, len, NVMF_MAX_TARGETS, w);
	int listed = 0;

	for (long i = 0; i < count; i++) {
		const uint8_t *e = page + NVMF_DISC_HDR + (size_t)i * NVMF_DISC_ENTRY;
		size_t svc_n, nqn_n, addr_n;
		struct nvmf_target t = { 0 };
		long port;

		if ((size_t)(e - page) + NVMF_DISC_ENTRY > len) {
			netroot_warn(w, xasprintf("NVMe discovery log page from %s:%u: record %ld of %ld is cut short",
						  from->traddr, from->port, i + 1, count));
			break;
		}
		if (e[0] != TRTYPE_TCP || e[2] != SUBTYPE_NVME)
			continue;
		svc_n = field_len(e + 32, 32);
		nqn_n = field_len(e + 256, 256);
		addr_n = field_len(e + 512, 256);
		if (!printable(e + 32, svc_n) || !printable(e + 512, addr_n) || !nqn_ok((const char *)e + 256, nqn_n) ||
		    !(t.traddr = addr_text((const char *)e + 512, addr_n)) ||
		    (port = netroot_small_number((const char *)e + 32, svc_n, 1, 65535)) < 0) {
			netroot_warn(w, xasprintf("NVMe discovery log page from %s:%u: record %ld is not a TCP "
						  "address, port and NQN (\"%.*s\", \"%.*s\")",
						  from->traddr, from->port, i + 1,
						  (int)(printable(e + 512, addr_n) ? addr_n : 0), (const char *)e + 512,
						  (int)(printable(e + 32, svc_n) ? svc_n : 0), (const char *)e + 32));
			free(t.traddr);
			continue;
		}
		t.port = (unsigned)port;
		t.nqn = xstrndup((const char *)e + 256, nqn_n);
		t.host_traddr = from->host_traddr ? xstrdup(from->host_traddr) : NULL;
		add_target(r, &t, w);
		listed++;
	}
	return listed;
}
