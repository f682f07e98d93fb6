// SPDX-License-Identifier: GPL-2.0-or-later
/* Stage 6: hand the machine to the real init, the way util-linux's
 * switch_root does, leaving state for it in /run/uniramfs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "init/core/kmsg.h"
#include "init/init.h"
#include "init/stages/creds.h"
#include "init/stages/handback.h"
#include "init/stages/stages.h"
#include "log.h"

#define NEWROOT "/sysroot"

/* path as the new root will see it, its links followed by hand below
 * /sysroot (a symlink such as /sbin/init -> /lib/systemd/systemd is
 * absolute from the new root): the file it ends at (in the root's
 * terms), or NULL when that is no executable regular file. */
static char *resolve_in_root(struct init *in, const char *path)
{
	char *cur = xstrdup(path);
	bool ok = false;

	for (int depth = 0; depth < 40; depth++) {
		char *full = xasprintf(NEWROOT "%s", cur);
		char *real = in->ops->path(full);
		char target[PATH_MAX];
		ssize_t n = readlink(real, target, sizeof(target) - 1);
		struct stat st;
		if (n < 0) {
			/* access(X_OK) is true for a directory too */
			ok = stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
			     in->ops->access(full, X_OK) == 0;
			free(real);
			free(full);
			break;
		}
		free(real);
		free(full);
		target[n] = '\0';
		if (target[0] == '/') {
			free(cur);
			cur = xstrdup(target);
		} else {
			char *slash = strrchr(cur, '/');
			char *next = xasprintf("%.*s/%s", (int)(slash - cur), cur, target);
			free(cur);
			cur = path_normalize(next);
			free(next);
		}
	}
	if (!ok) {
		free(cur);
		return NULL;
	}
	return cur;
}

static bool exists_in_root(struct init *in, const char *path)
{
	char *p = resolve_in_root(in, path);

	free(p);
	return p != NULL;
}

static const char *find_init(struct init *in)
{
	static const char *const fallback[] = { "/sbin/init", "/etc/init", "/bin/init", "/bin/sh" };

	/* As the kernel: an init= that is not there is an error, not a
	 * reason to start something else. */
	if (in->opt.init) {
		if (exists_in_root(in, in->opt.init))
			return in->opt.init;
		err_set_code(-ENOENT, "init=%s not found on the root filesystem (or not executable)",
			     in->opt.init);
		return NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fallback); i++)
		if (exists_in_root(in, fallback[i]))
			return fallback[i];
	err_set_code(-ENOENT,
		     "no init on the root filesystem: tried /sbin/init, /etc/init, /bin/init, /bin/sh");
	return NULL;
}

static int write_file(struct init *in, const char *path, const char *data, size_t len, mode_t mode)
{
	int fd = in->ops->open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int r;

	if (fd < 0)
		return err_errno(fd, "cannot create %s", path);
	/* a file a hook made already keeps its mode through O_CREAT */
	r = fchmod(fd, mode) < 0 ? -errno : write_all(fd, data, len);
	close(fd);
	if (r < 0)
		return err_errno(r, "cannot write %s", path);
	return 0;
}

int write_state(struct init *in)
{
	const struct buf *log = kmsg_kept();
	char *t = timing_text(&in->timing);
	int r;

	if ((r = in->ops->mkdir("/run/uniramfs", 0755)) < 0 && r != -EEXIST)
		log_warn("cannot create /run/uniramfs: %s", strerror(-r));
	/* The log is the real system's to read, but only root's: it holds
	 * every debug line, DHCP's answers, the network root's spec. */
	if ((r = write_file(in, "/run/uniramfs/timings", t, strlen(t), 0644)) < 0 ||
	    (r = write_file(in, "/run/uniramfs/log", log->p ? log->p : "", log->len, 0600)) < 0)
		log_warn("%s", err_msg());
	else
		r = 0;
	free(t);
	return r;
}

/* The environment for the real init: ours (what the kernel gave us)
 * with extra (creds.c's directories for systemd) and RD_TIMESTAMP, the init's start in CLOCK_REALTIME and
 * CLOCK_MONOTONIC microseconds (see docs/cmdline.md for who reads it). */
static char **init_env(struct init *in, const struct strv *extra)
{
	struct strv env = { 0 };

	for (char **e = in->envp; e && *e; e++)
		if (!str_has_prefix(*e, "RD_TIMESTAMP="))
			strv_push(&env, *e);
	for (size_t i = 0; i < extra->n; i++)
		strv_push(&env, extra->v[i]);
	strv_push_owned(&env, xasprintf("RD_TIMESTAMP=%llu %llu", in->timing.start_realtime_us,
					in->timing.start_monotonic_us));
	return env.v;
}

/* The init (as find_init gave it) is systemd, links followed. */
static bool is_systemd(struct init *in, const char *init)
{
	char *real = resolve_in_root(in, init);
	const char *base = real ? strrchr(real, '/') : NULL;
	bool yes = base && !strcmp(base, "/systemd");

	free(real);
	return yes;
}

/* systemd as the root's init learns the initrd's start only as its own
 * initrd hands it over: started with --switched-root --deserialize=FD,
 * it reads "initrd-timestamp=REALTIME MONOTONIC" from the manager
 * section of that state (src/core/manager-serialize.c, 252 and 257 alike;
 * neither reads RD_TIMESTAMP any more), and systemd-analyze then shows
 * "(initrd)". The state holds nothing else: no unit to take over. The
 * fd (not close-on-exec: it must cross the execve), or -1 when it cannot
 * be made (said; the boot goes on without it). */
static int systemd_state(struct init *in)
{
	static const char path[] = "/run/uniramfs/systemd-state";
	char *text;
	int fd, r;

	fd = in->ops->open(path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		log_warn("cannot create %s: %s; systemd-analyze will count this initrd's time "
			 "as the kernel's", path, strerror(-fd));
		return -1;
	}
	text = xasprintf("initrd-timestamp=%llu %llu\n\n", in->timing.start_realtime_us,
			 in->timing.start_monotonic_us);
	r = write_all(fd, text, strlen(text));
	free(text);
	if (r == 0 && lseek(fd, 0, SEEK_SET) < 0)
		r = -errno;
	in->ops->unlink(path);
	if (r < 0) {
		log_warn("cannot write %s: %s; systemd-analyze will count this initrd's time "
			 "as the kernel's", path, strerror(-r));
		close(fd);
		return -1;
	}
	return fd;
}

int switch_root(struct init *in)
{
	static const char *const moves[] = { "/dev", "/proc", "/sys", "/run" };
	const struct sysops *ops = in->ops;
	struct strv argv = { 0 };
	char **envp;
	const char *init;
	struct strv extra = { 0 };
	bool systemd;
	int r, state = -1;

	init = find_init(in);
	if (!init)
		return -ENOENT;
	systemd = is_systemd(in, init);
	if (systemd)
		creds_handover(in, &extra); /* in /run, before it moves */
	log_info("switching to the root filesystem, starting %s", init);
	timing_mark(&in->timing, "switch");
	/* what the root's udev and systemd-cryptsetup expect of the
	 * devices this boot set up */
	cryptnames_match_root(in);
	if (udevdb_write(ops) < 0)
		log_warn("%s; the root's udev may ignore this boot's LVM and LUKS devices", err_msg());
	write_state(in);
	handback_shutdown(in->ops);
	unmount_squash(in);
	kmod_helper_restore(in); /* while /proc is still ours to write */

	for (size_t i = 0; i < ARRAY_SIZE(moves); i++) {
		char *target = xasprintf(NEWROOT "%s", moves[i]);
		if ((r = ops->mount(moves[i], target, NULL, MS_MOVE, NULL)) < 0) {
			log_warn("cannot move %s to %s: %s; detaching it", moves[i], target,
				 strerror(-r));
			ops->umount(moves[i], MNT_DETACH);
		}
		free(target);
	}
	if ((r = ops->chdir(NEWROOT)) < 0) {
		strv_free(&extra);
		return err_errno(r, "cannot enter " NEWROOT);
	}
	if (in->xops->free_initramfs(NEWROOT) < 0)
		log_warn("freeing the initramfs: %s", err_msg());
	if ((r = ops->mount(NEWROOT, "/", NULL, MS_MOVE, NULL)) < 0)
		r = err_errno(r, "cannot move " NEWROOT " to /");
	else if ((r = ops->chroot(".")) < 0)
		r = err_errno(r, "cannot chroot into the new root");
	else if ((r = ops->chdir("/")) < 0)
		r = err_errno(r, "cannot chdir to / in the new root");
	if (r < 0) {
		strv_free(&extra);
		return r;
	}

	strv_push(&argv, init);
	if (systemd && (state = systemd_state(in)) >= 0) {
		strv_push(&argv, "--switched-root");
		strv_push(&argv, "--system");
		strv_push_owned(&argv, xasprintf("--deserialize=%d", state));
	}
	for (char **a = in->init_argv; a && *a; a++)
		strv_push(&argv, *a);
	envp = init_env(in, &extra);
	strv_free(&extra);
	r = ops->execve(init, argv.v, envp);
	if (r < 0)
		r = err_errno(r, "cannot execute %s", init);
	if (r < 0 && state >= 0)
		close(state);
	strv_free(&argv);
	for (char **e = envp; e && *e; e++)
		free(*e);
	free(envp);
	return r;
}
