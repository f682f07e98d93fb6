// SPDX-License-Identifier: GPL-2.0-or-later
#include "image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compress.h"
#include "err.h"
#include "sysroot.h"
#include "util.h"

enum kind { K_DIR, K_FILE, K_DATA, K_SYMLINK, K_NODE };

struct entry {
	char *path; /* absolute, normalised */
	enum kind kind;
	mode_t mode; /* type | perm */
	char *src;   /* K_FILE: host path; K_SYMLINK: target */
	char *data;  /* K_DATA */
	size_t len;
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
		return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
	case K_NODE:
		return a->major == b->major && a->minor == b->minor;
	}
	return false;
}

/* Takes ownership of e. */
static int insert(struct image *img, struct entry *e)
{
	char *norm = path_normalize(e->path);
	struct entry *old;

	free(e->path);
	e->path = norm;
	if (strcmp(norm, "/") == 0) {
		entry_free(e);
		return 0;
	}
	old = lookup(img, norm);
	if (old) {
		bool ok = same(old, e);
		/* A directory asked for twice with other permissions is not
		 * worth failing a build over: the first one wins. */
		if (!ok && old->kind == K_DIR && e->kind == K_DIR)
			ok = true;
		entry_free(e);
		return ok ? 0 : err_set("%s: added twice with different contents", norm);
	}
	if (img->count > img->nbuckets)
		grow(img);
	size_t b = hash(norm) % img->nbuckets;
	e->next = img->table[b];
	img->table[b] = e;
	img->count++;
	return 0;
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
	char *norm = path_normalize(dst);
	bool r = lookup(img, norm) != NULL;
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
		return -1;
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

/* Does path lie below a symlink of the image ("lib/modules/x" with
 * lib -> usr/lib)? */
static bool below_symlink(const struct image *img, const char *path)
{
	char *p = xstrdup(path);
	bool r = false;

	for (char *s = strrchr(p, '/'); s && s != p && !r; s = strrchr(p, '/')) {
		const struct entry *e;
		*s = '\0';
		e = lookup(img, p);
		r = e && e->kind == K_SYMLINK;
	}
	free(p);
	return r;
}

static int write_file(struct cpio_writer *w, struct cpio_entry *ce, const struct entry *e)
{
	char chunk[1 << 16];
	int fd, r = -1;
	uint64_t left = e->len;

	if (e->flags & IMG_DECOMPRESS) {
		struct buf b = { 0 };
		if (decompress_file(e->src, &b) < 0) {
			buf_free(&b);
			return err_wrap("%s", e->src);
		}
		ce->size = b.len;
		r = cpio_write(w, ce, b.p);
		buf_free(&b);
		return r;
	}
	fd = open(e->src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_errno(errno, "%s", e->src);
	ce->size = e->len;
	if (cpio_write_begin(w, ce) < 0)
		goto out;
	while (left) {
		ssize_t n = read(fd, chunk, left < sizeof(chunk) ? left : sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? err_errno(errno, "%s", e->src) : err_set("%s: changed size while packing", e->src);
			goto out;
		}
		if (cpio_write_data(w, chunk, (size_t)n) < 0)
			goto out;
		left -= (uint64_t)n;
	}
	r = cpio_write_end(w);
out:
	close(fd);
	return r;
}

int image_write_cpio(const struct image *img, struct cpio_writer *w, uint32_t mtime)
{
	struct image *all = (struct image *)img;
	struct entry **v;
	size_t n = 0;
	int r = 0;

	/* Every parent must exist before its children: add the missing
	 * ones as 0755 directories. */
	for (size_t i = 0; i < img->nbuckets; i++)
		for (struct entry *e = img->table[i]; e; e = e->next) {
			char *p = xstrdup(e->path);
			for (char *s = strrchr(p, '/'); s && s != p; s = strrchr(p, '/')) {
				*s = '\0';
				if (lookup(all, p))
					break;
				if (image_add_dir(all, p, 0755) < 0) {
					free(p);
					return -1;
				}
			}
			free(p);
		}
	v = xmalloc(img->count * sizeof(*v));
	for (size_t i = 0; i < img->nbuckets; i++)
		for (struct entry *e = img->table[i]; e; e = e->next)
			v[n++] = e;
	qsort(v, n, sizeof(*v), cmp_entry);
	/* The kernel unpacks in order and follows a symlink met in a path:
	 * what lies below one ("lib/modules/..." with lib -> usr/lib) goes
	 * last, once the link's target ("usr/lib") exists. */
	{
		struct entry **later = xmalloc((n ? n : 1) * sizeof(*later));
		size_t k = 0, nl = 0;
		for (size_t i = 0; i < n; i++) {
			if (below_symlink(img, v[i]->path))
				later[nl++] = v[i];
			else
				v[k++] = v[i];
		}
		memcpy(v + k, later, nl * sizeof(*later));
		free(later);
	}

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
			ce.size = e->len;
			r = cpio_write(w, &ce, e->data);
			break;
		case K_FILE:
			r = write_file(w, &ce, e);
			break;
		}
	}
	free(v);
	return r;
}
