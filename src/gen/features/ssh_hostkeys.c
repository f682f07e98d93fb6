// SPDX-License-Identifier: GPL-2.0-or-later
/* The machine's SSH host keys for its hostonly images: made once with
 * dropbearkey into SYSROOT/etc/uniramfs/dropbear and never again, so
 * that ssh knows the host from one kernel update to the next. As root
 * nothing here may write through a link: each directory is opened with
 * O_NOFOLLOW from the sysroot down, and the key is made inside that
 * directory's fd (/proc/PID/fd/N), under a temporary name, then
 * renamed into place. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/features/ssh.h"
#include "gen/host/run_tool.h"
#include "layout.h"
#include "log.h"

#define MAX_KEY (64 * 1024)

/* dropbearkey's -t for each of LAYOUT_SSH_HOSTKEYS. */
static const char *const key_kinds[] = { "ed25519", "ecdsa" };

/* Open (making it if absent, mode) one directory below dfd, never
 * following a link. */
static int open_dir(int dfd, const char *shown, const char *name, mode_t mode)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		if (mkdirat(dfd, name, mode) < 0 && errno != EEXIST)
			return err_errno(errno, "cannot make %s", shown);
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		struct stat st;
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			return err_set("%s is a symbolic link: refused (the host keys are written "
				       "there as root)", shown);
		return err_set("%s is not a directory", shown);
	}
	if (fd < 0)
		return err_errno(errno, "%s", shown);
	return fd;
}

static int key_dir(const char *sysroot, char **shown)
{
	static const char *const parts[] = { "etc", "uniramfs", "dropbear" };
	int fd = open(*sysroot ? sysroot : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct buf path = { 0 };

	if (fd < 0)
		return err_errno(errno, "sysroot %s", sysroot);
	buf_printf(&path, "%s", strcmp(sysroot, "/") ? sysroot : "");
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		int next;
		buf_printf(&path, "/%s", parts[i]);
		buf_append(&path, "", 1);
		path.len--;
		next = open_dir(fd, path.p, parts[i], i == 2 ? 0700 : 0755);
		close(fd);
		if (next < 0) {
			buf_free(&path);
			return next;
		}
		fd = next;
	}
	buf_append(&path, "", 1);
	*shown = path.p;
	return fd;
}

static int make_key(int dfd, const char *dir, const char *name, const char *kind)
{
	char tmp[64], path[128];
	const char *argv[] = { "dropbearkey", "-t", kind, "-f", path, NULL };
	struct buf out = { 0 };
	mode_t old;
	int r;

	snprintf(tmp, sizeof(tmp), ".%s.new", name);
	/* ours, not the tool's /proc/self: dfd is close-on-exec */
	snprintf(path, sizeof(path), "/proc/%d/fd/%d/%s", (int)getpid(), dfd, tmp);
	unlinkat(dfd, tmp, 0); /* left by a run that was killed */
	old = umask(077);
	r = run_tool_capture(argv, "dropbear-bin", 64 * 1024, &out);
	umask(old);
	buf_free(&out);
	if (r < 0) {
		unlinkat(dfd, tmp, 0);
		return err_wrap("%s/%s", dir, name);
	}
	if (fchmodat(dfd, tmp, 0600, 0) < 0 || renameat(dfd, tmp, dfd, name) < 0) {
		r = err_errno(errno, "%s/%s", dir, name);
		unlinkat(dfd, tmp, 0);
		return r;
	}
	log_notice("SSH: made the host key %s/%s (once: it is kept for every image)", dir, name);
	return 0;
}

/* The key's content, refusing a link, another owner, a mode others may read. */
static int read_key(int dfd, const char *dir, const char *name, char **data, size_t *len)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int r;

	if (fd < 0 && errno == ELOOP)
		return err_set("%s/%s is a symbolic link: refused", dir, name);
	if (fd < 0)
		return err_errno(errno, "%s/%s", dir, name);
	if (fstat(fd, &st) < 0) {
		r = err_errno(errno, "%s/%s", dir, name);
	} else if (!S_ISREG(st.st_mode)) {
		r = err_set("%s/%s is not a regular file: refused", dir, name);
	} else if (st.st_uid != geteuid()) {
		r = err_set("%s/%s belongs to uid %u, not to us: refused", dir, name,
			    (unsigned)st.st_uid);
	} else if (st.st_mode & 077) {
		r = err_set("%s/%s has mode %04o: a private key must be 0600 (chmod 600 it)", dir,
			    name, (unsigned)(st.st_mode & 07777));
	} else if (st.st_size <= 0 || st.st_size > MAX_KEY) {
		r = err_set("%s/%s: %lld bytes is no host key", dir, name, (long long)st.st_size);
	} else {
		r = ssh_read_fd(fd, MAX_KEY, data, len);
		if (r < 0)
			r = err_errno(r, "%s/%s", dir, name);
	}
	close(fd);
	return r;
}

int ssh_hostkeys_add(struct image *img, const char *sysroot)
{
	static const char *const names[] = { LAYOUT_SSH_HOSTKEYS };
	char *dir = NULL;
	int dfd = key_dir(sysroot, &dir), r = 0;

	if (dfd < 0)
		return dfd;
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(names); i++) {
		struct stat st;
		char *data = NULL, *dst;
		size_t len = 0;
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				r = err_errno(errno, "%s/%s", dir, names[i]);
			else
				r = make_key(dfd, dir, names[i], key_kinds[i]);
		} else {
			log_info("SSH: host key %s/%s (kept)", dir, names[i]);
		}
		if (r == 0)
			r = read_key(dfd, dir, names[i], &data, &len);
		if (r == 0) {
			dst = xasprintf("%s/%s", LAYOUT_SSH_HOSTKEY_DIR, names[i]);
			r = image_add_data(img, dst, data, len, 0600);
			free(dst);
		}
		if (data)
			explicit_bzero(data, len);
		free(data);
	}
	close(dfd);
	free(dir);
	return r;
}
