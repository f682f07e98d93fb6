// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS key files: which one is for which device (rd.luks.key= in
 * dracut's and systemd's forms, crypttab's key field), and reading one
 * that lives on another device, a USB stick named by LABEL or UUID,
 * mounted read-only only while it is read. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include "init/dev/modload.h"
#include "init/stack/stack.h"
#include "log.h"

#define KEYDEV_MOUNT "/run/uniramfs/keydev"
/* cryptsetup's default limit for a key file (--keyfile-size max) */
#define MAX_KEYFILE (8 << 20)

static char *opt_dup(const char *v, size_t n)
{
	return n ? xstrndup(v, n) : NULL;
}

/* dracut's KEYPATH[:KEYDEV[:LUKSDEV]] or systemd's LUKSUUID=KEYPATH[:KEYDEV]. */
void luks_key_parse(struct stack *s, const char *v)
{
	const char *eq = strchr(v, '='), *slash = strchr(v, '/'), *path = v, *c1, *c2;
	struct luks_key k = { 0 };

	if (eq && (!slash || eq < slash)) { /* systemd: the UUID comes first */
		k.luksdev = xstrndup(v, (size_t)(eq - v));
		path = eq + 1;
	}
	c1 = strchr(path, ':');
	c2 = c1 && !k.luksdev ? strchr(c1 + 1, ':') : NULL;
	k.path = xstrndup(path, c1 ? (size_t)(c1 - path) : strlen(path));
	if (c1)
		k.keydev = opt_dup(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1));
	if (c2)
		k.luksdev = opt_dup(c2 + 1, strlen(c2 + 1));
	/* PARTNROFF= needs the registry's neighbours: root= and resume= only */
	if (k.path[0] != '/' || (k.keydev && (!blockdev_spec_valid(k.keydev) ||
					      blockdev_partnroff(k.keydev, NULL, NULL)))) {
		if (k.path[0] != '/')
			log_warn("ignoring rd.luks.key=%s: the key file must be an absolute path", v);
		else
			log_warn("ignoring rd.luks.key=%s: \"%s\" is not a device (the second field "
				 "names the device holding the key, as in dracut: UUID=, LABEL=, "
				 "/dev/...; for the LUKS device write rd.luks.key=%s::UUID=%s)",
				 v, k.keydev, k.path, k.keydev);
		luks_key_free(&k);
		return;
	}
	ARRAY_GROW(s->keys, s->capkeys, s->nkeys + 1);
	s->keys[s->nkeys++] = k;
}

void luks_key_free(struct luks_key *k)
{
	free(k->path);
	free(k->keydev);
	free(k->luksdev);
	memset(k, 0, sizeof(*k));
}

/* A LUKSDEV as the forms spell it: UUID=U, luks-U, a bare U, or a
 * device spec (/dev/..., PARTUUID=...). */
static bool luksdev_matches(const char *spec, const struct blockdev *bd, const char *uuid)
{
	const char *u = spec;

	if (!strncasecmp(u, "UUID=", 5))
		u += 5;
	if (!strncmp(u, "luks-", 5))
		u += 5;
	if ((bd->uuid && stack_uuid_eq(u, bd->uuid)) || (uuid && stack_uuid_eq(u, uuid)))
		return true;
	return blockdev_spec_valid(spec) && blockdev_matches(bd, spec);
}

const struct luks_key *luks_key_for(const struct stack *s, const struct blockdev *bd,
				    const char *uuid)
{
	for (size_t i = 0; i < s->nkeys; i++)
		if (!s->keys[i].luksdev || luksdev_matches(s->keys[i].luksdev, bd, uuid))
			return &s->keys[i];
	return NULL;
}

static bool path_safe(const char *p)
{
	return p[0] == '/' && !path_has_dotdot(p);
}

static bool force_walk;

void luks_key_force_walk(bool on)
{
	force_walk = on;
}

/* openat2's RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS by hand, for kernels
 * before 5.6: one component at a time, each refused if it is a link.
 * A directory opened with O_NOFOLLOW|O_DIRECTORY that is a link fails
 * with ENOTDIR, so that case is told apart to say ELOOP like openat2. */
static int walk_beneath(int dirfd, const char *rel)
{
	char *copy = xstrdup(rel), *save = NULL, *c, *next;
	int cur = -1, fd = -1;

	c = strtok_r(copy, "/", &save);
	while (c) {
		struct stat st;
		int at = cur >= 0 ? cur : dirfd;
		next = strtok_r(NULL, "/", &save);
		if (!strcmp(c, ".")) {
			c = next;
			continue;
		}
		if (!strcmp(c, "..")) {
			fd = -EXDEV;
			break;
		}
		fd = openat(at, c, next ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
					: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			if (fd == -ENOTDIR && fstatat(at, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				fd = -ELOOP;
			break;
		}
		if (cur >= 0)
			close(cur);
		cur = next ? fd : -1;
		c = next;
	}
	if (cur >= 0 && cur != fd)
		close(cur);
	free(copy);
	return fd == -1 ? -ENOENT : fd;
}

/* The key file at path (absolute, no "..": path_safe) beneath dirfd,
 * the key device's mount point: the stick is a stranger's, so no
 * symlink anywhere in the path (a directory link would read a file of
 * the initramfs itself, a key of another disk) and no waiting on a
 * FIFO (O_NONBLOCK: the unlock would hang forever). -ELOOP for a link. */
static int open_beneath(int dirfd, const char *path)
{
	const char *rel = path + strspn(path, "/");

	if (!*rel)
		return -EISDIR;
#ifdef SYS_openat2
	if (!force_walk) {
		struct open_how how = {
			.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
		};
		int fd;
		/* EAGAIN: a rename raced with the lookup; the kernel asks to retry */
		for (int tries = 0; tries < 16; tries++) {
			fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
			if (fd >= 0 || errno != EAGAIN)
				break;
		}
		if (fd >= 0)
			return fd;
		/* EPERM: a seccomp filter's answer for a syscall it does not know */
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
	}
#endif
	return walk_beneath(dirfd, rel);
}

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) || S_ISBLK(m) ? "a device"
	       : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* The file at path on the device mounted at KEYDEV_MOUNT, what ("key",
 * "header") naming it in the messages, into out or, when out is NULL,
 * written to outfd; at most max bytes. 0 or -errno after a warning
 * naming the file, the device and why. */
static int read_on(struct stack_env *env, const char *what, const char *path, const char *dev,
		   const char *node, size_t max, struct buf *out, int outfd)
{
	char chunk[4096];
	struct stat st;
	size_t total = 0;
	int dfd = env->ops->open(KEYDEV_MOUNT, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0), fd, r = 0;

	if (dfd < 0) {
		log_warn("cannot read %s file %s on %s (%s): %s", what, path, dev, node, strerror(-dfd));
		return dfd;
	}
	fd = open_beneath(dfd, path);
	close(dfd);
	if (fd == -ELOOP) {
		log_warn("%s file %s on %s (%s): refused: a symbolic link in its path (a %s "
			 "device's %s file is read through plain directories only)", what, path, dev,
			 node, what, what);
		return fd;
	}
	if (fd < 0) {
		log_warn("cannot read %s file %s on %s (%s): %s", what, path, dev, node, strerror(-fd));
		return fd;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		log_warn("cannot read %s file %s on %s (%s): %s", what, path, dev, node, strerror(-r));
	} else if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		log_warn("%s file %s on %s (%s): refused: %s, not a regular file", what, path, dev, node,
			 file_kind(st.st_mode));
	} else if ((unsigned long long)st.st_size > max) {
		r = -EFBIG;
		log_warn("cannot read %s file %s on %s (%s): %s", what, path, dev, node, strerror(-r));
	}
	while (r == 0) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		if (n <= 0)
			break;
		total += (size_t)n;
		if (total > max)
			r = -EFBIG;
		else if (out)
			buf_append(out, chunk, (size_t)n);
		else
			r = write_all(outfd, chunk, (size_t)n);
		if (r < 0)
			log_warn("cannot read %s file %s on %s (%s): %s", what, path, dev, node,
				 strerror(-r));
	}
	explicit_bzero(chunk, sizeof(chunk));
	close(fd);
	return r;
}

/* Mount node read-only at KEYDEV_MOUNT, read path on it as read_on
 * does, unmount. */
static int read_mounted(struct stack_env *env, const char *what, const char *node,
			const char *fstype, const char *dev, const char *path, size_t max,
			struct buf *out, int outfd)
{
	int r, u;

	if (!path_safe(path)) {
		log_warn("%s file %s on %s: not a plain absolute path", what, path, dev);
		return -EINVAL;
	}
	env->ops->mkdir(KEYDEV_MOUNT, 0700);
	if (!fstype) {
		log_warn("the %s's device %s (%s) holds no filesystem blkid knows", what, dev, node);
		return -EINVAL;
	}
	modload_fs(env->ml, fstype);
	r = env->ops->mount(node, KEYDEV_MOUNT, fstype, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			   NULL);
	if (r < 0) {
		log_warn("cannot mount the %s's device %s (%s, %s): %s", what, dev, node, fstype,
			 strerror(-r));
		return r;
	}
	r = read_on(env, what, path, dev, node, max, out, outfd);
	u = env->ops->umount(KEYDEV_MOUNT, 0);
	if (u < 0)
		log_warn("cannot unmount the %s's device %s: %s", what, node, strerror(-u));
	return r;
}

int luks_key_read(struct stack_env *env, const char *node, const char *fstype, const char *keydev,
		  const char *path, struct buf *out)
{
	return read_mounted(env, "key", node, fstype, keydev, path, MAX_KEYFILE, out, -1);
}

int luks_header_copy(struct stack_env *env, const char *node, const char *fstype, const char *dev,
		     const char *path, int outfd)
{
	return read_mounted(env, "header", node, fstype, dev, path, LUKS_HEADER_FILE_MAX, NULL,
			    outfd);
}
