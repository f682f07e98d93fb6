// SPDX-License-Identifier: GPL-2.0-or-later
/* Remote unlock over SSH, the generator's part: whether it goes in
 * (ssh_unlock, the mode, dropbear, a key to let in: the feature
 * "ssh-unlock", whose plugin plugins/ssh-unlock.conf packs dropbear with
 * its libraries), root's login whose every command is uniramfs-askpass,
 * the checked authorized_keys and, hostonly, the machine's host keys. */
#include "gen/features/ssh.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/features/stack.h"
#include "gen/host/sysroot.h"
#include "layout.h"
#include "log.h"

#define MAX_AUTHORIZED (1024 * 1024)

/* Read and check one authorized_keys: 1 when it is there (sp filled),
 * 0 when absent, -errno (err_* set) when it is bad. */
static int read_authorized(struct ssh_plan *sp, const char *sysroot, const char *file)
{
	char *path = path_join(sysroot, file), *host = NULL, *data = NULL;
	struct stat st;
	size_t len = 0;
	int fd = -1, r = sysroot_path(sysroot, file, &host, &st);

	if (r == -ENOENT) {
		err_clear();
		free(path);
		return 0;
	}
	if (r == 0 && (fd = open(host, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)) < 0)
		r = err_errno(errno, "%s", path);
	if (r == 0 && fstat(fd, &st) < 0)
		r = err_errno(errno, "%s", path);
	if (r == 0 && !S_ISREG(st.st_mode))
		r = err_set("%s is not a regular file", path);
	if (r == 0 && (r = ssh_read_fd(fd, MAX_AUTHORIZED, &data, &len)) < 0)
		r = err_errno(r, "%s", path);
	if (r == 0 && ssh_authorized_keys(path, data, len, &sp->authorized, &sp->nkeys) < 0)
		r = err_code();
	if (fd >= 0)
		close(fd);
	free(host);
	free(data);
	if (r < 0) {
		free(path);
		return r;
	}
	sp->keys_from = path;
	return 1;
}

int ssh_plan_decide(struct ssh_plan *sp, const char *sysroot, enum ssh_unlock mode,
		    enum ssh_hostkeys hostkeys, bool hostonly)
{
	static const char *const files[] = { SSH_AUTHORIZED_KEYS_FILES };
	int r = 0;

	memset(sp, 0, sizeof(*sp));
	if (mode == SSH_NO)
		return 0;
	if (mode == SSH_AUTO && !hostonly) {
		log_info("SSH: not in a generic image unless ssh_unlock = yes");
		return 0;
	}
	sp->dropbear = sysroot_find_tool(sysroot, "dropbear");
	if (!sp->dropbear) {
		if (mode == SSH_YES)
			return err_set("ssh_unlock = yes, but dropbear is not installed "
				       "(apt install dropbear-bin)");
		log_info("SSH: no dropbear on the host (apt install dropbear-bin): no remote unlock");
		return 0;
	}
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(files); i++)
		r = read_authorized(sp, sysroot, files[i]);
	if (r < 0)
		return r;
	if (!sp->keys_from || !sp->nkeys) {
		char *where = path_join(sysroot, files[0]);
		if (mode == SSH_YES)
			r = err_set("ssh_unlock = yes, but %s holds no key (nor does "
				    "dropbear-initramfs' or dracut-sshd's file)",
				    sp->keys_from ? sp->keys_from : where);
		else
			log_info("SSH: no key to let in (%s%s): no remote unlock",
				 sp->keys_from ? sp->keys_from : where,
				 sp->keys_from ? " holds none" : " and the others are absent");
		free(where);
		return r;
	}
	/* Packed keys go wherever the image is copied (/boot, an ESP);
	 * keys made at boot change at each one, and a client that pinned
	 * the old key refuses to log in: neither without the owner's word. */
	if (hostonly && hostkeys == SSH_HOSTKEYS_AUTO)
		return err_set("SSH unlock (%s): choose ssh-hostkeys = yes to pack this machine's host keys "
			       "(%s%s; anyone who can read the image has them) or ssh-hostkeys = no to let "
			       "dropbear make new ones at each boot; nothing is written",
			       sp->keys_from, strcmp(sysroot, "/") ? sysroot : "", SSH_HOSTKEY_DIR);
	sp->on = true;
	sp->hostkeys = hostonly && hostkeys == SSH_HOSTKEYS_YES;
	log_info("SSH: %zu authorized key%s from %s, dropbear %s, host keys %s", sp->nkeys,
		 sp->nkeys == 1 ? "" : "s", sp->keys_from, sp->dropbear,
		 sp->hostkeys ? "from " SSH_HOSTKEY_DIR : "made at boot");
	return 0;
}

static int add_text(struct image *img, const char *dst, const char *text, mode_t mode)
{
	return image_add_data(img, dst, text, strlen(text), mode);
}

int ssh_plan_add(struct ssh_plan *sp, struct image *img, const char *sysroot)
{
	int r = 0;

	if (!sp->on)
		return 0;
	/* dropbear itself is uniramfs's own plugin's (plugins/ssh-unlock.conf,
	 * if-feature = ssh-unlock); what is made for this image is here.
	 * root's shell is the askpass too: dropbear runs every command
	 * through it, and wants it listed in /etc/shells */
	if (r == 0)
		r = image_add_symlink(img, LAYOUT_ASKPASS, "/init");
	if (r == 0)
		r = add_text(img, "/etc/passwd", "root:x:0:0:root:/root:" LAYOUT_ASKPASS "\n", 0644);
	if (r == 0)
		r = add_text(img, "/etc/group", "root:x:0:\n", 0644);
	if (r == 0)
		r = add_text(img, "/etc/shells", LAYOUT_ASKPASS "\n", 0644);
	if (r == 0)
		r = add_text(img, "/etc/nsswitch.conf", "passwd: files\ngroup: files\n", 0644);
	if (r == 0)
		r = image_add_dir(img, "/root/.ssh", 0700);
	if (r == 0)
		r = image_add_data(img, LAYOUT_SSH_AUTHORIZED_KEYS, sp->authorized.p,
				   sp->authorized.len, 0600);
	if (r == 0)
		r = image_add_dir(img, LAYOUT_SSH_HOSTKEY_DIR, 0700);
	if (r == 0 && sp->hostkeys)
		r = ssh_hostkeys_add(img, sysroot);
	if (r == 0)
		r = add_text(img, LAYOUT_SSH_FILE, sp->hostkeys ? "hostkeys=image\n" : "hostkeys=boot\n",
			     0644);
	return r;
}

void ssh_plan_free(struct ssh_plan *sp)
{
	free(sp->keys_from);
	free(sp->dropbear);
	buf_free(&sp->authorized);
	memset(sp, 0, sizeof(*sp));
}
