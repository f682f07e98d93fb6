// SPDX-License-Identifier: GPL-2.0-or-later
/* The squashfs segment: see squash.h. The filesystem is written by
 * squashfs-tools-ng's gensquashfs from a pack file naming each host file,
 * so nothing is copied to a staging directory; both the pack file and the
 * result live in memory (memfd), so the build writes nowhere but its
 * output. */
#include "gen/image/squash.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "err.h"
#include "gen/host/run_tool.h"
#include "layout.h"
#include "log.h"

/* A read decompresses whole blocks (and whole fragment blocks for the
 * small files packed together): 1 MiB blocks made the image 3% smaller
 * than 256 KiB but the boot 0.1 s slower, 128 KiB gained nothing more
 * (bench/results/results.md, "The squashfs segment"). */
#define BLOCK_SIZE "262144"

void squash_plan_init(struct squash_plan *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

void squash_plan_free(struct squash_plan *s)
{
	strv_free(&s->keep);
	strv_free(&s->store);
	strv_free(&s->store_files);
	if (s->stored)
		image_free(s->stored);
	s->stored = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* The kernel's squashfs decompressor for the image's compressor, and
 * gensquashfs's name for it. */
static const char *squash_comp(enum compression c, const char **kopt)
{
	switch (c) {
	case COMP_ZSTD:
		*kopt = "CONFIG_SQUASHFS_ZSTD";
		return "zstd";
	case COMP_XZ:
		*kopt = "CONFIG_SQUASHFS_XZ";
		return "xz";
	case COMP_LZ4:
		*kopt = "CONFIG_SQUASHFS_LZ4";
		return "lz4";
	case COMP_GZIP:
		*kopt = "CONFIG_SQUASHFS_ZLIB";
		return "gzip";
	default:
		*kopt = NULL;
		return NULL;
	}
}

/* 'y', 'm' or 0 for name in a kernel .config text. */
static char kconfig_value(const char *data, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = data; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, name, n) == 0 && l[n] == '=' && (l[n + 1] == 'y' || l[n + 1] == 'm'))
			return l[n + 1];
	return 0;
}

static bool in_path(const char *tool)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path && *path ? path : "/usr/bin:/bin"), *save = NULL;
	bool found = false;

	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = path_join(d, tool);
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

/* Why this build cannot have the segment, or NULL when it can. */
static char *why_not(enum compression c, const char *kconfig, const char **comp)
{
	static const char *const need[] = { "CONFIG_SQUASHFS", "CONFIG_BLK_DEV_LOOP" };
	const char *kopt;
	char *data = NULL, *why = NULL;
	size_t len;

	*comp = squash_comp(c, &kopt);
	if (!*comp)
		return xasprintf("the image is not compressed (compress = %s)", compression_name(c));
	if (!in_path("gensquashfs"))
		return xstrdup("gensquashfs not found (install squashfs-tools-ng)");
	if (!kconfig)
		return xstrdup("no kernel config to say the kernel has squashfs and loop");
	if (read_file(kconfig, &data, &len) < 0)
		return xasprintf("%s: %s", kconfig, err_msg());
	for (size_t i = 0; !why && i < ARRAY_SIZE(need); i++)
		if (!kconfig_value(data, need[i]))
			why = xasprintf("%s: %s is not set", kconfig, need[i]);
	if (!why && kconfig_value(data, kopt) != 'y')
		why = xasprintf("%s: %s is not set (the kernel's squashfs cannot read %s)", kconfig, kopt, *comp);
	free(data);
	return why;
}

/* No segment, because of why (freed): an error if it was asked for. */
static int refuse(struct squash_plan *s, enum squashfs_mode mode, char *why)
{
	int r = 0;

	s->on = false;
	if (mode == SQUASHFS_YES)
		r = err_set("squashfs = yes: %s", why);
	else
		log_info("no squashfs segment: %s", why);
	free(why);
	return r;
}

int squash_plan_decide(struct squash_plan *s, enum squashfs_mode mode, bool hostonly, enum compression c,
		       const char *kconfig)
{
	char *why;

	s->on = false;
	if (mode == SQUASHFS_NO || (mode == SQUASHFS_AUTO && hostonly))
		return 0;
	why = why_not(c, kconfig, &s->comp);
	if (!why) {
		s->on = true;
		return 0;
	}
	return refuse(s, mode, why);
}

int squash_plan_refuse(struct squash_plan *s, enum squashfs_mode mode, const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		abort();
	va_end(ap);
	return refuse(s, mode, why);
}

/* The pack file's words are split at blanks and may be quoted; a name
 * with anything but these characters stays in the main segment rather
 * than be escaped. */
static bool plain_name(const char *s)
{
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-@:,=~", *s))
			return false;
	return true;
}

struct pick {
	struct squash_plan *s;
	struct buf pack;
	struct strv moved;
	struct strv stored;
};

/* The module's path below /lib/modules/KVER/, or NULL. */
static const char *module_rel(const char *dst)
{
	const char *mod = strstr(dst, "/lib/modules/"), *rel;

	if (mod != dst + 4 || !str_has_suffix(dst, ".ko"))
		return NULL;
	rel = strchr(mod + strlen("/lib/modules/"), '/');
	return rel ? rel + 1 : NULL;
}

/* Most boots read it: stored uncompressed, so neither the kernel's unpack
 * nor the init's mount stands between the boot and it. */
static bool stays_plain(const struct squash_plan *s, const char *dst, const char *src)
{
	const char *rel = module_rel(dst), *bare = str_has_prefix(dst, "/usr/") ? dst + 4 : dst;

	if (!plain_name(dst) || !plain_name(src))
		return false;
	if (rel)
		return strv_contains(&s->store, rel);
	for (size_t i = 0; i < s->store_files.n; i++)
		if (!strcmp(bare, s->store_files.v[i]) || !strcmp(dst, s->store_files.v[i]))
			return true;
	return false;
}

/* What the init needs before the mount stays where it is: /init, the
 * modules that mount it, the module indexes, and busybox (the rescue
 * shell, even when the mount failed). */
static bool goes_in(const struct squash_plan *s, const char *dst, const char *src)
{
	const char *base = strrchr(dst, '/') + 1;

	if (!str_has_prefix(dst, "/usr/") || !plain_name(dst) || !plain_name(src) || !strcmp(base, "busybox"))
		return false;
	if (strstr(dst, "/lib/modules/") == dst + 4) {
		const char *rel = module_rel(dst);
		return rel && !strv_contains(&s->keep, rel);
	}
	return true;
}

static int pick_file(void *ctx, const char *dst, const char *src, mode_t mode, uint64_t size)
{
	struct pick *p = ctx;
	char *to;
	int r;

	(void)size;
	if (!stays_plain(p->s, dst, src)) {
		if (goes_in(p->s, dst, src)) {
			buf_printf(&p->pack, "file %s 0%o 0 0 %s\n", dst, (unsigned)(mode & 07777), src);
			strv_push(&p->moved, dst);
		}
		return 0;
	}
	to = xasprintf(LAYOUT_STORED_DIR "%s", dst);
	r = image_add_file(p->s->stored, to, src, mode & 07777, 0);
	free(to);
	if (r == 0)
		strv_push(&p->stored, dst);
	return r;
}

/* Each moved file's place in the main segment: a symlink to it in dir. */
static int leave_links(struct image *img, const struct strv *moved, const char *dir)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < moved->n; i++) {
		char *target = xasprintf("%s%s", dir, moved->v[i]);
		r = image_file_to_symlink(img, moved->v[i], target);
		free(target);
	}
	return r;
}

static int memfd(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	return fd < 0 ? err_errno(errno, "memfd_create") : fd;
}

static int run_gensquashfs(struct squash_plan *s, int packfd, int level, uint32_t mtime)
{
	char *pack = xasprintf("/dev/fd/%d", packfd), *out = xasprintf("/dev/fd/%d", s->fd);
	char *defaults = xasprintf("mtime=%u", mtime), *extra = NULL;
	const char *argv[24];
	const int keep[] = { packfd, s->fd };
	struct buf junk = { 0 };
	size_t n = 0;
	int r;

	argv[n++] = "gensquashfs";
	argv[n++] = "--quiet";
	argv[n++] = "--force";
	argv[n++] = "--all-root";
	argv[n++] = "--pack-dir=/";
	argv[n++] = "--pack-file";
	argv[n++] = pack;
	argv[n++] = "--defaults";
	argv[n++] = defaults;
	argv[n++] = "--block-size=" BLOCK_SIZE;
	/* two jobs and a short queue: the build's memory stays what
	 * the image's own compression takes */
	argv[n++] = "--num-jobs=2";
	argv[n++] = "--queue-backlog=4";
	argv[n++] = "--compressor";
	argv[n++] = s->comp;
	/* the image's level, or a default (gensquashfs's own are 15
	 * and 9: slow for what they gain) */
	if (!strcmp(s->comp, "zstd") || !strcmp(s->comp, "gzip")) {
		if (level < 0)
			level = !strcmp(s->comp, "zstd") ? SQUASH_ZSTD_DEFAULT_LEVEL : GZIP_DEFAULT_LEVEL;
		extra = xasprintf("level=%d", level ? level : 1);
		argv[n++] = "--comp-extra";
		argv[n++] = extra;
	}
	argv[n++] = out;
	argv[n] = NULL;
	r = run_tool_fds(argv, "squashfs-tools-ng", keep, ARRAY_SIZE(keep), 64 * 1024, &junk);
	buf_free(&junk);
	free(pack);
	free(out);
	free(defaults);
	free(extra);
	return r;
}

int squash_plan_build(struct squash_plan *s, struct image *img, enum compression c, int level, uint32_t mtime)
{
	struct pick p = { .s = s };
	struct stat st;
	int packfd = -1, r;

	(void)c;
	if (!s->on)
		return 0;
	s->stored = image_new();
	r = image_finalize(img);
	if (r == 0)
		r = image_each_host_file(img, pick_file, &p);
	if (r == 0 && !p.moved.n) {
		s->on = false;
		goto out;
	}
	if (r == 0 && (packfd = memfd("uniramfs-pack")) < 0)
		r = packfd;
	if (r == 0 && (s->fd = memfd("uniramfs.sqfs")) < 0)
		r = s->fd;
	if (r == 0 && (r = write_all(packfd, p.pack.p, p.pack.len)) < 0)
		r = err_errno(r, "writing the squashfs pack file");
	if (r == 0)
		r = run_gensquashfs(s, packfd, level, mtime);
	if (r == 0 && fstat(s->fd, &st) < 0)
		r = err_errno(errno, "the squashfs");
	if (r == 0 && st.st_size < 4096)
		r = err_set("gensquashfs wrote %lld bytes: not a squashfs", (long long)st.st_size);
	if (r == 0)
		r = leave_links(img, &p.moved, LAYOUT_SQUASH_DIR);
	if (r == 0)
		r = leave_links(img, &p.stored, LAYOUT_STORED_DIR);
	if (r == 0)
		r = image_add_dir(img, LAYOUT_SQUASH_DIR, 0755);
	if (r == 0) {
		s->size = (uint64_t)st.st_size;
		s->nfiles = p.moved.n;
		log_info("squashfs segment: %zu files, %llu bytes (%s), %zu stored beside it", s->nfiles,
			 (unsigned long long)s->size, s->comp, p.stored.n);
	}
out:
	if (packfd >= 0)
		close(packfd);
	buf_free(&p.pack);
	strv_free(&p.moved);
	strv_free(&p.stored);
	return r;
}

int squash_write_segment(const struct squash_plan *s, struct sink *out, uint32_t mtime)
{
	struct cpio_writer *w;
	struct cpio_entry e = {
		.name = LAYOUT_SQUASH_FILE + 1,
		.mode = S_IFREG | 0400,
		.nlink = 1,
		.mtime = mtime,
		.ino = 1,
		.size = s->size,
	};
	char chunk[1 << 16];
	uint64_t left = s->size;
	off_t off = 0;
	int r;

	if (!s->on)
		return 0;
	w = cpio_writer_new(out);
	r = cpio_write_begin(w, &e);
	while (r == 0 && left) {
		ssize_t n = pread(s->fd, chunk, left < sizeof(chunk) ? left : sizeof(chunk), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? err_errno(errno, "reading the squashfs") : err_set("the squashfs shrank");
			break;
		}
		r = cpio_write_data(w, chunk, (size_t)n);
		left -= (uint64_t)n;
		off += n;
	}
	if (r == 0)
		r = cpio_write_end(w);
	if (r == 0 && s->stored)
		r = image_write_cpio(s->stored, w, mtime);
	if (r == 0)
		r = cpio_write_trailer(w);
	cpio_writer_free(w);
	return r;
}
