// SPDX-License-Identifier: GPL-2.0-or-later
/* dropbear for the passphrase: no passwords, no forwarding, every login
 * forced to uniramfs-askpass (the generator made root's shell that too,
 * and its authorized_keys say command= it). Host keys are the image's
 * (hostonly) or made by dropbear -R at the first login (generic). */
#include "init/remote/sshd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "err.h"
#include "init/core/ops.h"
#include "init/core/options.h"
#include "layout.h"
#include "log.h"

#define PID_FILE "/run/uniramfs/dropbear.pid"

/* "hostkeys=image" or "hostkeys=boot": the image's LAYOUT_SSH_FILE. */
static int hostkeys_mode(const struct sysops *ops, bool *packed)
{
	char *p = ops->path(LAYOUT_SSH_FILE), *line = NULL;
	int r = read_line(p, &line);

	free(p);
	if (r < 0)
		return r;
	*packed = !strcmp(str_trim(line), "hostkeys=image");
	free(line);
	return 0;
}

static void add_hostkeys(const struct sysops *ops, struct strv *argv, bool packed)
{
	static const char *const names[] = { LAYOUT_SSH_HOSTKEYS };

	if (!packed) {
		/* generic: made at the first login into the default place */
		ops->mkdir(LAYOUT_SSH_HOSTKEY_DIR, 0700);
		strv_push(argv, "-R");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *k = xasprintf("%s/%s", LAYOUT_SSH_HOSTKEY_DIR, names[i]);
		if (ops->access(k, R_OK) == 0) {
			strv_push(argv, "-r");
			strv_push(argv, k);
		}
		free(k);
	}
}

/* As stack/tool.c finds tools: the generator packs dropbear where the
 * host has it. */
static char *find_dropbear(const struct sysops *ops)
{
	static const char *const dirs[] = { LAYOUT_TOOL_DIRS };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *p = xasprintf("%s/dropbear", dirs[i]);
		if (ops->access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

void sshd_start(struct sshd *s, const struct sysops *ops, const struct initops *xops,
		const struct options *opt, char *const *envp)
{
	struct strv argv = { 0 };
	char port[16], *dropbear, *sock;
	bool packed = false;
	int r;

	if (s->tried || !opt->ssh || hostkeys_mode(ops, &packed) < 0)
		return;
	s->tried = true;
	dropbear = find_dropbear(ops);
	if (!dropbear) {
		log_warn("SSH: the image has no dropbear; the passphrase is asked on the console only");
		return;
	}
	ops->mkdir("/run/uniramfs", 0755); /* stage_mounts made it; the socket is 0600 */
	sock = ops->path(LAYOUT_ASKPASS_SOCKET);
	r = askpass_listen(&s->ask, sock);
	free(sock);
	if (r < 0) {
		log_err("SSH: %s; the passphrase is asked on the console only", err_msg());
		free(dropbear);
		return;
	}
	/* a login asks for a terminal: echo off needs one */
	ops->mkdir("/dev/pts", 0755);
	r = ops->mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "mode=620,ptmxmode=666");
	s->devpts = r == 0;
	if (r < 0 && r != -EBUSY)
		log_warn("SSH: cannot mount /dev/pts: %s (logins get no terminal)", strerror(-r));
	snprintf(port, sizeof(port), "%ld", opt->ssh_port);
	strv_push(&argv, "dropbear");
	/* foreground, log to stderr (the console), no passwords, no
	 * forwarding either way, no motd, the one command */
	for (const char *const *a = (const char *const[]){ "-F", "-E", "-s", "-j", "-k", "-m",
							   "-p", port, "-P", PID_FILE, "-c",
							   LAYOUT_ASKPASS, NULL };
	     *a; a++)
		strv_push(&argv, *a);
	add_hostkeys(ops, &argv, packed);
	s->pid = xops->start_daemon ? xops->start_daemon(dropbear, argv.v, envp)
				    : err_set_code(-ENOSYS, "cannot start daemons");
	if (s->pid < 0) {
		log_err("SSH: cannot start dropbear: %s", err_msg());
		s->pid = 0;
		askpass_close(&s->ask);
	} else {
		log_info("SSH: dropbear on port %s: log in to answer the passphrase prompt",
			 port);
	}
	strv_free(&argv);
	free(dropbear);
}

void sshd_stop(struct sshd *s, const struct sysops *ops, const struct initops *xops)
{

	/* the logins see the end first and say so, then what is left goes */
	askpass_close(&s->ask);
	if (s->pid > 0) {
		if (xops->stop_daemon)
			xops->stop_daemon(s->pid);
		log_debug("SSH: dropbear (pid %d) stopped", (int)s->pid);
		s->pid = 0;
		ops->unlink(PID_FILE); /* killed, it cannot */
	}
	if (s->devpts && ops->umount("/dev/pts", MNT_DETACH) == 0)
		s->devpts = false;
}
