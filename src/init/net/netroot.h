/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_NETROOT_H
#define UNIRAMFS_NET_NETROOT_H

#include <stdbool.h>

#include "cmdline.h"
#include "util.h"
#include "init/net/netaddr.h"
#include "init/net/nvmf.h"

/* Where a network root lives, from the command line (root=, netroot=,
 * nfsroot=, nbdroot=, rd.iscsi.*) or from DHCP's root-path (option
 * 17). Pure: text in, structs out, problems as warnings that name the
 * offending text. */

enum netroot_kind {
	NETROOT_NONE,
	NETROOT_NFS,
	NETROOT_ISCSI,
	NETROOT_NBD,
	NETROOT_DHCP, /* root=dhcp or netroot=dhcp: DHCP's root-path says */
	NETROOT_NVMF, /* rd.nvmf.*: NVMe over TCP (nvmf.h) */
	NETROOT_HTTP, /* root=live:http(s)://… or root=http(s)://…: a live image to download */
};

struct nfs_root {
	char *server;  /* as written; NULL: the DHCP or ip= server */
	char *path;    /* may hold %s, the client's address */
	char *options; /* the user's, comma-separated; NULL: none */
	int vers;      /* major: 4 for nfs4:, 2/3/4 from vers=; 0: not said */
	int minor;     /* from vers=4.N; -1: not said */
	bool kernel_form; /* root=/dev/nfs nfsroot=: the kernel's defaults apply */
};

struct iscsi_target {
	char *server; /* address, brackets stripped */
	unsigned port; /* 3260 unless given */
	unsigned lun;
	char *name; /* iqn.… */
	char *user, *password;	     /* CHAP */
	char *in_user, *in_password; /* mutual (reverse) CHAP */
};

struct iscsi_root {
	char *initiator; /* rd.iscsi.initiator= or iBFT; NULL: unset */
	struct iscsi_target target;
	/* Every other netroot=iscsi: of the command line, in its order:
	 * more paths to the LUN (dracut's multipath iSCSI: one portal
	 * each), each logged in too. */
	struct iscsi_target *more;
	size_t nmore;
	bool firmware; /* rd.iscsi.firmware / rd.iscsi.ibft / root=ibft: log in to iBFT's target */
	bool ibft_net;	/* rd.iscsi.ibft / root=ibft: the network from the iBFT's NIC */
	bool ibft_root; /* root=ibft: the root is the iBFT target's disk */
	/* rd.iscsi.waitnet=1: with several interfaces, the logins wait for
	 * every one to be configured or give up, not only for a route to
	 * each target (netup.c's maybe_up) */
	bool waitnet;
};

/* The one NBD device a network root uses. */
#define NETROOT_NBD_DEVICE "/dev/nbd0"

struct nbd_root {
	char *server;
	unsigned port; /* 10809 unless given */
	char *export;  /* NULL: the server's default export */
	char *fstype, *rootflags, *nbdopts;
};

/* A live root's image on a web server (dracut's livenet). */
struct http_root {
	char *url;    /* without "live:"; checked by http_url_parse */
	char *server; /* the URL's host: netboot/netnames.c puts the address of a name here */
};

struct netroot {
	enum netroot_kind kind;
	struct http_root http;
	struct nfs_root nfs;
	struct iscsi_root iscsi;
	struct nbd_root nbd;
	struct nvmf_root nvmf;
};

/* root=live:http://…, root=http://… and their https:// forms (dracut's
 * livenet, TEST-31): true for such a root= value, which is then r's
 * NETROOT_HTTP root, or -EINVAL (a warning names the fault) through ret. */
bool netroot_http_parse(const char *root, struct netroot *r, struct strv *warnings, int *ret);

/* One "TYPE:…" spec: nfs:, nfs4:, iscsi:, nbd:, or dhcp. 0 or -EINVAL. */
int netroot_parse(const char *spec, struct netroot *out, struct strv *warnings);
/* The command line: netroot= wins, then root=TYPE:…, then root=ibft,
 * then root=/dev/nfs with nfsroot=, then nbdroot=; rd.iscsi.* fill or
 * make an iSCSI root (the iBFT's target is read at boot: stages/ibftboot.c);
 * with none of them, rd.nvmf.* make an NVMe over TCP root.
 * Returns 0 (kind may be NETROOT_NONE) or -EINVAL on a spec that is wrong. */
int netroot_from_cmdline(const struct cmdline *c, struct netroot *out, struct strv *warnings);
/* DHCP's root-path: a TYPE:… spec, or else the kernel's
 * [SERVER:]PATH[,OPTS]. For a command line root=/dev/nfs, pass it to
 * nfs_kernel_parse instead, which layers it as the kernel does. */
int netroot_from_root_path(const char *root_path, struct netroot *out, struct strv *warnings);
void netroot_free(struct netroot *r);

/* How the root is reached: the one place that decides it. */
enum netroot_use {
	NETROOT_USE_NONE,   /* no network root: root= names a local device */
	NETROOT_USE_MOUNT,  /* NFS, or DHCP's root-path: mounted by its name */
	NETROOT_USE_DEVICE, /* iSCSI, NBD, NVMe/TCP: a disk, then the block path */
};
enum netroot_use netroot_use(const struct netroot *r);
/* root=nbd:… and root=iscsi:… (dracut's) name the network disk itself:
 * the device spec to wait for instead (malloc'd), with the spec's
 * filesystem type and mount options for rootfstype=/rootflags= when it
 * gives them (borrowed from r; NULL if not). NULL when root= is not
 * such a spec (netroot= with root=UUID=…: root= is already a device). */
char *netroot_root_spec(const struct netroot *r, const char *root, const char **fstype,
			const char **rootflags);

/* The kernel's nfsroot= (fs/nfs/nfsroot.c): the DHCP root-path first
 * (may be NULL), then nfsroot= (may be NULL) over it; a path not
 * starting with '/' or an address goes under /tftpboot/, and nothing
 * at all means "/tftpboot/%s". */
int nfs_kernel_parse(const char *nfsroot, const char *dhcp_root_path, struct nfs_root *out, struct strv *warnings);

/* The NFS versions to try, in order, as vers= values. The kernel does
 * not negotiate (vers=4 mounts 4.0), so we do, as mount.nfs would:
 * 4.2, 4.1, 4.0 for a 4 without a minor, then 3 when no version was
 * said at all; the kernel's nfsroot= form defaults to 3 alone. 4.1 and
 * later keep the callback channel on our own connection, which matters
 * where the server cannot connect back (QEMU's user networking).
 * Returns how many were put in vers[]. */
#define NFS_MAX_TRIES 4
int nfs_versions(const struct nfs_root *r, const char *vers[NFS_MAX_TRIES]);

struct nfs_mount {
	char *source; /* "ADDR:/path" for mount(2) */
	char *data;   /* "vers=3,…,nolock,addr=ADDR" */
	int read_only; /* -1: not said, 0: rw, 1: ro (taken out of data) */
};

/* Build the mount(2) arguments for version vers ("2", "3", "4",
 * "4.0", "4.1" or "4.2"); mount(2) takes them with the type "nfs". server is the address
 * to use when r->server is NULL (from DHCP or ip=), client is ours (for
 * %s and NFSv4's clientaddr=). The kernel takes no names, so a server
 * that is not an address literal is refused. Returns 0 or -EINVAL with a
 * message in *why (static text or owned by the warnings). */
int nfs_mount_args(const struct nfs_root *r, const char *vers, const struct net_addr *server, const struct net_addr *client,
		   struct nfs_mount *out, struct strv *warnings);
void nfs_mount_free(struct nfs_mount *m);

/* text (a spec, a whole command line) with the secrets a network root
 * may carry masked as "(secret)": an iSCSI spec's USER:PASS…@ and the
 * values of rd.iscsi.password= and rd.iscsi.in.password=. For every
 * message and log line that quotes one (malloc'd). */
char *netroot_shown(const char *text);

/* The parts on their own, for the callers that have them apart. */
int iscsi_parse(const char *spec, struct iscsi_root *out, struct strv *warnings); /* after "iscsi:" */
int nbd_parse(const char *spec, struct nbd_root *out, struct strv *warnings);	  /* after "nbd:" or nbdroot= */
void iscsi_target_free(struct iscsi_target *t);
void iscsi_root_free(struct iscsi_root *r);

#endif
