// SPDX-License-Identifier: GPL-2.0-or-later
/* The sysops functions take no context pointer, so the fake keeps the
 * one live instance in a static: a test uses one fake at a time. */
#include <linux/blkpg.h>
#include <linux/kd.h>
#include <sys/ioctl.h>
#include <linux/btrfs.h>
#include <linux/dm-ioctl.h>
#include <linux/loop.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fake_ops.h"

static struct fake_ops *cur;

static const char *s_or_dash(const char *s)
{
	return s ? s : "-";
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		abort();
	va_end(ap);
	strv_push_owned(&cur->log, line);
}

/* 0, or the rule's -errno when a rule says this call fails. */
static int check_fail(const char *call, const char *n1, const char *n2, const char *n3)
{
	for (size_t i = 0; i < cur->nfails; i++) {
		struct fake_fail_rule *r = &cur->fails[i];
		if (strcmp(r->call, call) != 0)
			continue;
		if (strcmp(r->name, "*") == 0 || (n1 && strcmp(r->name, n1) == 0) ||
		    (n2 && strcmp(r->name, n2) == 0) || (n3 && strcmp(r->name, n3) == 0)) {
			/* a decoy: the code under test must take the returned
			 * code, never errno */
			errno = r->err == EBADF ? EPERM : EBADF;
			return -r->err;
		}
	}
	return 0;
}

char *fake_path(struct fake_ops *f, const char *p)
{
	return xasprintf("%s%s%s", f->root, p[0] == '/' ? "" : "/", p);
}

static char *op_path(const char *p)
{
	return fake_path(cur, p);
}

static int op_mount(const char *src, const char *target, const char *fstype,
		    unsigned long flags, const char *data)
{
	logf_("mount %s %s %s 0x%lx %s", s_or_dash(src), s_or_dash(target), s_or_dash(fstype),
	      flags, s_or_dash(data));
	return check_fail("mount", src, target, fstype);
}

static int op_umount(const char *target, int flags)
{
	logf_("umount %s 0x%x", target, (unsigned)flags);
	return check_fail("umount", target, NULL, NULL);
}

static int op_mkdir(const char *path, mode_t mode)
{
	logf_("mkdir %s 0%o", path, (unsigned)mode);
	int r = check_fail("mkdir", path, NULL, NULL);
	if (r < 0)
		return r;
	char *p = op_path(path);
	r = mkdir(p, mode) < 0 ? -errno : 0;
	free(p);
	return r;
}

static int op_symlink(const char *target, const char *linkpath)
{
	logf_("symlink %s %s", target, linkpath);
	int r = check_fail("symlink", linkpath, NULL, NULL);
	if (r < 0)
		return r;
	char *p = op_path(linkpath);
	r = symlink(target, p) < 0 ? -errno : 0;
	free(p);
	return r;
}

static int op_unlink(const char *path)
{
	logf_("unlink %s", path);
	int r = check_fail("unlink", path, NULL, NULL);
	if (r < 0)
		return r;
	char *p = op_path(path);
	r = unlink(p) < 0 ? -errno : 0;
	free(p);
	return r;
}

/* The console ioctls of stages/vconsole.c, the loop device's of
 * stages/squashmount.c and BLKPG's of stages/autooverlay.c, recorded;
 * they succeed (LOOP_CTL_GET_FREE gives loop0). */
static int op_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd;
	if (req == LOOP_CTL_GET_FREE) {
		logf_("ioctl LOOP_CTL_GET_FREE");
		return check_fail("ioctl", "LOOP_CTL_GET_FREE", NULL, NULL);
	} else if (req == LOOP_CONFIGURE) {
		const struct loop_config *c = arg;
		logf_("ioctl LOOP_CONFIGURE flags 0x%x", c->info.lo_flags);
		return check_fail("ioctl", "LOOP_CONFIGURE", NULL, NULL);
	} else if (req == KDSKBENT) {
		const struct kbentry *e = arg;
		logf_("ioctl KDSKBENT %u %u 0x%04x", e->kb_table, e->kb_index, e->kb_value);
	} else if (req == KDFONTOP) {
		const struct console_font_op *op = arg;
		logf_("ioctl KDFONTOP %u %ux%u %u", op->op, op->width, op->height, op->charcount);
	} else if (req == PIO_UNIMAPCLR) {
		logf_("ioctl PIO_UNIMAPCLR");
	} else if (req == KDSKBMODE) {
		logf_("ioctl KDSKBMODE %s", (unsigned long)arg == K_UNICODE ? "K_UNICODE" : "other");
	} else if (req == DM_DEV_RENAME) {
		const struct dm_ioctl *io = arg;
		logf_("ioctl DM_DEV_RENAME %s %s", io->name, (const char *)io + io->data_start);
		return check_fail("ioctl", "DM_DEV_RENAME", NULL, NULL);
	} else if (req == PIO_UNIMAP) {
		const struct unimapdesc *d = arg;
		logf_("ioctl PIO_UNIMAP %u", d->entry_ct);
	} else if (req == BTRFS_IOC_DEVICES_READY) {
		const struct btrfs_ioctl_vol_args *v = arg;
		bool known = false;
		int r;
		logf_("ioctl BTRFS_IOC_DEVICES_READY %s", v->name);
		if ((r = check_fail("ioctl", "BTRFS_IOC_DEVICES_READY", NULL, NULL)) < 0)
			return r;
		for (size_t i = 0; i < cur->btrfs_registered.n && !known; i++)
			known = !strcmp(cur->btrfs_registered.v[i], v->name);
		if (!known)
			strv_push(&cur->btrfs_registered, v->name);
		return cur->btrfs_registered.n < cur->btrfs_members;
	} else if (req == BLKPG) {
		const struct blkpg_ioctl_arg *a = arg;
		const struct blkpg_partition *p = a->data;
		logf_("ioctl BLKPG op %d partition %d start %lld length %lld", a->op, p->pno, p->start,
		      p->length);
		return check_fail("ioctl", "BLKPG", NULL, NULL);
	} else {
		logf_("ioctl 0x%lx", req);
	}
	return check_fail("ioctl", "", NULL, NULL);
}

static int op_open(const char *path, int flags, mode_t mode)
{
	logf_("open %s", path);
	int r = check_fail("open", path, NULL, NULL);
	if (r < 0)
		return r;
	char *p = op_path(path);
	r = open(p, flags, mode);
	if (r < 0)
		r = -errno;
	free(p);
	return r;
}

/* The module's name from the file behind fd, as modprobe spells it. */
static char *fd_module_name(int fd)
{
	char link[64], target[4096];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return xstrdup("?");
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	char *name = xstrndup(base, strcspn(base, "."));
	for (char *c = name; *c; c++)
		if (*c == '-')
			*c = '_';
	return name;
}

static int op_finit_module(int fd, const char *params, int flags)
{
	(void)flags;
	char *name = fd_module_name(fd);
	logf_("finit_module %s params='%s'", name, s_or_dash(params));
	int r = check_fail("finit_module", name, NULL, NULL);
	if (cur->on_finit)
		cur->on_finit(cur, name);
	free(name);
	return r;
}

static int op_chdir(const char *path)
{
	logf_("chdir %s", path);
	return check_fail("chdir", path, NULL, NULL);
}

static int op_chroot(const char *path)
{
	logf_("chroot %s", path);
	return check_fail("chroot", path, NULL, NULL);
}

static int op_execve(const char *path, char *const argv[], char *const envp[])
{
	struct buf b = { 0 };
	(void)envp;
	buf_printf(&b, "execve %s", path);
	for (size_t i = 1; argv && argv[0] && argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	strv_push_owned(&cur->log, b.p);
	return check_fail("execve", path, NULL, NULL);
}

static int op_access(const char *path, int mode)
{
	logf_("access %s %d", path, mode);
	int r = check_fail("access", path, NULL, NULL);
	if (r < 0)
		return r;
	char *p = op_path(path);
	r = access(p, mode) < 0 ? -errno : 0;
	free(p);
	return r;
}

static ssize_t op_recv(int fd, void *buf, size_t len, int flags)
{
	if (cur->nrecv) {
		struct fake_recv r = cur->recvs[0];
		memmove(cur->recvs, cur->recvs + 1, --cur->nrecv * sizeof(*cur->recvs));
		if (!r.data)
			return -r.err;
		if (r.len > len)
			r.len = len;
		memcpy(buf, r.data, r.len);
		free(r.data);
		return (ssize_t)r.len;
	}
	/* the host's own events: read and forgotten, so poll settles */
	if (fd >= 0)
		while (recv(fd, buf, len, flags | MSG_DONTWAIT) > 0)
			;
	return -EAGAIN;
}

static int op_uevent_open(void)
{
	cur->uevent_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return cur->uevent_fd;
}

/* Real fds first, without waiting; if nothing is ready, the clock moves
 * on by the timeout instead of sleeping (a wait forever: 60 s). */
static int op_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	int r;

	for (nfds_t i = 0; i < n; i++)
		fds[i].revents = 0;
	if (cur->nrecv || cur->npkts || cur->nlmon_len || cur->nudps || cur->udp6_len) {
		for (nfds_t i = 0; i < n; i++)
			if ((cur->nrecv && fds[i].fd == cur->uevent_fd) ||
			    (cur->npkts && fds[i].fd == cur->pkt_fd) ||
			    (cur->nlmon_len && fds[i].fd == cur->nlmon_fd) ||
			    (cur->nudps && fds[i].fd == cur->udp_fd) ||
			    (cur->udp6_len && fds[i].fd == cur->udp6_fd))
				fds[i].revents = POLLIN;
		return 1;
	}
	r = poll(fds, n, 0);
	if (r < 0)
		return -errno;
	if (r != 0 || timeout == 0)
		return r;
	if (cur->on_idle) {
		cur->on_idle(cur);
		if (cur->nrecv || cur->npkts || cur->nlmon_len)
			return op_poll(fds, n, 0);
	}
	cur->now += timeout < 0 ? 60000 : timeout;
	return 0;
}

/* The real signalfd and waitpid: the children a test starts are real. */
static int op_signalfd(int fd, const sigset_t *mask, int flags)
{
	int r = signalfd(fd, mask, flags);
	return r < 0 ? -errno : r;
}

static pid_t op_waitpid(pid_t pid, int *status, int options)
{
	pid_t r = waitpid(pid, status, options);
	return r < 0 ? -errno : r;
}

static int op_socket(int domain, int type, int proto)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	logf_("socket %d %d %d", domain, type & 0xff, proto);
	if (domain == AF_NETLINK && cur->nl_fd >= 0) {
		cur->nlmon_fd = fd;
	} else if (domain == AF_NETLINK) {
		cur->nl_fd = fd;
	} else if (domain == AF_INET && (type & 0xff) == SOCK_DGRAM) {
		cur->udp_fd = fd;
	} else if (domain == AF_INET6) {
		cur->udp6_fd = fd;
	} else {
		cur->pkt_fd = fd;
		cur->pkt_type = type;
	}
	return fd;
}

static int op_close(int fd)
{
	if (fd == cur->pkt_fd) {
		strv_push(&cur->log, "close packet-socket");
		cur->pkt_fd = -1;
		/* what was queued for it goes with it, as a real socket's */
		while (cur->npkts)
			free(cur->pkts[--cur->npkts].data);
	} else if (fd == cur->nl_fd) {
		strv_push(&cur->log, "close netlink");
		cur->nl_fd = -1;
	} else if (fd == cur->nlmon_fd) {
		strv_push(&cur->log, "close netlink listener");
		cur->nlmon_fd = -1;
	} else if (fd == cur->udp6_fd) {
		strv_push(&cur->log, "close udp6");
		cur->udp6_fd = -1;
	} else if (fd == cur->udp_fd) {
		strv_push(&cur->log, "close udp");
		cur->udp_fd = -1;
	} else {
		strv_push(&cur->log, "close");
	}
	return close(fd) < 0 ? -errno : 0;
}

static int op_bind(int fd, const void *addr, unsigned len)
{
	(void)fd;
	(void)addr;
	(void)len;
	return 0;
}

static void log_netlink(const struct nlmsghdr *h)
{
	char line[200];
	int n = 0;
	const struct rtattr *a;
	size_t alen;

	if (h->nlmsg_type == RTM_NEWLINK) {
		const struct ifinfomsg *ifi = NLMSG_DATA(h);
		n = snprintf(line, sizeof(line), "netlink link %d %s", ifi->ifi_index,
			     ifi->ifi_flags & IFF_UP ? "up" : "down");
		a = IFLA_RTA(ifi);
		alen = IFLA_PAYLOAD(h);
		for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			if (a->rta_type == IFLA_MTU)
				n += snprintf(line + n, sizeof(line) - n, " mtu %u", *(unsigned *)RTA_DATA(a));
			if (a->rta_type == IFLA_IFNAME)
				n += snprintf(line + n, sizeof(line) - n, " name %s", (char *)RTA_DATA(a));
			if (a->rta_type == IFLA_MASTER)
				n += snprintf(line + n, sizeof(line) - n, " master %u", *(unsigned *)RTA_DATA(a));
			if (a->rta_type == IFLA_LINKINFO) {
				const struct rtattr *k = RTA_DATA(a);
				size_t klen = RTA_PAYLOAD(a);
				for (; RTA_OK(k, klen); k = RTA_NEXT(k, klen))
					if (k->rta_type == IFLA_INFO_KIND)
						n += snprintf(line + n, sizeof(line) - n, " kind %.*s",
							      (int)RTA_PAYLOAD(k), (char *)RTA_DATA(k));
			}
		}
	} else if (h->nlmsg_type == RTM_DELLINK) {
		const struct ifinfomsg *ifi = NLMSG_DATA(h);
		snprintf(line, sizeof(line), "netlink dellink %d", ifi->ifi_index);
	} else if (h->nlmsg_type == RTM_NEWADDR || h->nlmsg_type == RTM_DELADDR) {
		const struct ifaddrmsg *ifa = NLMSG_DATA(h);
		char ab[INET_ADDRSTRLEN] = "?";
		a = IFA_RTA(ifa);
		alen = IFA_PAYLOAD(h);
		for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen))
			if (a->rta_type == IFA_LOCAL)
				inet_ntop(AF_INET, RTA_DATA(a), ab, sizeof(ab));
		snprintf(line, sizeof(line), "netlink addr %s %u %s/%u",
			 h->nlmsg_type == RTM_NEWADDR ? "add" : "del", ifa->ifa_index, ab,
			 ifa->ifa_prefixlen);
	} else if (h->nlmsg_type == RTM_NEWROUTE) {
		const struct rtmsg *rt = NLMSG_DATA(h);
		char gb[INET_ADDRSTRLEN] = "?";
		unsigned oif = 0;
		a = RTM_RTA(rt);
		alen = RTM_PAYLOAD(h);
		for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			if (a->rta_type == RTA_GATEWAY)
				inet_ntop(AF_INET, RTA_DATA(a), gb, sizeof(gb));
			if (a->rta_type == RTA_OIF)
				oif = *(unsigned *)RTA_DATA(a);
		}
		snprintf(line, sizeof(line), "netlink route %u via %s", oif, gb);
	} else {
		snprintf(line, sizeof(line), "netlink type %u", h->nlmsg_type);
	}
	strv_push(&cur->log, line);
}

static ssize_t op_sendto(int fd, const void *buf, size_t len, int flags, const void *addr,
			 unsigned alen)
{
	(void)flags;
	if (fd == cur->nlmon_fd) {
		logf_("netlink listener %u", ((const struct nlmsghdr *)buf)->nlmsg_type);
		return (ssize_t)len;
	}
	if (fd == cur->udp6_fd) {
		const struct sockaddr_in6 *to = addr;
		logf_("udp6-send %u %u %zu", to->sin6_scope_id, ntohs(to->sin6_port), len);
		if (cur->on_udp6)
			cur->on_udp6(cur, to, buf, len);
		return (ssize_t)len;
	}
	if (fd == cur->nl_fd) {
		const struct nlmsghdr *h = buf;
		struct nlmsghdr *r = (struct nlmsghdr *)cur->nl_reply;
		struct nlmsgerr *e = NLMSG_DATA(r);

		log_netlink(h);
		if (cur->on_netlink)
			cur->on_netlink(cur, buf, len);
		memset(cur->nl_reply, 0, sizeof(cur->nl_reply));
		r->nlmsg_len = NLMSG_LENGTH(sizeof(*e));
		r->nlmsg_type = NLMSG_ERROR;
		r->nlmsg_seq = h->nlmsg_seq;
		e->error = cur->netlink_err;
		cur->nl_reply_len = r->nlmsg_len;
		return (ssize_t)len;
	}
	if (fd == cur->udp_fd && addr && alen >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *to = addr;
		char a[INET_ADDRSTRLEN];
		logf_("udp-send %s:%u %zu", inet_ntop(AF_INET, &to->sin_addr, a, sizeof(a)), ntohs(to->sin_port), len);
		if (cur->on_udp)
			cur->on_udp(cur, to, buf, len);
		return (ssize_t)len;
	}
	{
		const struct sockaddr_ll *ll = addr;
		logf_("packet-send %d %zu", ll ? ll->sll_ifindex : 0, len);
		if (cur->on_packet)
			cur->on_packet(cur, ll ? ll->sll_ifindex : 0, buf, len);
	}
	return (ssize_t)len;
}

static ssize_t op_recvfrom(int fd, void *buf, size_t len, int flags, void *addr, unsigned *alen)
{
	(void)flags;
	if (fd == cur->nlmon_fd) {
		size_t n = cur->nlmon_len < len ? cur->nlmon_len : len;
		if (!n)
			return -EAGAIN;
		memcpy(buf, cur->nlmon, n);
		cur->nlmon_len = 0;
		return (ssize_t)n;
	}
	if (fd == cur->udp6_fd) {
		size_t n = cur->udp6_len < len ? cur->udp6_len : len;
		if (!cur->udp6_len)
			return -EAGAIN;
		memcpy(buf, cur->udp6_answer, n);
		cur->udp6_len = 0;
		if (addr && alen && *alen >= sizeof(cur->udp6_from)) {
			memcpy(addr, &cur->udp6_from, sizeof(cur->udp6_from));
			*alen = sizeof(cur->udp6_from);
		}
		return (ssize_t)n;
	}
	if (fd == cur->nl_fd) {
		size_t n = cur->nl_reply_len < len ? cur->nl_reply_len : len;
		if (!n)
			return -EAGAIN;
		memcpy(buf, cur->nl_reply, n);
		cur->nl_reply_len = 0;
		return (ssize_t)n;
	}
	if (fd == cur->udp_fd) {
		struct fake_recv r;
		struct sockaddr_in from;
		if (!cur->nudps)
			return -EAGAIN;
		r = cur->udps[0];
		from = cur->udp_from[0];
		cur->nudps--;
		memmove(cur->udps, cur->udps + 1, cur->nudps * sizeof(*cur->udps));
		memmove(cur->udp_from, cur->udp_from + 1, cur->nudps * sizeof(*cur->udp_from));
		if (r.len > len)
			r.len = len;
		memcpy(buf, r.data, r.len);
		free(r.data);
		if (addr && alen && *alen >= sizeof(from)) {
			memcpy(addr, &from, sizeof(from));
			*alen = sizeof(from);
		}
		return (ssize_t)r.len;
	}
	if (cur->npkts) {
		struct fake_recv r = cur->pkts[0];
		memmove(cur->pkts, cur->pkts + 1, --cur->npkts * sizeof(*cur->pkts));
		if (r.len > len)
			r.len = len;
		memcpy(buf, r.data, r.len);
		free(r.data);
		if (addr && alen && *alen >= sizeof(struct sockaddr_ll)) {
			struct sockaddr_ll ll = { .sll_family = AF_PACKET,
						  .sll_ifindex = r.ifindex ? r.ifindex : cur->pkt_ifindex };
			memcpy(addr, &ll, sizeof(ll));
		}
		return (ssize_t)r.len;
	}
	return -EAGAIN;
}

void fake_udp(struct fake_ops *f, const char *from, unsigned port, const void *data, size_t len)
{
	ARRAY_GROW(f->udps, f->capudps, f->nudps + 1);
	ARRAY_GROW(f->udp_from, f->capfrom, f->nudps + 1);
	f->udp_from[f->nudps] = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, from, &f->udp_from[f->nudps].sin_addr);
	f->udps[f->nudps].data = xmalloc(len ? len : 1);
	memcpy(f->udps[f->nudps].data, data, len);
	f->udps[f->nudps].len = len;
	f->udps[f->nudps].err = 0;
	f->udps[f->nudps].ifindex = 0;
	f->nudps++;
}

void fake_udp6(struct fake_ops *f, const char *from, unsigned port, const void *data, size_t len)
{
	f->udp6_from = (struct sockaddr_in6){ .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port) };
	inet_pton(AF_INET6, from, &f->udp6_from.sin6_addr);
	f->udp6_len = len < sizeof(f->udp6_answer) ? len : sizeof(f->udp6_answer);
	memcpy(f->udp6_answer, data, f->udp6_len);
}

void fake_packet_on(struct fake_ops *f, int ifindex, const void *frame, size_t len)
{
	ARRAY_GROW(f->pkts, f->cappkts, f->npkts + 1);
	f->pkts[f->npkts].data = xmalloc(len ? len : 1);
	memcpy(f->pkts[f->npkts].data, frame, len);
	f->pkts[f->npkts].len = len;
	f->pkts[f->npkts].err = 0;
	f->pkts[f->npkts].ifindex = ifindex;
	f->npkts++;
}

void fake_packet(struct fake_ops *f, const void *frame, size_t len)
{
	fake_packet_on(f, 0, frame, len);
}

static long long op_now_ms(void)
{
	return cur->now;
}

static void op_sync(void)
{
	strv_push(&cur->log, "sync");
}

static void push_recv(struct fake_ops *f, struct fake_recv r)
{
	ARRAY_GROW(f->recvs, f->caprecv, f->nrecv + 1);
	f->recvs[f->nrecv++] = r;
}

void fake_recv_msg(struct fake_ops *f, const char *msg)
{
	char *d = xstrdup(msg);
	size_t n = strlen(d);

	for (char *c = d; *c; c++)
		if (*c == '|')
			*c = '\0';
	push_recv(f, (struct fake_recv){ d, n, 0, 0 });
}

void fake_recv_err(struct fake_ops *f, int err)
{
	push_recv(f, (struct fake_recv){ NULL, 0, err, 0 });
}

struct fake_ops *fake_ops_new(void)
{
	const char *tmp = getenv("TMPDIR");
	struct fake_ops *f = xcalloc(1, sizeof(*f));
	char *tmpl = xasprintf("%s/uniramfs-fake.XXXXXX", tmp && *tmp ? tmp : "/tmp");

	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		abort();
	}
	f->root = tmpl;
	f->ops = (struct sysops){
		.mount = op_mount,
		.umount = op_umount,
		.mkdir = op_mkdir,
		.symlink = op_symlink,
		.unlink = op_unlink,
		.open = op_open,
		.finit_module = op_finit_module,
		.chdir = op_chdir,
		.chroot = op_chroot,
		.execve = op_execve,
		.access = op_access,
		.uevent_open = op_uevent_open,
		.recv = op_recv,
		.poll = op_poll,
		.signalfd = op_signalfd,
		.waitpid = op_waitpid,
		.now_ms = op_now_ms,
		.sync = op_sync,
		.path = op_path,
		.socket = op_socket,
		.bind = op_bind,
		.sendto = op_sendto,
		.recvfrom = op_recvfrom,
		.close = op_close,
		.ioctl = op_ioctl,
	};
	f->nl_fd = f->pkt_fd = f->nlmon_fd = f->udp6_fd = f->udp_fd = -1;
	f->now = FAKE_T0;
	f->uevent_fd = -1;
	cur = f;
	return f;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(p) : unlink(p);
}

void fake_ops_free(struct fake_ops *f)
{
	if (!f)
		return;
	nftw(f->root, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	if (f->uevent_fd >= 0)
		close(f->uevent_fd);
	for (size_t i = 0; i < f->nfails; i++) {
		free(f->fails[i].call);
		free(f->fails[i].name);
	}
	free(f->fails);
	for (size_t i = 0; i < f->nrecv; i++)
		free(f->recvs[i].data);
	free(f->recvs);
	for (size_t i = 0; i < f->npkts; i++)
		free(f->pkts[i].data);
	free(f->pkts);
	for (size_t i = 0; i < f->nudps; i++)
		free(f->udps[i].data);
	free(f->udps);
	free(f->udp_from);
	/* nl_fd and pkt_fd belong to the code under test, which closes them */
	strv_free(&f->log);
	strv_free(&f->btrfs_registered);
	free(f->root);
	if (cur == f)
		cur = NULL;
	free(f);
}

void fake_fail(struct fake_ops *f, const char *call, const char *name, int err)
{
	f->fails = xrealloc(f->fails, (f->nfails + 1) * sizeof(*f->fails));
	f->fails[f->nfails++] = (struct fake_fail_rule){ xstrdup(call), xstrdup(name), err };
}

static void mkparents(const char *real)
{
	char *dir = xstrdup(real);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdir_p(dir, 0755);
	}
	free(dir);
}

void fake_write(struct fake_ops *f, const char *p, const char *content)
{
	char *real = fake_path(f, p);
	mkparents(real);
	int fd = open(real, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, content, strlen(content)) < 0) {
		perror(real);
		abort();
	}
	close(fd);
	free(real);
}

void fake_mkdir(struct fake_ops *f, const char *p)
{
	char *real = fake_path(f, p);
	mkdir_p(real, 0755);
	free(real);
}

void fake_symlink(struct fake_ops *f, const char *target, const char *p)
{
	char *real = fake_path(f, p);
	mkparents(real);
	unlink(real);
	if (symlink(target, real) < 0) {
		perror(real);
		abort();
	}
	free(real);
}

char *fake_read(struct fake_ops *f, const char *p)
{
	char *real = fake_path(f, p), *data = NULL;
	size_t len;

	if (read_file(real, &data, &len) < 0)
		data = NULL;
	free(real);
	return data;
}

char *fake_readlink(struct fake_ops *f, const char *p)
{
	char buf[4096];
	char *real = fake_path(f, p);
	ssize_t n = readlink(real, buf, sizeof(buf) - 1);
	free(real);
	if (n < 0)
		return NULL;
	return xstrndup(buf, (size_t)n);
}

int fake_log_find(const struct fake_ops *f, const char *line)
{
	for (size_t i = 0; i < f->log.n; i++)
		if (strcmp(f->log.v[i], line) == 0)
			return (int)i;
	return -1;
}

int fake_log_find_prefix(const struct fake_ops *f, const char *prefix, int from)
{
	for (size_t i = from < 0 ? 0 : (size_t)from; i < f->log.n; i++)
		if (str_has_prefix(f->log.v[i], prefix))
			return (int)i;
	return -1;
}

int fake_log_count(const struct fake_ops *f, const char *prefix)
{
	int n = 0;
	for (size_t i = 0; i < f->log.n; i++)
		n += str_has_prefix(f->log.v[i], prefix);
	return n;
}

void fake_log_dump(const struct fake_ops *f)
{
	for (size_t i = 0; i < f->log.n; i++)
		printf("#   [%zu] %s\n", i, f->log.v[i]);
}

void fake_log_clear(struct fake_ops *f)
{
	strv_free(&f->log);
}

bool fake_log_in_order(struct fake_ops *f, const char *const *lines, size_t n)
{
	int at = 0;

	for (size_t i = 0; i < n; i++) {
		int found = fake_log_find_prefix(f, lines[i], at);
		if (found < 0) {
			printf("# missing (in order): %s\n", lines[i]);
			fake_log_dump(f);
			return false;
		}
		at = found + 1;
	}
	return true;
}

int fake_free_initramfs(const char *newroot)
{
	strv_push_owned(&cur->log, xasprintf("free_initramfs %s", newroot));
	return 0;
}

int fake_reboot(int how)
{
	strv_push_owned(&cur->log, xasprintf("reboot 0x%x", (unsigned)how));
	return -EPERM;
}
