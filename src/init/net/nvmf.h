/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_NVMF_H
#define UNIRAMFS_NET_NVMF_H

#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "util.h"

/* An NVMe over TCP root (dracut's nvmf module): the command line's
 * rd.nvmf.* words, the options string the kernel's /dev/nvme-fabrics
 * takes, its answer, and the discovery log page a discovery controller
 * sends. Pure: text and bytes in, structs out, problems as warnings
 * that name the offending text. */

#define NVMF_PORT 4420
#define NVMF_DISCOVERY_NQN "nqn.2014-08.org.nvmexpress.discovery"
#define NVMF_NQN_MAX 223 /* the kernel's NVMF_NQN_SIZE */
#define NVMF_MAX_TARGETS 16

struct nvmf_target {
	char *traddr;	   /* an IPv4 or IPv6 literal, no brackets */
	char *host_traddr; /* our address to connect from; NULL: the kernel's choice */
	unsigned port;	   /* NVMF_PORT unless given */
	char *nqn;	   /* the subsystem; NULL: ask the discovery controller there */
};

struct nvmf_root {
	struct nvmf_target *t;
	size_t n;
	char *hostnqn; /* NULL: the kernel's default host NQN */
	char *hostid;  /* a UUID; NULL: the kernel's */
};

/* rd.nvmf.discover=tcp,TRADDR[,HOST_TRADDR[,TRSVCID]] (each one a
 * discovery controller, as dracut), rd.nvmf.traddr= with
 * rd.nvmf.trsvcid= and rd.nvmf.nqn= (one subsystem, connected to
 * directly), rd.nvmf.hostnqn=, rd.nvmf.hostid=, and dracut's older
 * nvmf.* spellings of the same. A bad word is warned about and left
 * out; rd.nonvmf turns it all off. Returns how many targets (0: no
 * NVMe-oF root). */
int nvmf_from_cmdline(const struct cmdline *c, struct nvmf_root *out, struct strv *warnings);
void nvmf_root_free(struct nvmf_root *r);
/* A copy of t into r unless r has it already (the same address, port
 * and NQN); at most NVMF_MAX_TARGETS, a warning past them. */
void nvmf_add_target(struct nvmf_root *r, const struct nvmf_target *t, struct strv *warnings);

/* What /dev/nvme-fabrics is written for a connect to nqn at t (nqn: the
 * subsystem's, or NVMF_DISCOVERY_NQN), the host's names from r. */
void nvmf_options(const struct nvmf_root *r, const struct nvmf_target *t, const char *nqn,
		  struct buf *out);
/* Its answer, "instance=N,cntlid=M\n": N, or -EINVAL. */
int nvmf_reply_instance(const char *reply);

/* The discovery log page (log identifier 0x70): a 1024-byte header
 * whose NUMREC says how many 1024-byte entries follow. */
#define NVMF_DISC_LID 0x70
#define NVMF_DISC_HDR 1024
#define NVMF_DISC_ENTRY 1024
/* The records held in a page of len bytes, at most max; -EINVAL with
 * a warning when the header is short. */
long nvmf_disc_count(const uint8_t *page, size_t len, size_t max, struct strv *warnings);
/* The NVMe subsystems over TCP that page lists (its other records:
 * other transports, referrals to discovery controllers, are skipped,
 * and a record whose text fields are not an address, a port and an NQN
 * is warned about), appended to out as targets unless out has them;
 * host_traddr is copied from "from". Returns how many it lists. */
int nvmf_disc_parse(const uint8_t *page, size_t len, const struct nvmf_target *from, struct nvmf_root *out,
		    struct strv *warnings);

#endif
