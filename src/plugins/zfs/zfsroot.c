// SPDX-License-Identifier: GPL-2.0-or-later
/* The ZFS plugin's root program (plugins/zfs.conf, docs/plugins.md):
 *
 *   uniramfs-zfs-mount-root SPEC MOUNTPOINT
 *
 * SPEC is root= without its prefix: pool/dataset, or AUTO (the bootfs
 * of the first pool that has one). It imports the pool without
 * mounting anything (zpool import -N, -f with rd.zfs.force/zfs_force;
 * the host id is /etc/hostid, which the zfs module and zpool read),
 * loads the key of an encrypted dataset with a passphrase asked
 * through the init's prompt, and mounts the dataset on MOUNTPOINT
 * (mount.zfs -o zfsutil: the dataset's mountpoint property may be /).
 * Every failure says what was looked for; exit 1. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../ask/ask.h"
#include "zfsroot.h"

#define ME "zfs-mount-root"
#define TRIES 3
#define PASS_MAX 512   /* zfs takes at most 512 bytes of passphrase */

/* argv through PATH, input on its stdin (NULL: /dev/null), its stdout
 * into out (NULL: the console's). Its exit status, or -errno. */
static int run(char *const argv[], const char *input, size_t len, char *out, size_t size)
{
	int in[2] = { -1, -1 }, op[2] = { -1, -1 }, st;
	size_t got = 0;
	pid_t pid;

	if ((input && pipe2(in, O_CLOEXEC) < 0) || (out && pipe2(op, O_CLOEXEC) < 0))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		dup2(input ? in[0] : null, STDIN_FILENO);
		if (out)
			dup2(op[1], STDOUT_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, ME ": cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (input) {
		close(in[0]);
		for (size_t off = 0; off < len;) {
			ssize_t w = write(in[1], input + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break; /* it stopped reading: its status says why */
			off += (size_t)w;
		}
		close(in[1]);
	}
	if (out) {
		close(op[1]);
		for (;;) {
			char c[512];
			ssize_t r = read(op[0], c, sizeof(c));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			for (ssize_t i = 0; i < r && got + 1 < size; i++)
				out[got++] = c[i];
		}
		out[got] = '\0';
		close(op[0]);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void chomp(char *s)
{
	s[strcspn(s, "\n")] = '\0';
}

static int import(const struct zfsroot_args *a)
{
	char *list[] = { "zpool", "list", "-H", "-o", "name", (char *)a->pool, NULL };
	char *imp[8];
	char out[64];
	int n = 0, st = 1;

	if (!a->autodetect && run(list, NULL, 0, out, sizeof(out)) == 0)
		return 0; /* imported before: a hook, or a try before the shell */
	imp[n++] = "zpool";
	imp[n++] = "import";
	imp[n++] = "-N";
	if (a->force)
		imp[n++] = "-f";
	imp[n++] = "-d";
	imp[n++] = "/dev";
	imp[n++] = a->autodetect ? "-a" : (char *)a->pool;
	imp[n] = NULL;
	/* the init waited until the devices were quiet; a slow disk still
	 * gets a few seconds */
	for (int t = 0; t < TRIES; t++) {
		if ((st = run(imp, NULL, 0, NULL, 0)) == 0)
			return 0;
		sleep(1);
	}
	if (a->autodetect)
		fprintf(stderr, ME ": root=zfs:AUTO: zpool import -a found no pool to import%s\n",
			a->force ? "" : " (one last used by another host needs rd.zfs.force)");
	else
		fprintf(stderr, ME ": pool %s: zpool import failed (status %d)%s\n", a->pool, st,
			a->force ? "" : "; if it was last used by another host, boot with rd.zfs.force");
	return -ENOENT;
}

static int find_bootfs(struct zfsroot_args *a)
{
	char *list[] = { "zpool", "list", "-H", "-o", "name,bootfs", NULL };
	static char out[16384];

	if (run(list, NULL, 0, out, sizeof(out)) != 0 ||
	    zfsroot_bootfs(out, a->dataset, sizeof(a->dataset)) < 0) {
		fprintf(stderr, ME ": root=zfs:AUTO: no imported pool has a bootfs property "
				"(zpool set bootfs=pool/dataset pool)\n");
		return -ENOENT;
	}
	strcpy(a->pool, a->dataset);
	a->pool[strcspn(a->pool, "/")] = '\0';
	printf(ME ": root=zfs:AUTO: pool %s's bootfs is %s\n", a->pool, a->dataset);
	return 0;
}

static int get_prop(const char *prop, const char *ds, char *out, size_t size)
{
	char *get[] = { "zfs", "get", "-H", "-o", "value", (char *)prop, (char *)ds, NULL };
	int st = run(get, NULL, 0, out, size);

	chomp(out);
	return st == 0 ? 0 : -ENOENT;
}

/* An encrypted dataset's key, asked through the init (console, SSH). */
static int load_key(const char *ds)
{
	char root[ZFSROOT_NAME_MAX], status[64], prompt[ZFSROOT_NAME_MAX + 64];
	char pass[PASS_MAX + 2], why[256];
	char *load[] = { "zfs", "load-key", root, NULL };

	if (get_prop("encryptionroot", ds, root, sizeof(root)) < 0) {
		fprintf(stderr, ME ": dataset %s: not found in the imported pool\n", ds);
		return -ENOENT;
	}
	if (!strcmp(root, "-") || !strcmp(root, ""))
		return 0;
	if (!zfsroot_name_ok(root)) {
		fprintf(stderr, ME ": dataset %s: its encryptionroot is not a dataset name\n", ds);
		return -EINVAL;
	}
	if (get_prop("keystatus", root, status, sizeof(status)) == 0 &&
	    !strcmp(status, "available"))
		return 0;
	snprintf(prompt, sizeof(prompt), "Passphrase for ZFS %s: ", root);
	for (int t = 0; t < TRIES; t++) {
		ssize_t n = ask_secret(prompt, pass, sizeof(pass), why, sizeof(why));
		int st;
		if (n == -ENOTCONN) {
			fprintf(stderr, ME ": %s is encrypted and the init offers no prompt "
					"(UNIRAMFS_ASK_FD)\n", root);
			return -ENOTCONN;
		}
		if (n < 0) {
			fprintf(stderr, ME ": cannot ask for the passphrase of %s: %s\n", root,
				n == -EIO ? why : strerror((int)-n));
			return (int)n;
		}
		if (n > PASS_MAX) {
			explicit_bzero(pass, sizeof(pass));
			fprintf(stderr, ME ": a passphrase is at most %d bytes\n", PASS_MAX);
			continue;
		}
		pass[n++] = '\n';
		st = run(load, pass, (size_t)n, NULL, 0);
		explicit_bzero(pass, sizeof(pass));
		if (st == 0) {
			ask_tell("unlocked");
			return 0;
		}
		fprintf(stderr, ME ": zfs load-key %s failed: wrong passphrase?\n", root);
		ask_tell("wrong passphrase");
	}
	return -EACCES;
}

int main(int argc, char **argv)
{
	struct zfsroot_args a;
	char cmdline[4096] = "", why[512];
	char opts[32];
	int fd, st;

	if (argc != 3 || argv[2][0] != '/') {
		fprintf(stderr, "usage: %s POOL/DATASET|AUTO MOUNTPOINT\n", ME);
		return 2;
	}
	if ((fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t n = read(fd, cmdline, sizeof(cmdline) - 1);
		cmdline[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	if (zfsroot_parse(argv[1], cmdline, &a, why, sizeof(why)) < 0) {
		fprintf(stderr, ME ": %s\n", why);
		return 1;
	}
	if (import(&a) < 0 || (a.autodetect && find_bootfs(&a) < 0) || load_key(a.dataset) < 0)
		return 1;
	snprintf(opts, sizeof(opts), "zfsutil,%s", a.rw ? "rw" : "ro");
	{
		char *mnt[] = { "mount.zfs", "-o", opts, a.dataset, argv[2], NULL };
		st = run(mnt, NULL, 0, NULL, 0);
	}
	if (st != 0) {
		fprintf(stderr, ME ": mount.zfs -o %s %s %s failed (status %d)\n", opts, a.dataset,
			argv[2], st);
		return 1;
	}
	printf(ME ": mounted %s on %s (%s)\n", a.dataset, argv[2], a.rw ? "rw" : "ro");
	return 0;
}
