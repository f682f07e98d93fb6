// SPDX-License-Identifier: GPL-2.0-or-later
/* A root on NVMe over TCP: once the network is up, a job connects each
 * target by writing its options to /dev/nvme-fabrics, which is all
 * nvme-cli's connect does (docs/design.md says why no nvme-cli). A
 * target without an NQN (rd.nvmf.discover=) is a discovery controller:
 * connected to, asked for its discovery log page, and let go, and each
 * NVMe subsystem over TCP it lists is connected. The namespaces then
 * come as any disk does and root= finds its filesystem. */
#include <errno.h>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/net/nvmf.h"
#include "init/stages/stages.h"
#include "log.h"

#define FABRICS "/dev/nvme-fabrics"
#define CHUNK 4096 /* one log page read: what nvme-cli asks for at a time */

/* Where the connect went out: "eth0 (IPv4)". */
static void route_of(const struct init *in, const struct nvmf_target *t, char *out, size_t size)
{
	const struct netup *nu = &in->net;

	snprintf(out, size, "%s (%s)", nu->chosen >= 0 ? nu->v[nu->chosen].name : "no interface",
		 strchr(t->traddr, ':') ? "IPv6" : "IPv4");
}

/* What the failure says about the other end. */
static const char *answered(int e)
{
	switch (e) {
	case -ECONNREFUSED:
		return "the server answered that nothing listens on that port";
	case -ETIMEDOUT:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
		return "nothing answered";
	default:
		return "the target refused the connect (the kernel's log says why)";
	}
}

/* One connect: the controller's instance (nvmeN), or a negative code,
 * said here. */
static int fabrics_connect(struct init *in, const struct nvmf_target *t, const char *nqn)
{
	struct buf opts = { 0 };
	char reply[128], via[40];
	ssize_t n;
	int fd, r;

	route_of(in, t, via, sizeof(via));
	log_info("NVMe/TCP: connecting to %s at %s:%u over %s", nqn, t->traddr, t->port, via);
	nvmf_options(&in->net.root.nvmf, t, nqn, &opts);
	fd = in->ops->open(FABRICS, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0) {
		log_err("NVMe/TCP: cannot open " FABRICS ": %s (is nvme-fabrics in the image?)", strerror(-fd));
		buf_free(&opts);
		return fd;
	}
	r = write_all(fd, opts.p, opts.len);
	buf_free(&opts);
	if (r < 0) {
		log_err("NVMe/TCP: cannot connect to %s at %s:%u over %s: %s: %s", nqn, t->traddr, t->port, via,
			strerror(-r), answered(r));
		close(fd);
		return r;
	}
	n = read(fd, reply, sizeof(reply) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (n >= 0)
		reply[n] = '\0';
	if (r < 0 || (r = nvmf_reply_instance(reply)) < 0) {
		log_err("NVMe/TCP: %s at %s:%u connected, but " FABRICS " did not say which controller", nqn,
			t->traddr, t->port);
		return r < 0 ? r : -EIO;
	}
	log_info("NVMe/TCP: %s at %s:%u is nvme%d", nqn, t->traddr, t->port, r);
	return r;
}

/* Get Log Page (admin opcode 0x02) for the discovery log, at offset off. */
static int get_log(struct init *in, int fd, uint8_t *buf, size_t len, size_t off)
{
	struct nvme_admin_cmd cmd = { 0 };
	uint32_t numd = (uint32_t)(len / 4 - 1);

	cmd.opcode = 0x02;
	cmd.addr = (uint64_t)(uintptr_t)buf;
	cmd.data_len = (uint32_t)len;
	cmd.cdw10 = NVMF_DISC_LID | (numd & 0xffff) << 16;
	cmd.cdw11 = numd >> 16;
	cmd.cdw12 = (uint32_t)off;
	cmd.cdw13 = (uint32_t)((uint64_t)off >> 32);
	return in->ops->ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
}

/* The discovery controller nvmeINST's log page, into r's targets; then
 * the controller goes (it serves nothing else). Returns how many
 * subsystems it listed, or a negative code, said here. */
static int discover(struct init *in, const struct nvmf_target *t, int inst, struct nvmf_root *r)
{
	char dev[32], del[64];
	size_t len = CHUNK;
	uint8_t *page = xmalloc(NVMF_DISC_HDR + NVMF_MAX_TARGETS * NVMF_DISC_ENTRY + CHUNK);
	struct strv w = { 0 };
	long count;
	int fd, e = 0;

	snprintf(dev, sizeof(dev), "/dev/nvme%d", inst);
	fd = in->ops->open(dev, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		e = fd;
	else
		e = get_log(in, fd, page, CHUNK, 0);
	count = e == 0 ? nvmf_disc_count(page, len, NVMF_MAX_TARGETS, &w) : 0;
	while (e == 0 && count > 0 && len < NVMF_DISC_HDR + (size_t)count * NVMF_DISC_ENTRY) {
		e = get_log(in, fd, page + len, CHUNK, len);
		len += CHUNK;
	}
	if (fd >= 0)
		close(fd);
	if (e != 0)
		log_err("NVMe/TCP: the discovery controller at %s:%u (nvme%d) sends no discovery log: %s",
			t->traddr, t->port, inst, e < 0 ? strerror(-e) : "an NVMe error status");
	else
		e = nvmf_disc_parse(page, len, t, r, &w);
	for (size_t i = 0; i < w.n; i++)
		log_warn("%s", w.v[i]);
	strv_free(&w);
	free(page);
	snprintf(del, sizeof(del), "/sys/class/nvme/nvme%d/delete_controller", inst);
	if ((fd = in->ops->open(del, O_WRONLY | O_CLOEXEC, 0)) >= 0) {
		if (write_all(fd, "1", 1) < 0)
			log_debug("cannot let the discovery controller nvme%d go", inst);
		close(fd);
	}
	if (e == 0)
		log_warn("NVMe/TCP: the discovery controller at %s:%u lists no NVMe subsystem over TCP", t->traddr,
			 t->port);
	return e;
}

/* The subsystems named on the command line first, then those the
 * discovery controllers list, each once: the kernel refuses a second
 * connect to a controller it has. */
static enum job_result nvmf_connect(void *ctx, void *data)
{
	struct init *in = ctx;
	const struct nvmf_root *root = &in->net.root.nvmf;
	struct nvmf_root all = { 0 };
	struct strv w = { 0 };

	(void)data;
	if (in->ml && modload_name(in->ml, "nvme_tcp") < 0)
		log_warn("nvme_tcp: %s", err_msg());
	for (size_t i = 0; i < root->n; i++) {
		const struct nvmf_target *t = &root->t[i];
		if (t->nqn)
			nvmf_add_target(&all, t, &w);
	}
	for (size_t i = 0; i < root->n; i++) {
		const struct nvmf_target *t = &root->t[i];
		int inst;
		if (!t->nqn && (inst = fabrics_connect(in, t, NVMF_DISCOVERY_NQN)) >= 0)
			discover(in, t, inst, &all);
	}
	for (size_t i = 0; i < w.n; i++)
		log_warn("%s", w.v[i]);
	strv_free(&w);
	for (size_t i = 0; i < all.n; i++)
		fabrics_connect(in, &all.t[i], all.t[i].nqn);
	nvmf_root_free(&all);
	return JOB_DONE;
}

void nvmf_up(struct init *in)
{
	struct job j = { .what = "NVMe/TCP connect", .run = nvmf_connect, .ctx = in };

	if (in->net.root.kind == NETROOT_NVMF)
		jobq_push(&in->jobs, &j);
}
