/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A struct sysops for unit tests of the init: every path lives under a
 * fresh temporary directory, and every call is recorded as one line in
 * f->log so a test can assert what the init asked the system to do.
 *
 * Recorded lines (NULL strings print as "-"):
 *   mount SRC TARGET FSTYPE 0xFLAGS DATA
 *   umount TARGET 0xFLAGS
 *   mkdir PATH 0MODE          (done inside the tree)
 *   symlink TARGET LINKPATH   (done inside the tree; TARGET kept as given)
 *   unlink PATH               (done inside the tree)
 *   open PATH                 (done inside the tree)
 *   finit_module NAME params='PARAMS'   (NAME: the .ko's basename, '-' -> '_')
 *   chdir PATH / chroot PATH  (recorded only)
 *   execve PATH ARG1 ARG2 ... (recorded only)
 *   access PATH MODE          (done inside the tree)
 *   sync
 * mount, umount, chdir, chroot and execve succeed (return 0) unless made
 * to fail with fake_fail. path() is not recorded.
 *
 * Time is the fake's: now_ms starts at FAKE_T0 and moves on only when
 * poll would sleep (by its whole timeout), so a 30 s wait takes no real
 * time. The uevent socket is an eventfd that never fires; poll reports
 * it readable while fake_recv_* messages are queued. poll, signalfd and
 * waitpid otherwise reach the real ones (a test's spawned child). */
#ifndef UNIRAMFS_FAKE_OPS_H
#define UNIRAMFS_FAKE_OPS_H

#include <netinet/in.h>
#include <stdbool.h>

#include "init/core/ops.h"
#include "util.h"

struct fake_fail_rule {
	char *call, *name;
	int err;
};

struct fake_recv {
	char *data; /* a uevent message (NUL-separated), NULL for an error */
	size_t len;
	int err;
	int ifindex; /* a packet's interface, 0: pkt_ifindex */
};

struct fake_ops {
	struct sysops ops; /* hand &f->ops to the code under test */
	char *root;        /* the temporary tree, no trailing slash */
	struct strv log;   /* one line per call, in order */
	struct fake_fail_rule *fails;
	size_t nfails;
	struct fake_recv *recvs; /* what recv returns, in turn */
	size_t nrecv, caprecv;
	long long now;  /* the fake clock, ms */
	int uevent_fd;  /* what uevent_open gave, -1 before */
	/* called when poll would sleep, before the clock moves on: a test
	 * makes things happen "later" (queue an event) */
	void (*on_idle)(struct fake_ops *f);
	/* called after a finit_module is recorded, NAME as logged: a test
	 * makes the load take time (moves now on) or its devices appear */
	void (*on_finit)(struct fake_ops *f, const char *name);
	/* The network: socket() records "socket DOMAIN TYPE PROTO" and
	 * gives an eventfd. rtnetlink requests are recorded as
	 * "netlink link IFINDEX up|down [mtu N] [name NAME]",
	 * "netlink addr add|del IFINDEX A.B.C.D/P", "netlink route IFINDEX
	 * via A.B.C.D", each ACKed with 0 (or netlink_err if set). A frame
	 * sent on the packet socket is recorded "packet-send IFINDEX LEN"
	 * and handed to on_packet, which may queue replies with
	 * fake_packet (they arrive from pkt_ifindex). close() of either
	 * records "close packet-socket" or "close netlink" (else "close"),
	 * and the fd becomes -1 here; pkt_type is the packet socket's type
	 * with its flags (SOCK_CLOEXEC...). */
	int nl_fd, pkt_fd, pkt_type;
	/* IPv6 (netup6.c): a second rtnetlink socket is the listener, its
	 * sends recorded "netlink listener TYPE" and what fake_nlmon queued
	 * read from it; an AF_INET6 socket's sends are recorded
	 * "udp6-send SCOPE_ID PORT LEN" and handed to on_udp6, which may
	 * queue one answer with fake_udp6 (else nothing answers). */
	int nlmon_fd, udp6_fd;
	void (*on_udp6)(struct fake_ops *f, const struct sockaddr_in6 *to, const void *buf, size_t len);
	struct sockaddr_in6 udp6_from;
	unsigned char udp6_answer[600];
	size_t udp6_len;
	unsigned char nlmon[512];
	size_t nlmon_len;
	int netlink_err; /* -errno for every request, 0: success */
	unsigned char nl_reply[64];
	size_t nl_reply_len;
	struct fake_recv *pkts;
	size_t npkts, cappkts;
	int pkt_ifindex;
	void (*on_packet)(struct fake_ops *f, int ifindex, const void *frame, size_t len);
	/* every rtnetlink request before its ACK (a test makes the link a
	 * request creates appear in sysfs); RTM_NEWLINK also records
	 * " master N" and " kind KIND", RTM_DELLINK "netlink dellink N" */
	void (*on_netlink)(struct fake_ops *f, const void *msg, size_t len);
	/* A UDP socket (AF_INET, SOCK_DGRAM: the DNS resolver's): sendto
	 * records "udp-send A.B.C.D:PORT LEN" and hands the payload to
	 * on_udp, which may queue answers with fake_udp. */
	int udp_fd;
	struct fake_recv *udps;
	struct sockaddr_in *udp_from;
	size_t nudps, capudps, capfrom;
	void (*on_udp)(struct fake_ops *f, const struct sockaddr_in *to, const void *buf, size_t len);
	/* btrfs: BTRFS_IOC_DEVICES_READY records "ioctl BTRFS_IOC_DEVICES_READY
	 * DEVNODE" and remembers the device; it answers 0 (complete) once
	 * btrfs_members distinct ones were registered, 1 before (0: always
	 * complete). */
	unsigned btrfs_members;
	struct strv btrfs_registered;
};

#define FAKE_T0 1000000LL

/* A new tree under $TMPDIR (or /tmp). Aborts if it cannot be made. */
struct fake_ops *fake_ops_new(void);
/* Remove the tree and free everything. */
void fake_ops_free(struct fake_ops *f);

/* Make CALL ("mount", "umount", "finit_module", "open", "mkdir",
 * "symlink", "unlink", "chdir", "chroot", "execve", "access") fail with
 * errno err when NAME is involved: for mount the source, target or
 * fstype; for finit_module the module name; else the path (for symlink
 * the link path). NAME "*" matches any. */
void fake_fail(struct fake_ops *f, const char *call, const char *name, int err);

/* recv on the uevent socket returns these in turn, then EAGAIN (the
 * host's real events are read and dropped). msg: "ACTION@DEVPATH" and
 * "KEY=VAL" words separated by '|'. */
void fake_recv_msg(struct fake_ops *f, const char *msg);
void fake_recv_err(struct fake_ops *f, int err);

/* Queue one frame (an IP packet) for the packet socket. */
void fake_packet(struct fake_ops *f, const void *frame, size_t len);
/* The answer the AF_INET6 UDP socket reads next, from [from]:port
 * (one at a time: a later one replaces it). */
void fake_udp6(struct fake_ops *f, const char *from, unsigned port, const void *data, size_t len);
/* The same, arriving on interface ifindex (a wire of its own). */
void fake_packet_on(struct fake_ops *f, int ifindex, const void *frame, size_t len);
/* Queue one datagram for the UDP socket, from A.B.C.D:port. */
void fake_udp(struct fake_ops *f, const char *from, unsigned port, const void *data, size_t len);

/* The real path of p inside the tree (caller frees). */
char *fake_path(struct fake_ops *f, const char *p);
/* Create a file (and its parent directories) with the given content. */
void fake_write(struct fake_ops *f, const char *p, const char *content);
/* Create a directory and its parents. */
void fake_mkdir(struct fake_ops *f, const char *p);
/* Create a symlink (and the link's parent directories). */
void fake_symlink(struct fake_ops *f, const char *target, const char *p);
/* A file's whole content in the tree; NULL if absent (caller frees). */
char *fake_read(struct fake_ops *f, const char *p);
/* Read a symlink in the tree; NULL if absent (caller frees). */
char *fake_readlink(struct fake_ops *f, const char *p);

/* Index of the first log line equal to line, or -1. */
int fake_log_find(const struct fake_ops *f, const char *line);
/* Index of the first log line starting with prefix at or after from, or -1. */
int fake_log_find_prefix(const struct fake_ops *f, const char *prefix, int from);
/* Number of log lines starting with prefix. */
int fake_log_count(const struct fake_ops *f, const char *prefix);
/* Print the log as TAP comments (for a failing test). */
void fake_log_dump(const struct fake_ops *f);
void fake_log_clear(struct fake_ops *f);

/* struct initops entries that only record into the live fake's log:
 * "free_initramfs NEWROOT", "reboot 0xHOW" (returns -1, as a reboot that
 * came back). */
int fake_free_initramfs(const char *newroot);
int fake_reboot(int how);

/* Do these lines start log entries in this order (others may come
 * between)? Prints the first one missing and the whole log if not. */
bool fake_log_in_order(struct fake_ops *f, const char *const *lines, size_t n);

#endif
