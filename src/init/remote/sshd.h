/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_REMOTE_SSHD_H
#define UNIRAMFS_INIT_REMOTE_SSHD_H

#include <stdbool.h>
#include <sys/types.h>

#include "init/core/ops.h"
#include "init/remote/askpass.h"

struct options;

#define SSH_DEFAULT_PORT 22

/* Remote unlock (docs/unlock.md): dropbear, started once the network is
 * up when the image holds it (LAYOUT_SSH_FILE), and the socket its
 * logins answer the passphrase prompt on. */
struct sshd {
	pid_t pid;      /* dropbear; 0: not running */
	bool devpts;    /* /dev/pts mounted for its logins' terminals */
	bool tried;     /* started (or failed to) once: never again */
	struct askpass ask;
};

/* The network is up: start dropbear if the image and the command line
 * (rd.ssh, rd.ssh.port) ask for it. Problems are logged: the prompt on
 * the console still answers. */
void sshd_start(struct sshd *s, const struct sysops *ops, const struct initops *xops,
		const struct options *opt, char *const *envp);
/* Before switch_root or a reboot: dropbear and every login it started
 * killed, the socket closed and removed, /dev/pts unmounted. */
void sshd_stop(struct sshd *s, const struct sysops *ops, const struct initops *xops);

/* daemon.c: the real initops' start_daemon and stop_daemon. */
pid_t real_start_daemon(const char *path, char *const argv[], char *const envp[]);
void real_stop_daemon(pid_t pid);

#endif
