// SPDX-License-Identifier: GPL-2.0-or-later
/* Check a filesystem before it is mounted, with the checker the image
 * carries (e2fsck, fsck.vfat, fsck.f2fs), the way fsck(8) and systemd-fsck do:
 * "preen" by default, fsck.mode= and fsck.repair= as systemd reads them.
 * Exit codes are fsck(8)'s: 1 errors corrected, 2 reboot needed, 4 and
 * up errors left, operational errors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/stack.h"
#include "init/stages/stages.h"
#include "log.h"

static bool is_ext(const char *t)
{
	return !strcmp(t, "ext2") || !strcmp(t, "ext3") || !strcmp(t, "ext4");
}

/* The checker's name for a type; NULL for those that need none at boot
 * (xfs and btrfs check themselves when mounted). */
static const char *checker(const char *t)
{
	if (is_ext(t))
		return "e2fsck";
	if (!strcmp(t, "vfat") || !strcmp(t, "msdos") || !strcmp(t, "fat"))
		return "fsck.vfat";
	if (!strcmp(t, "f2fs"))
		return "fsck.f2fs";
	return NULL;
}

char **fsck_argv(const struct options *o, const char *fstype, const char *devnode)
{
	const char *mode = o->fsck_mode ? o->fsck_mode : "auto";
	const char *repair = o->fsck_repair ? o->fsck_repair : "preen";
	const char *tool = checker(fstype);
	struct strv argv = { 0 };

	if (o->skipfsck || !strcmp(mode, "skip") || !tool)
		return NULL;
	strv_push(&argv, tool);
	if (!strcmp(repair, "yes"))
		strv_push(&argv, "-y");
	else if (!strcmp(repair, "no"))
		/* fsck.f2fs has no -n: it checks without writing so */
		strv_push(&argv, strcmp(fstype, "f2fs") ? "-n" : "--dry-run");
	else
		strv_push(&argv, "-a");
	/* dosfsck's -f salvages chains, it does not force. fsck.f2fs -a
	 * checks only what the kernel flagged; -f checks everything. */
	if (!strcmp(mode, "force") && (is_ext(fstype) || !strcmp(fstype, "f2fs")))
		strv_push(&argv, "-f");
	strv_push(&argv, devnode);
	return argv.v;
}

static void warn_values(const struct options *o)
{
	if (o->fsck_mode && strcmp(o->fsck_mode, "auto") && strcmp(o->fsck_mode, "force") &&
	    strcmp(o->fsck_mode, "skip"))
		log_warn("ignoring fsck.mode=%s: not auto, force or skip", o->fsck_mode);
	if (o->fsck_repair && strcmp(o->fsck_repair, "preen") && strcmp(o->fsck_repair, "yes") &&
	    strcmp(o->fsck_repair, "no"))
		log_warn("ignoring fsck.repair=%s: not preen, yes or no", o->fsck_repair);
}

/* e2fsck may be packed as e2fsck or only as fsck.ext4 (and back). */
static char *find_checker(struct init *in, const char *tool, const char *fstype)
{
	char *path = tool_find(&in->stack_env, tool), *alt;

	if (path || strcmp(tool, "e2fsck"))
		return path;
	alt = xasprintf("fsck.%s", fstype);
	path = tool_find(&in->stack_env, alt);
	free(alt);
	return path;
}

static void free_argv(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

struct fs_modules {
	struct modload *ml;
	const char *type;
};

static void load_fs_modules(void *arg)
{
	const struct fs_modules *f = arg;

	modload_fs(f->ml, f->type);
}

/* The filesystem's modules (ext4 and its four: 0.4 s under TCG) load in
 * a child while the checker runs, on another CPU if there is one; the
 * mount then finds them live (modload.c). Its pid, or -1: none started,
 * the mount loads them. */
static pid_t start_fs_modules(struct init *in, const char *fstype)
{
	struct fs_modules f = { in->ml, fstype };
	pid_t pid;

	if (!in->ml || !in->xops->run_child)
		return -1;
	pid = in->xops->run_child(load_fs_modules, &f);
	if (pid < 0)
		log_debug("not loading the %s modules during the check: %s", fstype, err_msg());
	return pid;
}

static void wait_fs_modules(struct init *in, pid_t pid)
{
	int st;

	while (pid > 0 && in->ops->waitpid(pid, &st, 0) == -EINTR)
		;
}

int fsck_device(struct init *in, const struct blockdev *bd, const char *fstype)
{
	char **argv;
	char *path;
	struct buf cmd = { 0 };
	pid_t loader;
	int st, ret = 0;

	warn_values(&in->opt);
	argv = fsck_argv(&in->opt, fstype, bd->devnode);
	if (!argv) {
		log_debug("not checking %s (%s)", bd->devnode, fstype);
		return 0;
	}
	if (blockdev_read_only(in->ops, bd->name)) {
		/* nothing to repair there, and e2fsck -a refuses to open it */
		log_info("not checking %s: a read-only device", bd->devnode);
		free_argv(argv);
		return 0;
	}
	path = find_checker(in, argv[0], fstype);
	if (!path) {
		log_info("no %s in this image, not checking %s", argv[0], bd->devnode);
		free_argv(argv);
		return 0;
	}
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
	log_info("checking %s (%s): %s", bd->devnode, fstype, cmd.p);
	/* the checker lives in the squashfs segment: mounted first, or
	 * its loop and squashfs would load after the child's modules
	 * and the check would wait for them all (0.4 s) */
	squash_need(in);
	loader = start_fs_modules(in, fstype);
	st = in->xops->run ? in->xops->run(path, argv, in->tool_envp, NULL, 0)
			   : err_set("no way to run programs");
	wait_fs_modules(in, loader);
	if (st < 0) {
		/* Killed, or not executable: nothing says the filesystem is
		 * sound, so as for errors left (4), never mount it unchecked. */
		char *why = xstrdup(err_msg());
		ret = err_set_code(st, "%s did not check %s: %s; treating it as exit status 4 "
				   "(errors left), not mounting %s unchecked", argv[0], bd->devnode,
				   why, bd->devnode);
		free(why);
	} else if (st == 0) {
		log_debug("%s: clean", bd->devnode);
	} else if (st == 1) {
		log_notice("%s corrected errors on %s, going on", argv[0], bd->devnode);
	} else if (st == 2 || st == 3) {
		log_err("%s corrected errors on %s and asks for a reboot (exit status %d): "
			"rebooting now", argv[0], bd->devnode, st);
		in->ops->sync();
		in->xops->reboot(RB_AUTOBOOT);
		ret = err_set("reboot after checking %s failed", bd->devnode);
	} else {
		ret = err_set("%s left errors on %s (exit status %d, see its output above); "
			      "repair it by hand: %s -f %s", argv[0], bd->devnode, st, argv[0],
			      bd->devnode);
	}
	free(path);
	buf_free(&cmd);
	free_argv(argv);
	return ret;
}

/* The kernel's read-only flag on the device (a read-only NBD export or
 * iSCSI LUN, a write-protected disk): a checker can open it for reading
 * only, and repair nothing. */
static bool read_only_dev(struct init *in, const struct blockdev *bd)
{
	char *rel = xasprintf("/sys/class/block/%s/ro", bd->name), *p = in->ops->path(rel), *line = NULL;
	bool ro = read_line(p, &line) == 0 && line[0] == '1';

	free(line);
	free(p);
	free(rel);
	return ro;
}

int fsck_root(struct init *in)
{
	const struct blockdev *bd = root_dev(in);
	char *type;
	int r;

	if (in->opt.live) /* a medium, mounted read-only; its image is never checked */
		return 0;
	if (bd->name && read_only_dev(in, bd)) {
		log_info("%s is read-only: not checking it", bd->devnode);
		return 0;
	}
	if (in->opt.rootfstype)
		type = xstrndup(in->opt.rootfstype, strcspn(in->opt.rootfstype, ","));
	else if (bd->type)
		type = xstrdup(bd->type);
	else
		return 0; /* mount_root says why it cannot mount it */
	r = fsck_device(in, bd, type);
	free(type);
	return r;
}
