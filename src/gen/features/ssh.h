/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_SSH_H
#define UNIRAMFS_SSH_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/image/image.h"
#include "util.h"

/* Remote unlock over SSH (docs/unlock.md): dropbear, the keys allowed
 * to log in, the host keys, and every login forced to uniramfs-askpass. */

/* The authorized_keys looked for, in order (under --sysroot): ours, then
 * those dropbear-initramfs and dracut-sshd users already have. */
#define SSH_AUTHORIZED_KEYS_FILES                                         \
	"/etc/uniramfs/authorized_keys", "/etc/dropbear/initramfs/authorized_keys", \
		"/root/.ssh/dracut_authorized_keys"
/* Made once per machine by dropbearkey, kept, packed into hostonly images. */
#define SSH_HOSTKEY_DIR "/etc/uniramfs/dropbear"

/* ssh_unlock and ssh_hostkeys (config keys; auto, yes, no in that order,
 * as config.c's T_AUTO parser sets them). */
enum ssh_unlock { SSH_AUTO, SSH_YES, SSH_NO };
/* auto: a hostonly image with SSH unlock fails until the owner chooses */
enum ssh_hostkeys { SSH_HOSTKEYS_AUTO, SSH_HOSTKEYS_YES, SSH_HOSTKEYS_NO };

struct ssh_plan {
	bool on;
	bool hostkeys;    /* hostonly: the machine's host keys go in */
	char *keys_from;  /* the authorized_keys used, as under the sysroot */
	char *dropbear;   /* its path on the host (in the image the same) */
	struct buf authorized; /* what the image's authorized_keys holds */
	size_t nkeys;
};

/* Whether SSH goes in and with what: ssh_unlock, the mode, dropbear on
 * the host, the first authorized_keys found (read and checked now).
 * Generic images carry it only when asked (yes), and never host keys.
 * A hostonly one packs the host keys with hostkeys yes, lets dropbear
 * make them at boot with no, and fails with auto. 0, or -errno (err_*
 * set): yes without dropbear or keys, a bad authorized_keys, auto. */
int ssh_plan_decide(struct ssh_plan *sp, const char *sysroot, enum ssh_unlock mode,
		    enum ssh_hostkeys hostkeys, bool hostonly);
/* Add dropbear, its files, root's login and (hostonly) the host keys,
 * made first if the machine has none. */
int ssh_plan_add(struct ssh_plan *sp, struct image *img, const char *sysroot);
void ssh_plan_free(struct ssh_plan *sp);

/* ssh_keys.c */
/* Check authorized_keys text (name: for messages) and write each key
 * into out with uniramfs's own options (no forwarding, the forced
 * command). Blank and # lines are skipped. *nkeys: the keys written.
 * 0, or -errno (err_* set, "NAME:LINE: why", naming the text). */
int ssh_authorized_keys(const char *name, const char *data, size_t len, struct buf *out,
			size_t *nkeys);

/* All of fd (at most max bytes, else -EFBIG) into *data, NUL-terminated.
 * 0 or -errno. */
int ssh_read_fd(int fd, size_t max, char **data, size_t *len);

/* ssh_hostkeys.c */
/* The host keys in SYSROOT/SSH_HOSTKEY_DIR, each made with dropbearkey
 * when absent and never touched when there; links and keys anyone but
 * their owner may read are refused. Each one's content into the image
 * at LAYOUT_SSH_HOSTKEY_DIR (0600). 0 or -errno (err_* set). */
int ssh_hostkeys_add(struct image *img, const char *sysroot);

#endif
