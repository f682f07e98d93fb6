// SPDX-License-Identifier: GPL-2.0-or-later
/* `uniramfs extract`: unpack an image into a directory, as root, from an
 * image nobody vouches for. Every path is resolved inside the target as
 * if it were "/" (extract_path.c); the last component of an entry is
 * never followed; a file is only ever written after fstat shows it is
 * the regular file this run made; device nodes, set-id bits and owners
 * need --preserve. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "err.h"
#include "gen/read/extract_path.h"
#include "gen/read/image_read.h"
#include "gen/read/imagefile.h"
#include "log.h"
#include "nameset.h"
#include "util.h"

/* The first name of a hard-linked file, as made: later names are linked
 * to it only while it is still that file. */
struct link {
	char *path;
	dev_t dev;
	ino_t ino;
};

/* A directory whose mode, owner and mtime are set at the end, so that a
 * read-only one can still receive its content. */
struct dirfix {
	char *path;
	uint32_t mode, mtime, uid, gid;
	dev_t dev;
	ino_t ino;
};

struct extract {
	const char *image;
	int root;
	bool preserve;
	bool nodes_quiet; /* EXTRACT_NODES_ELSEWHERE */
	struct dirfix *dirs;
	size_t ndirs, dirs_cap;
	struct nameset links; /* "ARCHIVE INO MODE" -> struct link */
};

/* The entry being made: its parent directory, resolved inside the
 * target, and the name made there. */
struct target {
	const struct cpio_entry *e;
	struct strv comps;
	int dirfd;
	const char *last;
};

static uint32_t entry_mode(const struct extract *x, const struct cpio_entry *e)
{
	return e->mode & (x->preserve ? 07777 : 01777);
}

static int refuse_symlink(const char *name, const struct strv *comps, size_t n)
{
	char *p = comps_join(comps, n);
	err_set("refusing entry \"%s\": would write through the symlink \"%s\"", name, p);
	free(p);
	return err_code();
}

/* Open (making what is missing) the first n components step by step,
 * which also names the component at fault. A symlink on the way that
 * leads to no directory inside the target is refused rather than made
 * good: the kernel would not create its target either. */
static int make_parents(const struct extract *x, const char *name, const struct strv *comps,
			size_t n)
{
	int fd = fcntl(x->root, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return err_errno(errno, "dup");
	for (size_t i = 0; i < n; i++) {
		char *p = comps_join(comps, i + 1);
		int next = open_dir_in_root(x->root, p);
		struct stat st;

		if (next == -ENOENT) {
			if (mkdirat(fd, comps->v[i], 0755) == 0)
				next = open_dir_in_root(x->root, p);
			else if (errno != EEXIST)
				next = -errno;
		}
		if (next < 0) {
			if (fstatat(fd, comps->v[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				err_set("refusing entry \"%s\": the symlink \"%s\" leads to no "
					"directory inside the target", name, p);
			else
				err_errno(next, "entry \"%s\": directory %s", name, p);
			free(p);
			close(fd);
			return err_code();
		}
		free(p);
		close(fd);
		fd = next;
	}
	return fd;
}

static int open_parent(const struct extract *x, const char *name, const struct strv *comps,
		       size_t n)
{
	char *p = comps_join(comps, n);
	int fd = open_dir_in_root(x->root, p);

	free(p);
	return fd >= 0 ? fd : make_parents(x, name, comps, n);
}

/* What is at the name now, if anything: a symlink is replaced only by a
 * symlink and otherwise refused, an old non-directory is replaced as the
 * kernel replaces it, a directory stays. */
static int clear_last(const struct target *t, bool *exists_dir)
{
	const char *name = t->e->name;
	struct stat st;

	*exists_dir = false;
	if (fstatat(t->dirfd, t->last, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return err_errno(errno, "entry \"%s\"", name);
	}
	if (S_ISLNK(st.st_mode) && !S_ISLNK(t->e->mode))
		return refuse_symlink(name, &t->comps, t->comps.n);
	if (S_ISDIR(st.st_mode)) {
		if (S_ISDIR(t->e->mode)) {
			*exists_dir = true;
			return 0;
		}
		return err_set("entry \"%s\": a directory is already at that path", name);
	}
	if (unlinkat(t->dirfd, t->last, 0) < 0)
		return err_errno(errno, "entry \"%s\": removing the old file", name);
	return 0;
}

static int make_dir(struct extract *x, const struct target *t, bool exists)
{
	const struct cpio_entry *e = t->e;
	struct stat st;
	struct dirfix *d;

	if (!exists && mkdirat(t->dirfd, t->last, 0700) < 0)
		return err_errno(errno, "entry \"%s\"", e->name);
	if (fstatat(t->dirfd, t->last, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno(errno, "entry \"%s\"", e->name);
	ARRAY_GROW(x->dirs, x->dirs_cap, x->ndirs + 1);
	d = &x->dirs[x->ndirs++];
	*d = (struct dirfix){ .path = comps_join(&t->comps, t->comps.n), .mode = entry_mode(x, e),
			      .mtime = e->mtime, .uid = e->uid, .gid = e->gid,
			      .dev = st.st_dev, .ino = st.st_ino };
	return 0;
}

static bool same_file(const struct stat *st, const struct link *l)
{
	return S_ISREG(st->st_mode) && st->st_dev == l->dev && st->st_ino == l->ino;
}

/* A later name of a hard-linked file: linked to the first name only if
 * that is still the regular file made for it (an entry in between may
 * have put a device or FIFO there), then opened without following or
 * blocking and checked again before anything is written. Returns an fd
 * on the emptied file, as the kernel truncates it. */
static int link_to_first(const struct extract *x, const struct target *t, const struct link *l)
{
	const char *name = t->e->name;
	struct strv old = { 0 };
	struct stat st;
	bool replaced;
	int olddir, fd, r;

	name_split(l->path, &old);
	olddir = open_parent(x, name, &old, old.n - 1);
	if (olddir < 0) {
		strv_free(&old);
		return olddir;
	}
	r = fstatat(olddir, old.v[old.n - 1], &st, AT_SYMLINK_NOFOLLOW);
	replaced = r < 0 || !same_file(&st, l);
	/* without AT_SYMLINK_FOLLOW linkat links the name itself */
	if (!replaced && linkat(olddir, old.v[old.n - 1], t->dirfd, t->last, 0) < 0)
		r = -errno;
	close(olddir);
	strv_free(&old);
	if (replaced)
		return err_set("refusing entry \"%s\": \"%s\", the name it is a hard link to, "
			       "was replaced by another entry", name, l->path);
	if (r < 0)
		return err_errno(r, "entry \"%s\": linking to \"%s\"", name, l->path);
	fd = openat(t->dirfd, t->last, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return err_errno(errno, "entry \"%s\"", name);
	if (fstat(fd, &st) < 0 || !same_file(&st, l)) {
		close(fd);
		return err_set("refusing entry \"%s\": not the file linked to \"%s\"", name,
			       l->path);
	}
	if (ftruncate(fd, 0) < 0) {
		r = errno;
		close(fd);
		return err_errno(r, "entry \"%s\"", name);
	}
	return fd;
}

/* A new name: made here (O_EXCL, so nothing that was there is opened),
 * and remembered if more names of it may follow. */
static int create_file(struct extract *x, const struct target *t, const char *key)
{
	int fd = openat(t->dirfd, t->last,
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	struct stat st;
	struct link *l;

	if (fd < 0)
		return err_errno(errno, "entry \"%s\"", t->e->name);
	if (!key)
		return fd;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return err_errno(e, "entry \"%s\"", t->e->name);
	}
	l = xmalloc(sizeof(*l));
	*l = (struct link){ comps_join(&t->comps, t->comps.n), st.st_dev, st.st_ino };
	if (!nameset_put(&x->links, key, l)) {
		free(l->path);
		free(l);
	}
	return fd;
}

static int make_file(struct extract *x, const struct segment *s, const struct target *t,
		     const uint8_t *data)
{
	const struct cpio_entry *e = t->e;
	char *key = e->nlink > 1 ? xasprintf("%u %u %o", s->archive, e->ino, e->mode) : NULL;
	const struct link *l = key ? nameset_get(&x->links, key) : NULL;
	int fd = l ? link_to_first(x, t, l) : create_file(x, t, key);
	int r;

	free(key);
	if (fd < 0)
		return fd;
	r = write_all(fd, data, (size_t)e->size);
	/* chown clears set-id bits: owner first, then the mode */
	if (r == 0 && x->preserve && fchown(fd, e->uid, e->gid) < 0)
		r = -errno;
	if (r == 0 && fchmod(fd, entry_mode(x, e)) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r < 0 ? err_errno(r, "entry \"%s\"", e->name) : 0;
}

static int make_symlink(const struct target *t, const uint8_t *data)
{
	char *target = xstrndup((const char *)data, (size_t)t->e->size);
	int r = symlinkat(target, t->dirfd, t->last);

	free(target);
	return r < 0 ? err_errno(errno, "entry \"%s\"", t->e->name) : 0;
}

static int make_node(const struct target *t)
{
	const struct cpio_entry *e = t->e;

	/* FIFOs and sockets lead nowhere and carry no data: made as they are */
	if (mknodat(t->dirfd, t->last, (e->mode & S_IFMT) | 0600,
		    makedev(e->rdev_major, e->rdev_minor)) == 0)
		return 0;
	if (errno == EPERM && !S_ISFIFO(e->mode) && !S_ISSOCK(e->mode)) {
		log_warn("entry \"%s\": cannot create a device node without privilege, skipped",
			 e->name);
		return 1;
	}
	return err_errno(errno, "entry \"%s\"", e->name);
}

/* Owner (with --preserve), then mode and mtime, on the entry itself,
 * never on what a link points to. Regular files got theirs via the fd. */
static int set_attrs(const struct extract *x, const struct target *t)
{
	const struct cpio_entry *e = t->e;
	struct timespec ts[2] = { { .tv_sec = e->mtime }, { .tv_sec = e->mtime } };

	if (!S_ISREG(e->mode) && x->preserve &&
	    fchownat(t->dirfd, t->last, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno(errno, "entry \"%s\": chown", e->name);
	if (!S_ISLNK(e->mode) && !S_ISREG(e->mode) &&
	    fchmodat(t->dirfd, t->last, entry_mode(x, e), AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno(errno, "entry \"%s\": chmod", e->name);
	utimensat(t->dirfd, t->last, ts, AT_SYMLINK_NOFOLLOW);
	return 0;
}

/* Device nodes only with --preserve: a node owned by root in a tree a
 * user can read is a way to the disk. Skipped with a word, not
 * silently. */
static bool skip_entry(const struct extract *x, const struct cpio_entry *e)
{
	if (x->preserve || (!S_ISCHR(e->mode) && !S_ISBLK(e->mode)))
		return false;
	if (x->nodes_quiet)
		return true;
	log_warn("entry \"%s\": %s device %u:%u skipped (--preserve makes device nodes)",
		 e->name, S_ISCHR(e->mode) ? "character" : "block", e->rdev_major, e->rdev_minor);
	return true;
}

static int make_entry(struct extract *x, const struct segment *s, const struct target *t,
		      const uint8_t *data)
{
	bool exists_dir;
	int r;

	if (clear_last(t, &exists_dir) < 0)
		return err_code();
	switch (t->e->mode & S_IFMT) {
	case S_IFDIR:
		return make_dir(x, t, exists_dir);
	case S_IFREG:
		r = make_file(x, s, t, data);
		break;
	case S_IFLNK:
		r = make_symlink(t, data);
		break;
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		r = make_node(t);
		if (r > 0)
			return 0;
		break;
	default:
		return err_set("entry \"%s\": unknown file type %06o", t->e->name, t->e->mode);
	}
	return r < 0 ? -1 : set_attrs(x, t);
}

static int extract_entry(const struct segment *s, const struct cpio_entry *e,
			 const uint8_t *data, void *userdata)
{
	struct extract *x = userdata;
	struct target t = { .e = e, .dirfd = -1 };
	int r;

	if ((r = name_split(e->name, &t.comps)) < 0)
		goto out;
	/* "." or "/": the target itself, left as the user made it */
	if (!t.comps.n || skip_entry(x, e)) {
		r = 0;
		goto out;
	}
	t.dirfd = open_parent(x, e->name, &t.comps, t.comps.n - 1);
	if (t.dirfd < 0) {
		r = t.dirfd;
		goto out;
	}
	t.last = t.comps.v[t.comps.n - 1];
	r = make_entry(x, s, &t, data);
out:
	if (t.dirfd >= 0)
		close(t.dirfd);
	strv_free(&t.comps);
	return r;
}

/* Deepest first, so setting a parent's mtime is the last change in it.
 * A directory a later symlink entry moved out of reach of its path is
 * not the one made and is left alone. */
static int fix_dirs(struct extract *x)
{
	for (size_t i = x->ndirs; i-- > 0;) {
		const struct dirfix *d = &x->dirs[i];
		struct timespec ts[2] = { { .tv_sec = d->mtime }, { .tv_sec = d->mtime } };
		int fd = open_dir_in_root(x->root, d->path);
		struct stat st;

		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || st.st_dev != d->dev || st.st_ino != d->ino) {
			close(fd);
			continue;
		}
		if ((x->preserve && fchown(fd, d->uid, d->gid) < 0) || fchmod(fd, d->mode) < 0 ||
		    futimens(fd, ts) < 0) {
			int e = errno;
			close(fd);
			return err_errno(e, "%s: directory %s", x->image, d->path);
		}
		close(fd);
	}
	return 0;
}

static void extract_free(struct extract *x)
{
	for (size_t i = 0; i < x->ndirs; i++)
		free(x->dirs[i].path);
	free(x->dirs);
	for (size_t i = 0; i < x->links.cap; i++) {
		struct link *l = x->links.keys[i] ? x->links.vals[i] : NULL;
		if (l)
			free(l->path);
		free(l);
	}
	nameset_free(&x->links);
}

int image_extract(const char *path, const char *dir, unsigned flags)
{
	struct extract x = { .image = path, .preserve = flags & EXTRACT_PRESERVE,
			     .nodes_quiet = flags & EXTRACT_NODES_ELSEWHERE };
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
	extract_free(&x);
	return r;
}
