// SPDX-License-Identifier: GPL-2.0-or-later
/* The multipath plugin's claim program (plugins/multipath.conf.in,
 * docs/plugins.md "Claim rows"): the init runs it for each new disk the
 * plugin's claim row names, before root= may match the disk.
 *
 *   uniramfs-multipath-claim /dev/sdX [rd.multipath=...]...
 *
 * Exit 0: the disk is a path of a multipath map, which exists now (made
 * or grown by `multipath`); the init never takes it as the root.
 * Exit 1: not a path (or rd.multipath=0): an ordinary disk.
 * Exit 2: it could not tell (multipath missing, a bad argument).
 *
 * No udev runs in the initramfs: libdevmapper must neither wait for
 * udev's cookie nor leave /dev/mapper to it (DM_DISABLE_UDEV=1), and the
 * WWID comes from sysfs (the default configuration below, when the image
 * carries no /etc/multipath.conf of the host's). */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpath_udevdb.h"

#define CONF "/etc/multipath.conf"
#define SYS "/sys/class/block"
#define UDEV_DATA "/run/udev/data"
#define MAX_PATHS 64

/* A generic image's configuration: WWIDs from sysfs (VPD page 0x83),
 * since there is no udev database to hold ID_SERIAL; a map for a WWID
 * seen on two paths or listed in /etc/multipath/wwids; names the
 * root's multipath-tools gives by default (user_friendly_names). */
static const char default_conf[] =
	"# written by uniramfs-multipath-claim: the image had no multipath.conf\n"
	"defaults {\n"
	"\tuser_friendly_names yes\n"
	"\tfind_multipaths yes\n"
	"}\n"
	"overrides {\n"
	"\tuid_attribute \"\"\n"
	"}\n";

static char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "DM_DISABLE_UDEV=1", NULL };

/* The tool's exit status (multipath, or kpartx when argv[0] is it), or
 * -1 when it could not run. */
static int run(char *const argv[], bool quiet)
{
	bool kpartx = !strcmp(argv[0], "kpartx");

	int st, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (quiet && (fd = open("/dev/null", O_WRONLY)) >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execve(kpartx ? "/usr/sbin/kpartx" : "/usr/sbin/multipath", argv, envp);
		execve(kpartx ? "/sbin/kpartx" : "/sbin/multipath", argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 127)
		return -1;
	return WEXITSTATUS(st);
}

static int write_default_conf(void)
{
	int fd = open(CONF, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t n = sizeof(default_conf) - 1;

	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	if (write(fd, default_conf, n) != (ssize_t)n) {
		close(fd);
		return -EIO;
	}
	return close(fd) < 0 ? -errno : 0;
}

/* The map took the disk: its holders directory is not empty. The
 * holder's kernel name into holder (size NAME_MAX + 1). */
static bool held(const char *name, char *holder)
{
	char p[300];
	DIR *d;
	struct dirent *de;
	bool any = false;

	snprintf(p, sizeof(p), SYS "/%s/holders", name);
	if (!(d = opendir(p)))
		return false;
	while (!any && (de = readdir(d)))
		if ((any = de->d_name[0] != '.'))
			snprintf(holder, NAME_MAX + 1, "%s", de->d_name);
	closedir(d);
	return any;
}

/* The map's partitions, as the root's kpartx rules name them
 * (mpatha-part1): no udev runs kpartx here. A map without a partition
 * table makes none; a failure is said and the map itself still counts. */
static void map_partitions(const char *holder)
{
	char p[300], map[160], node[200];
	int fd, r;
	ssize_t n;

	snprintf(p, sizeof(p), SYS "/%s/dm/name", holder);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, map, sizeof(map) - 1);
	close(fd);
	if (n <= 0)
		return;
	map[n] = '\0';
	map[strcspn(map, "\n")] = '\0';
	if (!map[0] || strchr(map, '/') || !strcmp(map, ".") || !strcmp(map, ".."))
		return;
	snprintf(node, sizeof(node), "/dev/mapper/%s", map);
	r = run((char *const[]){ "kpartx", "-a", "-p", "-part", node, NULL }, false);
	if (r != 0)
		fprintf(stderr, "uniramfs-multipath-claim: kpartx -a %s exited with %d: its partitions "
			"are not mapped\n", node, r);
}

/* The whole disks with this disk's WWID, itself among them, into
 * paths (at most max): two or more are paths to one LUN. multipath -c
 * says so only through udev's database or a listed WWID; here the
 * kernel's sysfs is the database. */
static size_t same_wwid(const char *name, char paths[][NAME_MAX + 1], size_t max)
{
	char mine[256], other[256], p[300];
	DIR *d = opendir(SYS);
	struct dirent *de;
	size_t n = 0;

	if (!d || !mpath_wwid(SYS, name, mine, sizeof(mine))) {
		if (d)
			closedir(d);
		return 0;
	}
	while (n < max && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), SYS "/%s/partition", de->d_name);
		if (access(p, F_OK) == 0 || !mpath_wwid(SYS, de->d_name, other, sizeof(other)) ||
		    strcmp(mine, other))
			continue;
		snprintf(paths[n++], NAME_MAX + 1, "%s", de->d_name);
	}
	closedir(d);
	return n;
}

static bool has_word(int argc, char **argv, const char *w)
{
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], w))
			return true;
	return false;
}

/* "rd.multipath=0" (dracut's spelling; off, no and false too). */
static bool turned_off(int argc, char **argv)
{
	static const char *const off[] = { "0", "off", "no", "false" };

	for (int i = 2; i < argc; i++) {
		if (strncmp(argv[i], "rd.multipath=", 13))
			continue;
		for (size_t k = 0; k < sizeof(off) / sizeof(off[0]); k++)
			if (!strcmp(argv[i] + 13, off[k]))
				return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "", *name = strrchr(dev, '/');
	static char paths[MAX_PATHS][NAME_MAX + 1], holder[NAME_MAX + 1];
	bool debug, made[MAX_PATHS];
	size_t n;
	int r;

	if (strncmp(dev, "/dev/", 5) || !name[1] || strstr(dev, "..")) {
		fprintf(stderr, "uniramfs-multipath-claim: usage: uniramfs-multipath-claim /dev/NAME [rd.multipath=...]\n");
		return 2;
	}
	name++;
	if (turned_off(argc, argv))
		return 1;
	/* rd.multipath.debug: multipath's own account of each decision */
	debug = has_word(argc, argv, "rd.multipath.debug");
	if ((r = write_default_conf()) < 0) {
		fprintf(stderr, "uniramfs-multipath-claim: cannot write %s: %s\n", CONF, strerror(-r));
		return 2;
	}
	/* should this disk be a path: its WWID listed (-c), or seen on two disks? */
	r = run((char *const[]){ "multipath", debug ? "-v3" : "-v0", "-c", (char *)dev, NULL }, !debug);
	if (r < 0) {
		fprintf(stderr, "uniramfs-multipath-claim: cannot run multipath\n");
		return 2;
	}
	n = same_wwid(name, paths, MAX_PATHS);
	if (r != 0 && n < 2)
		return 1;
	if (!n)
		snprintf(paths[n++], NAME_MAX + 1, "%s", name);
	/* the paths marked before multipath scans: it takes only devices
	 * udev's database knows, and the root's udev keeps them claimed */
	for (size_t i = 0; i < n; i++)
		made[i] = mpath_db_mark(SYS, UDEV_DATA, paths[i]) > 0;
	/* make the map, or add this path to it */
	r = run((char *const[]){ "multipath", debug ? "-v3" : "-v1", (char *)dev, NULL }, false);
	if (held(name, holder)) {
		map_partitions(holder);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (made[i])
			mpath_db_unmark(SYS, UDEV_DATA, paths[i]);
	fprintf(stderr, "uniramfs-multipath-claim: %s is a multipath path but no map holds it "
		"(multipath exited with %d): left as a plain disk\n", dev, r);
	return 1;
}
