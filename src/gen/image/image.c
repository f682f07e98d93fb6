// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/image/image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/host/sysroot.h"
#include "gen/image/image_hold.h"
#include "util.h"

enum kind { K_DIR, K_FILE, K_DATA, K_SYMLINK, K_NODE };

struct entry {
	char *path; /* absolute, normalised */
	enum kind kind;
	mode_t mode; /* type | perm */
	char *src;   /* K_FILE: host path; K_SYMLINK: target */
	char *data;  /* K_DATA */
	size_t len;
	/* K_DATA from image_add_buf: data is held (image_hold.c) until
	 * written, then freed; packed: held_len bytes of lz4 */
	bool release, packed;
	size_t held_len;
	unsigned major, minor;
	unsigned flags;
	struct entry *next; /* hash chain */
};

struct image {
	struct entry **table;
	size_t nbuckets, count;
};

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct image *image_new(void)
{
	struct image *img = xcalloc(1, sizeof(*img));
	img->nbuckets = 4096;
	img->table = xcalloc(img->nbuckets, sizeof(*img->table));
	return img;
}

static void entry_free(struct entry *e)
{
	free(e->path);
	free(e->src);
	free(e->data);
	free(e);
}

void image_free(struct image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->nbuckets; i++) {
		struct entry *e = img->table[i], *next;
		for (; e; e = next) {
			next = e->next;
			entry_free(e);
		}
	}
	free(img->table);
	free(img);
}

static struct entry *lookup(const struct image *img, const char *path)
{
	for (struct entry *e = img->table[hash(path) % img->nbuckets]; e; e = e->next)
		if (strcmp(e->path, path) == 0)
			return e;
	return NULL;
}

static void grow(struct image *img)
{
	size_t n = img->nbuckets * 4;
	struct entry **t = xcalloc(n, sizeof(*t));
	for (size_t i = 0; i < img->nbuckets; i++) {
		struct entry *e = img->table[i], *next;
		for (; e; e = next) {
			next = e->next;
			size_t b = hash(e->path) % n;
			e->next = t[b];
			t[b] = e;
		}
	}
	free(img->table);
	img->table = t;
	img->nbuckets = n;
}

static bool same(const struct entry *a, const struct entry *b)
{
	if (a->kind != b->kind || a->mode != b->mode)
		return false;
	switch (a->kind) {
	case K_DIR:
		return true;
	case K_FILE:
	case K_SYMLINK:
		return strcmp(a->src, b->src) == 0 && a->flags == b->flags;
	case K_DATA:
		return a->data && b->data && a->len == b->len && a->packed == b->packed &&
		       a->held_len == b->held_len && memcmp(a->data, b->data, a->packed ? a->held_len : a->len) == 0;
	case K_NODE:
		return a->major == b->major && a->minor == b->minor;
	}
	return false;
}

/* Put e (path already normalised) in the table, or merge it with the
 * entry already there. Takes ownership of e. */
static int table_put(struct image *img, struct entry *e)
{
	struct entry *old = lookup(img, e->path);

	if (old) {
		bool ok = same(old, e);
		/* A directory asked for twice with other permissions is not
		 * worth failing a build over: the first one wins. */
		if (!ok && old->kind == K_DIR && e->kind == K_DIR)
			ok = true;
		if (!ok)
			err_set("%s: added twice with different contents", e->path);
		entry_free(e);
		return ok ? 0 : err_code();
	}
	if (img->count > img->nbuckets)
		grow(img);
	size_t b = hash(e->path) % img->nbuckets;
	e->next = img->table[b];
	img->table[b] = e;
	img->count++;
	return 0;
}

/* Takes ownership of e. */
static int insert(struct image *img, struct entry *e)
{
	char *norm = path_normalize(e->path);

	free(e->path);
	e->path = norm;
	if (strcmp(norm, "/") == 0) {
		/* the root exists already; nothing else can take its place */
		bool dir = e->kind == K_DIR;
		entry_free(e);
		return dir ? 0 : err_set("/: the image's root is a directory");
	}
	return table_put(img, e);
}

/* Where path lands once the kernel, unpacking in order, has followed
 * the image's own symlinks: each directory component resolved through
 * them (lib/modules/x with lib -> usr/lib is usr/lib/modules/x), the last
 * one kept, since a link is written as itself. NULL + err_set on a loop. */
static char *canonical_path(const struct image *img, const char *path)
{
	char *cur = xstrdup(path);
	int hops = 0;

restart:
	for (char *slash = strchr(cur + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		const struct entry *e;
		char *next;

		*slash = '\0';
		e = lookup(img, cur);
		if (!e || e->kind != K_SYMLINK) {
			*slash = '/';
			continue;
		}
		if (++hops > 40) {
			err_set("%s: too many levels of symbolic links in the image", path);
			free(cur);
			return NULL;
		}
		*strrchr(cur, '/') = '\0';
		next = e->src[0] == '/' ? xasprintf("%s/%s", e->src, slash + 1)
					: xasprintf("%s/%s/%s", cur, e->src, slash + 1);
		free(cur);
		cur = path_normalize(next);
		free(next);
		goto restart;
	}
	return cur;
}

static struct entry *entry_new(const char *dst, enum kind kind, mode_t mode)
{
	struct entry *e = xcalloc(1, sizeof(*e));
	e->path = xstrdup(dst);
	e->kind = kind;
	e->mode = mode;
	return e;
}

int image_add_dir(struct image *img, const char *dst, mode_t perm)
{
	return insert(img, entry_new(dst, K_DIR, S_IFDIR | (perm & 07777)));
}

int image_add_file(struct image *img, const char *dst, const char *src, mode_t perm, unsigned flags)
{
	struct stat st;
	struct entry *e;

	if (stat(src, &st) < 0)
		return err_errno(errno, "%s", src);
	if (!S_ISREG(st.st_mode))
		return err_set("%s: not a regular file", src);
	if (access(src, R_OK) < 0)
		return err_errno(errno, "%s", src);
	e = entry_new(dst, K_FILE, S_IFREG | ((perm ? perm : st.st_mode) & 07777));
	e->src = xstrdup(src);
	e->len = (size_t)st.st_size;
	e->flags = flags;
	return insert(img, e);
}

int image_add_data(struct image *img, const char *dst, const void *data, size_t len, mode_t perm)
{
	struct entry *e = entry_new(dst, K_DATA, S_IFREG | (perm & 07777));
	e->data = xmalloc(len ? len : 1);
	memcpy(e->data, data, len);
	e->len = len;
	return insert(img, e);
}

int image_add_buf(struct image *img, const char *dst, struct buf *b, mode_t perm)
{
	struct entry *e = entry_new(dst, K_DATA, S_IFREG | (perm & 07777));
	struct buf held = { 0 };

	e->len = b->len;
	e->release = true;
	if (image_hold(b->p, b->len, &held, &e->packed) < 0) {
		entry_free(e);
		buf_free(b);
		return err_wrap("%s", dst);
	}
	if (e->packed) {
		buf_free(b);
		e->data = held.p;
		e->held_len = held.len;
	} else {
		/* held as it is: give back what the growth left over */
		e->data = b->len ? xrealloc(b->p, b->len) : (free(b->p), xmalloc(1));
		b->p = NULL;
	}
	b->len = b->cap = 0;
	return insert(img, e);
}

int image_add_symlink(struct image *img, const char *dst, const char *target)
{
	struct entry *e = entry_new(dst, K_SYMLINK, S_IFLNK | 0777);
	e->src = xstrdup(target);
	return insert(img, e);
}

int image_add_node(struct image *img, const char *dst, mode_t mode, unsigned major, unsigned minor)
{
	struct entry *e;
	if (!S_ISCHR(mode) && !S_ISBLK(mode))
		return err_set("%s: not a device node mode", dst);
	e = entry_new(dst, K_NODE, mode);
	e->major = major;
	e->minor = minor;
	return insert(img, e);
}

bool image_has(const struct image *img, const char *dst)
{
	char *norm = path_normalize(dst), *canon;
	bool r = lookup(img, norm) != NULL;

	/* lib/modules/x is there when usr/lib/modules/x is and lib -> usr/lib */
	if (!r && strcmp(norm, "/") != 0 && (canon = canonical_path(img, norm))) {
		r = lookup(img, canon) != NULL;
		free(canon);
	}
	free(norm);
	return r;
}

size_t image_count(const struct image *img)
{
	return img->count;
}

static int add_link(void *img, const char *link, const char *target)
{
	return image_add_symlink(img, link, target);
}

int image_add_host_path(struct image *img, const char *sysroot, const char *path, char **resolved)
{
	struct stat st;
	char *real, *host;
	int r;

	/* every link on the way goes in as a link, so /lib/x.so behind
	 * /lib -> usr/lib lands as the link plus /usr/lib/x.so */
	if (sysroot_resolve(sysroot, path, add_link, img, &real, &st) < 0)
		return err_code();
	host = path_join(sysroot, real);
	if (S_ISDIR(st.st_mode))
		r = image_add_dir(img, real, st.st_mode);
	else if (S_ISREG(st.st_mode))
		r = image_add_file(img, real, host, st.st_mode & 07777, 0);
	else
		r = err_set("%s: not a file, directory or symlink", host);
	free(host);
	if (r == 0 && resolved)
		*resolved = real;
	else
		free(real);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp((*(struct entry *const *)a)->path, (*(struct entry *const *)b)->path);
}

static struct entry **all_entries(const struct image *img, size_t *n)
{
	struct entry **v = xmalloc((img->count ? img->count : 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < img->nbuckets; i++)
		for (struct entry *e = img->table[i]; e; e = e->next)
			v[(*n)++] = e;
	qsort(v, *n, sizeof(*v), cmp_entry);
	return v;
}

/* Re-key every entry under its canonical path, so that no entry is
 * written through a link the image also holds: the kernel would follow
 * it, and `ls` and extract would show one file under two names. What
 * meets an entry already at its canonical path merges with it as a
 * second add would. Moving a link can uncover others behind it, so this
 * repeats until nothing moves. */
static int canonicalize(struct image *img)
{
	for (int pass = 0;; pass++) {
		size_t n, moved = 0, first = 0;
		struct entry **v = all_entries(img, &n);
		char **canon = xcalloc(n ? n : 1, sizeof(*canon));
		int r = 0;

		for (size_t i = 0; i < n && r == 0; i++) {
			canon[i] = canonical_path(img, v[i]->path);
			if (!canon[i])
				r = err_code();
			else if (strcmp(canon[i], v[i]->path) != 0 && !moved++)
				first = i;
		}
		if (r == 0 && moved && pass == 40)
			r = err_set("%s: too many levels of symbolic links in the image", v[first]->path);
		if (r < 0 || !moved) {
			for (size_t i = 0; i < n; i++)
				free(canon[i]);
			free(canon);
			free(v);
			return r;
		}
		/* the entries already in place first: they win a merge */
		memset(img->table, 0, img->nbuckets * sizeof(*img->table));
		img->count = 0;
		for (size_t i = 0; i < n; i++)
			if (strcmp(canon[i], v[i]->path) == 0)
				table_put(img, v[i]);
		for (size_t i = 0; i < n; i++) {
			if (strcmp(canon[i], v[i]->path) != 0) {
				free(v[i]->path);
				v[i]->path = canon[i];
				canon[i] = NULL;
				/* after a conflict, drop the rest: its message stands */
				if (r < 0)
					entry_free(v[i]);
				else
					r = table_put(img, v[i]);
			}
			free(canon[i]);
		}
		free(canon);
		free(v);
		if (r < 0)
			return r;
	}
}

/* Every parent must exist before its children: add the missing ones
 * as 0755 directories. */
static int add_parents(struct image *img)
{
	size_t n;
	/* a snapshot: adding parents may grow the table */
	struct entry **v = all_entries(img, &n);
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		char *p = xstrdup(v[i]->path);
		for (char *s = strrchr(p, '/'); s && s != p && r == 0; s = strrchr(p, '/')) {
			const struct entry *parent;
			*s = '\0';
			parent = lookup(img, p);
			if (parent && parent->kind != K_DIR)
				r = err_set("%s: below %s, which is not a directory in the image", v[i]->path, p);
			else if (parent)
				break;
			else
				r = image_add_dir(img, p, 0755);
		}
		free(p);
	}
	free(v);
	return r;
}

static int write_file(struct cpio_writer *w, struct cpio_entry *ce, const struct entry *e)
{
	char chunk[1 << 16];
	int fd, r = -1;
	uint64_t left = e->len;

	fd = open(e->src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_errno(errno, "%s", e->src);
	ce->size = e->len;
	if ((r = cpio_write_begin(w, ce)) < 0)
		goto out;
	while (left) {
		ssize_t n = read(fd, chunk, left < sizeof(chunk) ? left : sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? err_errno(errno, "%s", e->src) : err_set("%s: changed size while packing", e->src);
			goto out;
		}
		if ((r = cpio_write_data(w, chunk, (size_t)n)) < 0)
			goto out;
		left -= (uint64_t)n;
	}
	r = cpio_write_end(w);
out:
	close(fd);
	return r;
}

int image_finalize(struct image *img)
{
	if (canonicalize(img) < 0)
		return err_code();
	return add_parents(img);
}

int image_each_host_file(const struct image *img, image_file_fn fn, void *ctx)
{
	size_t n;
	struct entry **v = all_entries(img, &n);
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++)
		if (v[i]->kind == K_FILE)
			r = fn(ctx, v[i]->path, v[i]->src, v[i]->mode, v[i]->len);
	free(v);
	return r;
}

int image_file_to_symlink(struct image *img, const char *dst, const char *target)
{
	struct entry *e = lookup(img, dst);

	if (!e || e->kind != K_FILE)
		return err_set("%s: not a file in the image", dst);
	free(e->src);
	e->src = xstrdup(target);
	e->kind = K_SYMLINK;
	e->mode = S_IFLNK | 0777;
	e->len = 0;
	e->flags = 0;
	return 0;
}

int image_write_cpio(const struct image *img, struct cpio_writer *w, uint32_t mtime)
{
	struct image *all = (struct image *)img;
	struct entry **v;
	size_t n = 0;
	int r = 0;

	if (image_finalize(all) < 0)
		return err_code();
	v = all_entries(img, &n);
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct entry *e = v[i];
		struct cpio_entry ce = {
			.name = e->path + 1,
			.mode = e->mode,
			.nlink = e->kind == K_DIR ? 2 : 1,
			.mtime = mtime,
			.ino = (uint32_t)(i + 1),
			.rdev_major = e->major,
			.rdev_minor = e->minor,
		};
		switch (e->kind) {
		case K_DIR:
		case K_NODE:
			r = cpio_write(w, &ce, NULL);
			break;
		case K_SYMLINK:
			ce.size = strlen(e->src);
			r = cpio_write(w, &ce, e->src);
			break;
		case K_DATA:
			if (!e->data) {
				r = err_set("%s: written already: its contents were released", e->path);
				break;
			}
			ce.size = e->len;
			if (e->packed) {
				struct buf plain = { 0 };
				r = image_unhold(&(struct buf){ e->data, e->held_len, e->held_len }, e->len, &plain);
				r = r < 0 ? err_wrap("%s", e->path) : cpio_write(w, &ce, plain.p);
				buf_free(&plain);
			} else {
				r = cpio_write(w, &ce, e->data);
			}
			if (e->release) {
				free(v[i]->data);
				v[i]->data = NULL;
			}
			break;
		case K_FILE:
			r = write_file(w, &ce, e);
			break;
		}
	}
	free(v);
	return r;
}
