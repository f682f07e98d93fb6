// SPDX-License-Identifier: GPL-2.0-or-later
/* Writing what build.c chose: whether the squashfs segment is made, the
 * early microcode segment, then one sorted cpio through the compressor
 * into an unnamed file beside the target that only becomes the image
 * once complete (or the list gen_init_cpio reads). Called by build.c. */
#include "gen/build/build_priv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "err.h"
#include "gen/build/opts.h"
#include "gen/compress/compress.h"
#include "gen/host/space.h"
#include "gen/host/sysroot.h"
#include "gen/image/format_gen_init_cpio.h"
#include "gen/image/image.h"
#include "gen/image/microcode.h"
#include "gen/image/output.h"
#include "gen/image/squash.h"
#include "log.h"

uint32_t build_source_date_epoch(void)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	unsigned long long v;
	if (!s || !*s)
		return 0;
	v = strtoull(s, &end, 10);
	if (*end || v > UINT32_MAX) {
		log_warn("ignoring bad SOURCE_DATE_EPOCH '%s'", s);
		return 0;
	}
	return (uint32_t)v;
}

/* "auto" means: when it can be had. A hostonly build for a sysroot that
 * says nothing of its CPU (a fixture, a chroot without /proc) cannot pick
 * a vendor, so it goes without. */
static bool want_microcode(const struct plan *p)
{
	char *cpuinfo;
	bool ok;

	if (p->o->mode != MODE_HOSTONLY)
		return true;
	cpuinfo = build_host_path(p, "/proc/cpuinfo");
	ok = access(cpuinfo, R_OK) == 0;
	if (!ok)
		log_info("no %s: no early microcode", cpuinfo);
	free(cpuinfo);
	return ok;
}

/* The list format: the cpio goes to a temporary file beside the list,
 * which format_gen_init_cpio.c turns into the list and its files. */
int build_write_list(struct plan *p, uint64_t *size)
{
	char *tmp = xasprintf("%s.cpio-XXXXXX", p->output);
	struct sink *file = NULL;
	struct cpio_writer *w = NULL;
	struct stat st;
	int fd = mkstemp(tmp), r = 0;

	if (fd < 0) {
		r = err_errno(errno, "%s", tmp);
		free(tmp);
		return r;
	}
	if (p->o->microcode == MICROCODE_AUTO && p->o->mode == MODE_HOSTONLY)
		log_info("no early microcode in a gen_init_cpio list (it must be its own segment)");
	file = sink_fd_new(fd);
	w = cpio_writer_new(file);
	r = image_write_cpio(p->img, w, build_source_date_epoch());
	if (r == 0)
		r = cpio_write_trailer(w);
	if (r == 0)
		r = sink_finish(file);
	cpio_writer_free(w);
	sink_free(file);
	if (close(fd) < 0 && r == 0)
		r = err_errno(errno, "%s", tmp);
	if (r == 0)
		r = gen_init_cpio_write(tmp, p->output);
	if (r == 0 && stat(p->output, &st) == 0)
		*size = (uint64_t)st.st_size;
	unlink(tmp);
	free(tmp);
	return r;
}

/* A full filesystem: the unnamed temp file goes, giving its blocks
 * back, and the message says how large the image is and how much more
 * room it needs. When statvfs sees the room (a quota, the blocks a
 * filesystem keeps for itself) the write's own error says it. */
static int no_room(struct output *out, const char *path, uint64_t size, int e)
{
	int r;

	output_abort(out);
	r = space_check(path, size);
	if (r == 0)
		r = err_errno(e, "write %s (the new image needs %llu bytes; the old image stays)", path,
			      (unsigned long long)size);
	return r;
}

/* The image is streamed into an unnamed file beside the target, so no
 * copy of it is held in memory. /boot is often a small partition: when
 * it fills up the stream goes on being compressed into nothing but a
 * count, so the message says exactly how many bytes the image needs,
 * and the old image is untouched. */
int build_write_image(struct plan *p, uint64_t *size)
{
	struct output out = { .fd = -1, .dirfd = -1 };
	struct sink *file = NULL, *comp = NULL;
	struct cpio_writer *w = NULL;
	uint64_t total = 0;
	bool early = false;
	int r;

	r = output_open(&out, p->output);
	if (r == 0)
		file = output_sink_new(&out);
	if (r == 0 && p->o->microcode == MICROCODE_AUTO && want_microcode(p))
		r = microcode_write_early(p->sysroot, p->o->mode == MODE_HOSTONLY, file, &early);
	if (r == 0)
		r = squash_write_segment(&p->squash, file, build_source_date_epoch());
	if (r == 0) {
		comp = compress_sink_new(p->o->compress, file, p->o->compress_level, 0);
		r = comp ? 0 : err_code();
	}
	if (r == 0) {
		w = cpio_writer_new(comp);
		r = image_write_cpio(p->img, w, build_source_date_epoch());
	}
	if (r == 0)
		r = cpio_write_trailer(w);
	if (r == 0)
		r = sink_finish(comp);
	if (r == 0) {
		r = sink_finish(file);
		total = output_sink_total(file);
		if (r == -ENOSPC || r == -EDQUOT)
			r = no_room(&out, p->output, total, r);
	}
	if (r == 0) {
		*size = total;
		r = output_commit(&out);
		/* a filesystem that reserves blocks only when they are flushed */
		if (r == -ENOSPC || r == -EDQUOT)
			r = no_room(&out, p->output, total, r);
	}
	if (early)
		log_info("early microcode segment added");
	cpio_writer_free(w);
	sink_free(comp);
	sink_free(file);
	output_abort(&out);
	return r;
}


/* The kernel's config says whether it can mount the squashfs: the
 * module directory's (Fedora), /boot's (Debian), a tree's .config. */
/* A regular file the sysroot names, as a host path with no link left in
 * it (sysroot_path): the sysroot's links cannot point at the host's. */
static char *sysroot_file(const struct plan *p, const char *fmt, const char *kver)
{
	char *rel = xasprintf(fmt, kver), *host = NULL;
	struct stat st;

	if (sysroot_path(p->sysroot, rel, &host, &st) < 0) {
		err_clear();
		host = NULL;
	} else if (!S_ISREG(st.st_mode)) {
		free(host);
		host = NULL;
	}
	free(rel);
	return host;
}

static char *find_kconfig(const struct plan *p)
{
	/* --kmoddir and --kernel-tree are the caller's own paths, taken as given */
	bool own = p->o->kmoddir || p->o->kernel_tree;
	char *c[3] = {
		own ? (p->kmoddir ? path_join(p->kmoddir, "config") : NULL)
		    : sysroot_file(p, "/lib/modules/%s/config", p->kver),
		sysroot_file(p, "/boot/config-%s", p->kver),
		p->o->kernel_tree ? path_join(p->o->kernel_tree, ".config") : NULL,
	};
	char *found = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		if (!found && c[i] && access(c[i], R_OK) == 0) {
			found = c[i];
			continue;
		}
		free(c[i]);
	}
	return found;
}

/* The list format holds one cpio, and a kernel without modules has
 * no loop or squashfs to load. */
int build_decide_squash(struct plan *p)
{
	char *kconfig;
	int r;

	if (p->o->format == FORMAT_GEN_INIT_CPIO || !p->kmoddir) {
		if (p->o->squashfs == SQUASHFS_YES)
			return err_set("squashfs = yes: %s", p->kmoddir ? "a gen_init_cpio list holds one segment"
							       : "the kernel has no module support");
		return 0;
	}
	kconfig = find_kconfig(p);
	r = squash_plan_decide(&p->squash, p->o->squashfs, p->o->mode == MODE_HOSTONLY, p->o->compress, kconfig);
	free(kconfig);
	return r;
}
