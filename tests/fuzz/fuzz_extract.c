// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: `uniramfs extract` of an untrusted image into a fresh
 * temporary directory, which is removed after each run. The first byte
 * picks --preserve, the rest is the image. Anything appearing outside
 * the directory (a sibling named "escaped" stands for the host) traps.
 * Each image is extracted twice, resolving with openat2 and with the
 * walk that stands in for it on older kernels: the two trees, results
 * and messages must be the same. */
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/read/extract_path.h"
#include "gen/compress/compress.h"
#include "gen/read/imagefile.h"
#include "log.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char base[64];

static void quiet(int level, const char *msg, void *userdata)
{
	(void)level;
	(void)msg;
	(void)userdata;
}

static void rm_rf(const char *path);

static void remove_base(void)
{
	rm_rf(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct image_limits l = image_default_limits;
	(void)argc;
	(void)argv;
	/* a small input may unpack hugely; keep inside the rss limit and
	 * the disk, and fast (as fuzz_image: 2 MiB in all, the ratio from
	 * 256 KiB, both refusals reachable) */
	l.max_total = 2u << 20;
	l.ratio_floor = 256u << 10;
	image_set_limits(&l);
	/* a 128 MiB zstd window or xz dictionary costs an ASan build its
	 * shadow memory's clearing twice per input: most of a run's time */
	decompress_set_memory(8u << 20);
	log_set_sink(quiet, NULL);
	/* every input is written out twice and removed: on tmpfs that
	 * costs memory, not disk I/O, several times faster */
	snprintf(base, sizeof(base), "%s/uniramfs-fuzz-extract.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(base))
		abort();
	atexit(remove_base);
	return 0;
}

/* A directory extracted 0555 or 0000 must become removable (without
 * root): open every directory up first, then remove depth first. */
static int open_up(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D || flag == FTW_DNR)
		chmod(path, 0700);
	(void)st;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

static void rm_rf(const char *path)
{
	chmod(path, 0700);
	nftw(path, open_up, 16, FTW_PHYS);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static struct strv *listing;
static size_t listing_skip;

static int list_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char target[256] = "";
	(void)flag;
	(void)ftw;
	if (S_ISLNK(st->st_mode) && readlink(path, target, sizeof(target) - 1) < 0)
		target[0] = '\0';
	strv_push_owned(listing, xasprintf("%s %o %lld %s", path + listing_skip, st->st_mode,
					   S_ISREG(st->st_mode) ? (long long)st->st_size : 0LL,
					   target));
	return 0;
}

static void list_tree(const char *path, struct strv *out)
{
	listing = out;
	listing_skip = strlen(path);
	nftw(path, list_one, 16, FTW_PHYS);
	strv_sort_uniq(out);
}

/* Extract into dir with one way of resolving; the tree's listing in
 * *tree, the result and message in *result. */
static void extract_one(const char *img, const char *dir, unsigned flags, bool walk,
			struct strv *tree, char **result)
{
	int r;

	extract_path_force_walk(walk);
	r = image_extract(img, dir, flags);
	*result = xasprintf("%d %s", r, r < 0 ? err_msg() : "");
	list_tree(dir, tree);
	rm_rf(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strv t1 = { 0 }, t2 = { 0 };
	char *r1, *r2;
	char img[96], out[96], escaped[96];
	struct stat st;
	int fd;

	if (size < 1)
		return 0;
	snprintf(img, sizeof(img), "%s/img", base);
	snprintf(out, sizeof(out), "%s/out", base);
	snprintf(escaped, sizeof(escaped), "%s/escaped", base);
	fd = open(img, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, data + 1, size - 1) < 0)
		abort();
	close(fd);
	extract_one(img, out, data[0] & 1 ? EXTRACT_PRESERVE : 0, false, &t1, &r1);
	extract_one(img, out, data[0] & 1 ? EXTRACT_PRESERVE : 0, true, &t2, &r2);
	if (strcmp(r1, r2) != 0 || t1.n != t2.n) {
		fprintf(stderr, "openat2: %s (%zu paths)\nwalk:    %s (%zu paths)\n", r1, t1.n,
			r2, t2.n);
		__builtin_trap();
	}
	for (size_t i = 0; i < t1.n; i++)
		if (strcmp(t1.v[i], t2.v[i]) != 0) {
			fprintf(stderr, "openat2: %s\nwalk:    %s\n", t1.v[i], t2.v[i]);
			__builtin_trap();
		}
	strv_free(&t1);
	strv_free(&t2);
	free(r1);
	free(r2);
	/* nothing but the image and the (removed) target may be there */
	if (lstat(escaped, &st) == 0 || lstat("/escaped", &st) == 0)
		__builtin_trap();
	unlink(img);
	return 0;
}
