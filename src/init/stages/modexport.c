// SPDX-License-Identifier: GPL-2.0-or-later
/* dracut's rd.driver.export: a root that carries no modules of the
 * running kernel (a minimal or container-made root) gets the image's. A
 * tmpfs on the root's /lib/modules holds a copy of the image's
 * /lib/modules/KVER, made before switch_root frees the image's files
 * (so a copy, not a bind mount); the root's own modprobe loads from it
 * when its fstab mounts a filesystem whose driver only the image had.
 * The root is hostile input: /lib/modules is looked up inside it
 * (RESOLVE_IN_ROOT: its links cannot lead out), and nothing is written
 * through a link. It never fails the boot: without it the root boots as
 * it would have. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "init/core/inroot.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"

/* Deeper than any kernel's module tree (kernel/drivers/net/ethernet/
 * VENDOR/CHIP/x.ko), shallow enough that a link loop ends. */
#define EXPORT_MAX_DEPTH 12
#define SYSROOT "/sysroot"

/* A directory below root, its links resolved as if root were /. */
static int open_in_root(int rootfd, const char *rel)
{
	return inroot_open(rootfd, rel, O_RDONLY | O_DIRECTORY);
}

/* The root's /lib/modules, made as dracut's `mkdir -p` would when the
 * root has none (which needs a writable root). */
static int modules_dir(int rootfd)
{
	static const char *const steps[] = { "lib", "lib/modules" };
	int fd = -ENOENT, parent;

	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		fd = open_in_root(rootfd, steps[i]);
		if (fd != -ENOENT)
			goto next;
		parent = i ? open_in_root(rootfd, steps[i - 1]) : dup(rootfd);
		if (parent < 0)
			return parent == -1 ? -errno : parent;
		fd = mkdirat(parent, strrchr(steps[i], '/') ? strrchr(steps[i], '/') + 1 : steps[i],
			     0755) < 0 ? -errno : 0;
		close(parent);
		if (fd < 0)
			return err_errno(fd, "cannot make the root's /%s", steps[i]);
		fd = open_in_root(rootfd, steps[i]);
next:
		if (fd < 0)
			return err_errno(fd, "cannot open the root's /%s", steps[i]);
		if (i + 1 < ARRAY_SIZE(steps))
			close(fd);
	}
	return fd;
}

static int copy_file(int from, int to, const char *name)
{
	char buf[1 << 16];
	ssize_t n = 0;
	int src, dst, r = 0;

	/* the image's own file: its links lead into the squashfs segment */
	src = openat(from, name, O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return err_errno(-errno, "cannot open %s", name);
	dst = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (dst < 0) {
		r = err_errno(-errno, "cannot create %s", name);
		close(src);
		return r;
	}
	while (r == 0 && (n = read(src, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = err_errno(-errno, "cannot read %s", name);
		else if ((r = write_all(dst, buf, (size_t)n)) < 0)
			r = err_errno(r, "cannot copy %s", name);
	}
	close(src);
	if (close(dst) < 0 && r == 0)
		r = err_errno(-errno, "cannot write %s", name);
	return r;
}

/* Every directory and regular file below from into to; *files counts
 * the files. */
static int copy_tree(int from, int to, unsigned depth, size_t *files)
{
	int dup_fd = dup(from), r = 0;
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return err_errno(-errno, "cannot read the image's modules");
	}
	while (r == 0 && (e = readdir(d))) {
		struct stat st;
		int a, b;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(from, e->d_name, &st, 0) < 0)
			continue; /* a dangling link: nothing to hand over */
		if (S_ISREG(st.st_mode)) {
			if ((r = copy_file(from, to, e->d_name)) == 0)
				(*files)++;
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if (depth >= EXPORT_MAX_DEPTH) {
			r = err_set("%s: directories nested too deep", e->d_name);
			break;
		}
		if (mkdirat(to, e->d_name, 0755) < 0) {
			r = err_errno(-errno, "cannot make %s", e->d_name);
			break;
		}
		a = openat(from, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		b = openat(to, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (a < 0 || b < 0)
			r = err_errno(-errno, "cannot open %s", e->d_name);
		else
			r = copy_tree(a, b, depth + 1, files);
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
	}
	closedir(d);
	return r;
}

/* The tmpfs on the root's /lib/modules (named as mounted, /sysroot/...),
 * filled; unmounted again if the copy fails. */
static int fill(struct init *in, const char *target, int srcfd, size_t *files)
{
	char *real = in->ops->path(target);
	int top = -1, kv = -1, r;

	r = in->ops->mount("driver_export", target, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
	if (r < 0) {
		free(real);
		return err_errno(r, "cannot mount a tmpfs on %s", target);
	}
	top = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		r = err_errno(-errno, "cannot open %s", target);
	else if (mkdirat(top, in->kver, 0755) < 0 && errno != EEXIST)
		r = err_errno(-errno, "cannot make %s/%s", target, in->kver);
	else if ((kv = openat(top, in->kver, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		r = err_errno(-errno, "cannot open %s/%s", target, in->kver);
	else
		r = copy_tree(srcfd, kv, 0, files);
	if (kv >= 0)
		close(kv);
	if (top >= 0)
		close(top);
	if (r < 0)
		in->ops->umount(target, MNT_DETACH);
	free(real);
	return r;
}

/* Where fd is, named from the init's / (as ops->mount takes it): the
 * kernel's own name for it, which must be below the root. */
static char *mount_target(struct init *in, int fd)
{
	char link[64], got[PATH_MAX], *root = in->ops->path(SYSROOT), rootreal[PATH_MAX];
	char *target = NULL;
	ssize_t n;
	size_t len;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, got, sizeof(got) - 1);
	if (n > 0 && realpath(root, rootreal)) {
		got[n] = '\0';
		len = strlen(rootreal);
		if (!strncmp(got, rootreal, len) && got[len] == '/')
			target = xasprintf("%s%s", SYSROOT, got + len);
	}
	free(root);
	return target;
}

static int export(struct init *in, size_t *files)
{
	char *src = xasprintf("/lib/modules/%s", in->kver), *real = in->ops->path(src);
	char *root = in->ops->path(SYSROOT), *target = NULL;
	int srcfd, rootfd = -1, modfd = -1, r = 0;

	srcfd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (srcfd < 0) {
		r = err_errno(-errno, "the image has no %s", src);
		goto out;
	}
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		r = err_errno(-errno, "cannot open the root");
		goto out;
	}
	if ((modfd = modules_dir(rootfd)) < 0) {
		r = modfd;
		goto out;
	}
	if (faccessat(modfd, in->kver, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		if (in->opt.driver_export != EXPORT_FORCE) {
			r = err_set("the root has its own /lib/modules/%s; not exporting over it "
				    "(rd.driver.export=force would)", in->kver);
			goto out;
		}
		log_info("rd.driver.export=force: exporting over the root's own /lib/modules/%s",
			 in->kver);
	}
	if (!(target = mount_target(in, modfd))) {
		r = err_set("the root's /lib/modules is not below %s", SYSROOT);
		goto out;
	}
	r = fill(in, target, srcfd, files);
out:
	if (modfd >= 0)
		close(modfd);
	if (rootfd >= 0)
		close(rootfd);
	if (srcfd >= 0)
		close(srcfd);
	free(target);
	free(root);
	free(real);
	free(src);
	return r;
}

void export_modules(struct init *in)
{
	size_t files = 0;

	if (in->opt.driver_export == EXPORT_NO)
		return;
	/* its files are copied past the tables, through their links */
	squash_need(in);
	if (export(in, &files) < 0)
		log_warn("rd.driver.export: %s", err_msg());
	else
		log_info("rd.driver.export: the image's /lib/modules/%s (%zu files) is the root's, "
			 "on a tmpfs", in->kver, files);
}
