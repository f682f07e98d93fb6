// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading initramfs images made by anyone, walked the way the kernel's
 * unpack_to_rootfs() walks them: NUL bytes between members are skipped,
 * a plain cpio archive is read in place, anything else is one compressed
 * stream whose content is one or more cpio archives. */
#include "imagefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "err.h"
#include "log.h"
#include "util.h"

struct segment {
	unsigned n;
	enum compression c;
	size_t offset;     /* in the image */
	size_t size;       /* bytes of the image it spans */
	size_t unpacked;   /* cpio bytes */
	unsigned entries;
};

typedef int (*segment_fn)(const struct segment *s, void *userdata);

struct walk {
	image_entry_fn entry;
	segment_fn done;
	void *userdata;
};

/* Every archive in buf[0..len) (only the first if one), NUL padding
 * allowed between them, nothing else: what the kernel's cpio state
 * machine accepts inside one decompressed stream. */
static int walk_archives(const uint8_t *buf, size_t len, bool one, size_t *used,
			 struct segment *seg, const struct walk *w)
{
	size_t off = 0;

	for (;;) {
		struct cpio_reader r;
		struct cpio_entry e;
		const uint8_t *data;
		int rc;

		while (!one && off < len && buf[off] == '\0')
			off++;
		if (off == len)
			break;
		cpio_reader_init(&r, buf + off, len - off);
		while ((rc = cpio_read_next(&r, &e, &data)) > 0) {
			seg->entries++;
			if (w->entry && w->entry(seg->n, seg->c, &e, data, w->userdata) < 0) {
				cpio_reader_free(&r);
				return -1;
			}
		}
		cpio_reader_free(&r);
		if (rc < 0)
			return err_wrap("segment %u (%s) at offset %zu: archive at %zu", seg->n,
					compression_name(seg->c), seg->offset, off);
		off += r.off;
		if (one)
			break;
	}
	*used = off;
	return 0;
}

static int walk_image(const uint8_t *buf, size_t len, const struct walk *w)
{
	size_t off = 0;
	unsigned n = 0;

	while (off < len) {
		struct segment seg = { 0 };
		size_t used;

		if (buf[off] == '\0') {
			off++;
			continue;
		}
		seg.n = ++n;
		seg.offset = off;
		seg.c = compression_detect(buf + off, len - off);
		if (seg.c == COMP_UNKNOWN) {
			return err_set("offset %zu: neither a cpio archive nor a known compression "
				       "(starts with %02x %02x %02x %02x)", off, buf[off],
				       len - off > 1 ? buf[off + 1] : 0, len - off > 2 ? buf[off + 2] : 0,
				       len - off > 3 ? buf[off + 3] : 0);
		} else if (seg.c == COMP_NONE) {
			if (walk_archives(buf + off, len - off, true, &used, &seg, w) < 0)
				return -1;
			seg.unpacked = used;
		} else {
			struct buf out = { 0 };
			size_t ignored;
			int r;

			if (decompress_buf(seg.c, buf + off, len - off, &out, &used) < 0) {
				buf_free(&out);
				return err_wrap("segment %u at offset %zu", seg.n, off);
			}
			seg.unpacked = out.len;
			r = walk_archives((const uint8_t *)out.p, out.len, false, &ignored, &seg, w);
			buf_free(&out);
			if (r < 0)
				return -1;
			if (!seg.entries)
				return err_set("segment %u (%s) at offset %zu: no cpio archive inside",
					       seg.n, compression_name(seg.c), off);
		}
		seg.size = used;
		off += used;
		if (w->done && w->done(&seg, w->userdata) < 0)
			return -1;
	}
	if (!n)
		return err_set("no cpio archive in the image (%zu bytes, all zero)", len);
	return 0;
}

int image_foreach_buf(const uint8_t *buf, size_t len, image_entry_fn fn, void *userdata)
{
	struct walk w = { .entry = fn, .userdata = userdata };
	return walk_image(buf, len, &w);
}

static int walk_file(const char *path, const struct walk *w)
{
	char *data;
	size_t len;
	int r = read_file(path, &data, &len);

	if (r < 0)
		return err_errno(r, "%s", path);
	r = walk_image((const uint8_t *)data, len, w);
	free(data);
	return r < 0 ? err_wrap("%s", path) : 0;
}

int image_foreach(const char *path, image_entry_fn fn, void *userdata)
{
	struct walk w = { .entry = fn, .userdata = userdata };
	return walk_file(path, &w);
}

/* ---- ls ---- */

struct ls {
	FILE *out;
	struct buf lines; /* the current segment's entries, printed under its header */
	uint64_t total_entries;
	unsigned segments;
};

static void mode_string(uint32_t mode, char s[11])
{
	static const char rwx[] = "rwxrwxrwx";
	switch (mode & S_IFMT) {
	case S_IFDIR: s[0] = 'd'; break;
	case S_IFLNK: s[0] = 'l'; break;
	case S_IFCHR: s[0] = 'c'; break;
	case S_IFBLK: s[0] = 'b'; break;
	case S_IFIFO: s[0] = 'p'; break;
	case S_IFSOCK: s[0] = 's'; break;
	case S_IFREG: s[0] = '-'; break;
	default: s[0] = '?'; break;
	}
	for (int i = 0; i < 9; i++)
		s[i + 1] = mode & (0400u >> i) ? rwx[i] : '-';
	if (mode & S_ISUID)
		s[3] = s[3] == 'x' ? 's' : 'S';
	if (mode & S_ISGID)
		s[6] = s[6] == 'x' ? 's' : 'S';
	if (mode & S_ISVTX)
		s[9] = s[9] == 'x' ? 't' : 'T';
	s[10] = '\0';
}

/* Names come from untrusted images: keep control characters off the
 * terminal. */
static void append_name(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			buf_printf(b, "\\x%02x", c);
		else
			buf_append(b, &s[i], 1);
	}
}

static int ls_entry(unsigned segment, enum compression c, const struct cpio_entry *e,
		    const uint8_t *data, void *userdata)
{
	struct ls *ls = userdata;
	char mode[11];
	(void)segment;
	(void)c;

	mode_string(e->mode, mode);
	if (S_ISCHR(e->mode) || S_ISBLK(e->mode))
		buf_printf(&ls->lines, "%s %4u,%5u ", mode, e->rdev_major, e->rdev_minor);
	else
		buf_printf(&ls->lines, "%s %10llu ", mode, (unsigned long long)e->size);
	append_name(&ls->lines, e->name, strlen(e->name));
	if (S_ISLNK(e->mode)) {
		buf_append(&ls->lines, " -> ", 4);
		append_name(&ls->lines, (const char *)data, (size_t)e->size);
	}
	buf_append(&ls->lines, "\n", 1);
	return 0;
}

static int ls_segment(const struct segment *s, void *userdata)
{
	struct ls *ls = userdata;

	fprintf(ls->out, "segment %u: %s, %u entries, %zu bytes at offset %zu", s->n,
		compression_name(s->c), s->entries, s->size, s->offset);
	if (s->c != COMP_NONE)
		fprintf(ls->out, ", unpacks to %zu bytes (%.1f%%)", s->unpacked,
			s->unpacked ? 100.0 * (double)s->size / (double)s->unpacked : 0.0);
	fputc('\n', ls->out);
	if (ls->lines.len)
		fwrite(ls->lines.p, 1, ls->lines.len, ls->out);
	ls->lines.len = 0;
	ls->total_entries += s->entries;
	ls->segments++;
	return 0;
}

int image_ls(const char *path, FILE *out)
{
	struct ls ls = { .out = out };
	struct walk w = { .entry = ls_entry, .done = ls_segment, .userdata = &ls };
	int r = walk_file(path, &w);

	buf_free(&ls.lines);
	if (r < 0)
		return -1;
	fprintf(out, "%u segment%s, %llu entries\n", ls.segments, ls.segments == 1 ? "" : "s",
		(unsigned long long)ls.total_entries);
	if (fflush(out) != 0 || ferror(out))
		return err_errno(errno, "writing the listing");
	return 0;
}

/* ---- extract ---- */

struct extract {
	const char *image;
	int root;
	struct strv dirs; /* "MODE MTIME UID GID path" of directories, fixed up at the end */
	struct strv links; /* "SEGMENT INO MODE path" of the first name of a hard link */
};

/* Split a member name into components inside the target: leading "/" and
 * "./" and empty or "." components go, ".." is refused so that nothing
 * can name a place above the target. */
static int split_name(const char *name, struct strv *comps)
{
	strv_split(comps, name, "/");
	for (size_t i = 0; i < comps->n;) {
		if (strcmp(comps->v[i], "..") == 0)
			return err_set("refusing entry \"%s\": it has a \"..\" component", name);
		if (strcmp(comps->v[i], ".") == 0) {
			free(comps->v[i]);
			memmove(&comps->v[i], &comps->v[i + 1], (comps->n - i) * sizeof(char *));
			comps->n--;
			continue;
		}
		i++;
	}
	return 0;
}

static char *join(const struct strv *comps, size_t n)
{
	struct buf b = { 0 };
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? "/" : "", comps->v[i]);
	if (!b.p)
		buf_append(&b, "", 0);
	return b.p;
}

static int refuse_symlink(const char *name, const struct strv *comps,
			  size_t n)
{
	char *p = join(comps, n);
	err_set("refusing entry \"%s\": would write through the symlink \"%s\"", name, p);
	free(p);
	return -1;
}

/* Open the first n components as directories below the target, creating
 * the missing ones; no symlink is ever followed (O_NOFOLLOW on each
 * step), so nothing can resolve outside. */
static int open_dirs(const struct extract *x, const char *name, const struct strv *comps,
		     size_t n)
{
	int fd = fcntl(x->root, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return err_errno(errno, "dup");
	for (size_t i = 0; i < n; i++) {
		const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
		int next = openat(fd, comps->v[i], flags);
		if (next < 0 && errno == ENOENT) {
			if (mkdirat(fd, comps->v[i], 0755) < 0 && errno != EEXIST)
				goto fail;
			next = openat(fd, comps->v[i], flags);
		}
		if (next < 0) {
			struct stat st;
			int e;
fail:
			e = errno;
			if (fstatat(fd, comps->v[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode)) {
				close(fd);
				return refuse_symlink(name, comps, i + 1);
			}
			close(fd);
			char *p = join(comps, i + 1);
			err_errno(e, "entry \"%s\": directory %s", name, p);
			free(p);
			return -1;
		}
		close(fd);
		fd = next;
	}
	return fd;
}

/* What is at the path now, if anything: a symlink there is refused, an
 * old non-directory is replaced as the kernel replaces it. */
static int clear_path(const char *name, const struct strv *comps,
		      int dirfd, const char *last, bool want_dir, bool *exists_dir)
{
	struct stat st;

	*exists_dir = false;
	if (fstatat(dirfd, last, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return err_errno(errno, "entry \"%s\"", name);
	}
	if (S_ISLNK(st.st_mode) && !want_dir)
		return 0; /* replaced below, never written through */
	if (S_ISLNK(st.st_mode))
		return refuse_symlink(name, comps, comps->n);
	if (S_ISDIR(st.st_mode)) {
		if (want_dir) {
			*exists_dir = true;
			return 0;
		}
		return err_set("entry \"%s\": a directory is already at that path", name);
	}
	if (unlinkat(dirfd, last, 0) < 0)
		return err_errno(errno, "entry \"%s\": removing the old file", name);
	return 0;
}

/* The first name of a hard-linked file seen in this segment, if any.
 * newc repeats the header for every name and carries the data once
 * (with the last); the kernel links later names to the first. */
static const char *first_link(const struct extract *x, unsigned segment,
			      const struct cpio_entry *e)
{
	char *key = xasprintf("%u %u %o ", segment, e->ino, e->mode);
	const char *found = NULL;
	for (size_t i = 0; i < x->links.n && !found; i++)
		if (str_has_prefix(x->links.v[i], key))
			found = x->links.v[i] + strlen(key);
	free(key);
	return found;
}

static int link_to_first(const struct extract *x, const struct cpio_entry *e, const char *old,
			 int dirfd, const char *last)
{
	struct strv comps = { 0 };
	int olddir, r;

	strv_split(&comps, old, "/");
	olddir = open_dirs(x, e->name, &comps, comps.n - 1);
	if (olddir < 0) {
		strv_free(&comps);
		return -1;
	}
	/* linkat without AT_SYMLINK_FOLLOW links the name itself */
	r = linkat(olddir, comps.v[comps.n - 1], dirfd, last, 0);
	close(olddir);
	strv_free(&comps);
	if (r < 0)
		return err_errno(errno, "entry \"%s\": linking to \"%s\"", e->name, old);
	return 0;
}

static int write_file(const struct cpio_entry *e, const uint8_t *data, int dirfd,
		      const char *last, bool linked)
{
	int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (linked ? 0 : O_CREAT | O_EXCL);
	int fd = openat(dirfd, last, flags, 0600);
	int r;

	if (fd < 0)
		return err_errno(errno, "entry \"%s\"", e->name);
	r = write_all(fd, data, (size_t)e->size);
	/* chown clears set-id bits: owner first, then the mode */
	if (r == 0 && geteuid() == 0 && fchown(fd, e->uid, e->gid) < 0)
		r = -errno;
	if (r == 0 && fchmod(fd, e->mode & 07777) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r < 0 ? err_errno(r, "entry \"%s\"", e->name) : 0;
}

static int extract_entry(unsigned segment, enum compression c, const struct cpio_entry *e,
			 const uint8_t *data, void *userdata)
{
	struct extract *x = userdata;
	struct strv comps = { 0 };
	const char *last;
	bool is_dir = S_ISDIR(e->mode), exists_dir;
	int dirfd = -1, r = -1;
	(void)c;

	if (split_name(e->name, &comps) < 0)
		goto out;
	if (!comps.n) { /* "." or "/": the target itself, left as the user made it */
		r = 0;
		goto out;
	}
	dirfd = open_dirs(x, e->name, &comps, comps.n - 1);
	if (dirfd < 0)
		goto out;
	last = comps.v[comps.n - 1];
	/* A file, node or link entry over an existing symlink would follow
	 * it when created, so an archive could plant "x -> /etc" and then
	 * write "x": refused. */
	if (!is_dir) {
		struct stat st;
		if (fstatat(dirfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
		    !S_ISLNK(e->mode)) {
			refuse_symlink(e->name, &comps, comps.n);
			goto out;
		}
	}
	if (clear_path(e->name, &comps, dirfd, last, is_dir, &exists_dir) < 0)
		goto out;

	switch (e->mode & S_IFMT) {
	case S_IFDIR:
		if (!exists_dir && mkdirat(dirfd, last, 0700) < 0) {
			err_errno(errno, "entry \"%s\"", e->name);
			goto out;
		}
		/* Modes of directories are set last, so a read-only one can
		 * still receive its content. */
		{
			char *p = join(&comps, comps.n);
			strv_push_owned(&x->dirs, xasprintf("%o %u %u %u %s", e->mode & 07777,
							    e->mtime, e->uid, e->gid, p));
			free(p);
		}
		r = 0;
		goto out;
	case S_IFREG: {
		const char *old = e->nlink > 1 ? first_link(x, segment, e) : NULL;
		if (old && link_to_first(x, e, old, dirfd, last) < 0)
			goto out;
		if (write_file(e, data, dirfd, last, old != NULL) < 0)
			goto out;
		if (e->nlink > 1 && !old) {
			char *p = join(&comps, comps.n);
			strv_push_owned(&x->links, xasprintf("%u %u %o %s", segment, e->ino,
							     e->mode, p));
			free(p);
		}
		break;
	}
	case S_IFLNK: {
		char *target = xstrndup((const char *)data, (size_t)e->size);
		if (S_ISLNK(e->mode) && unlinkat(dirfd, last, 0) < 0 && errno != ENOENT) {
			free(target);
			err_errno(errno, "entry \"%s\"", e->name);
			goto out;
		}
		r = symlinkat(target, dirfd, last);
		free(target);
		if (r < 0) {
			err_errno(errno, "entry \"%s\"", e->name);
			goto out;
		}
		break;
	}
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		if (mknodat(dirfd, last, e->mode & (S_IFMT | 07777),
			    makedev(e->rdev_major, e->rdev_minor)) < 0) {
			if (errno == EPERM && !S_ISFIFO(e->mode)) {
				log_warn("entry \"%s\": cannot create a device node without "
					 "privilege, skipped", e->name);
				r = 0;
				goto out;
			}
			err_errno(errno, "entry \"%s\"", e->name);
			goto out;
		}
		break;
	default:
		err_set("entry \"%s\": unknown file type %06o", e->name, e->mode);
		goto out;
	}

	/* Owner (as root), then mode and mtime, on the entry itself, never
	 * on what a link points to. */
	if (!S_ISREG(e->mode) && geteuid() == 0 &&
	    fchownat(dirfd, last, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) < 0) {
		err_errno(errno, "entry \"%s\": chown", e->name);
		goto out;
	}
	if (!S_ISLNK(e->mode) && !S_ISREG(e->mode) &&
	    fchmodat(dirfd, last, e->mode & 07777, AT_SYMLINK_NOFOLLOW) < 0) {
		err_errno(errno, "entry \"%s\": chmod", e->name);
		goto out;
	}
	{
		struct timespec ts[2] = { { .tv_sec = e->mtime }, { .tv_sec = e->mtime } };
		utimensat(dirfd, last, ts, AT_SYMLINK_NOFOLLOW);
	}
	r = 0;
out:
	if (dirfd >= 0)
		close(dirfd);
	strv_free(&comps);
	return r;
}

static int fix_dirs(struct extract *x)
{
	/* Deepest first, so setting a parent's mtime is the last change in it. */
	for (size_t i = x->dirs.n; i-- > 0;) {
		unsigned mode, mtime, uid, gid;
		int n = 0, fd;
		struct strv comps = { 0 };

		if (sscanf(x->dirs.v[i], "%o %u %u %u %n", &mode, &mtime, &uid, &gid, &n) < 4 || !n)
			continue;
		strv_split(&comps, x->dirs.v[i] + n, "/");
		fd = open_dirs(x, x->dirs.v[i] + n, &comps, comps.n);
		strv_free(&comps);
		if (fd < 0)
			return err_wrap("%s", x->image);
		struct timespec ts[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
		if ((geteuid() == 0 && fchown(fd, uid, gid) < 0) || fchmod(fd, mode) < 0 ||
		    futimens(fd, ts) < 0) {
			int e = errno;
			close(fd);
			return err_errno(e, "%s: directory %s", x->image, x->dirs.v[i] + n);
		}
		close(fd);
	}
	return 0;
}

int image_extract(const char *path, const char *dir)
{
	struct extract x = { .image = path };
	struct walk w = { .entry = extract_entry, .userdata = &x };
	int r;

	r = mkdir_p(dir, 0755);
	if (r < 0)
		return err_errno(r, "%s", dir);
	x.root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x.root < 0)
		return err_errno(errno, "%s", dir);
	r = walk_file(path, &w);
	if (r == 0)
		r = fix_dirs(&x);
	close(x.root);
	strv_free(&x.dirs);
	strv_free(&x.links);
	return r;
}
