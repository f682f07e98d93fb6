// SPDX-License-Identifier: GPL-2.0-or-later
/* A rescue shell in every image: dracut, initramfs-tools and mkinitcpio
 * all give one when the root is not found, and a person whose boot
 * failed needs something to look around with (issue 24). Who may use it
 * is the init's decision (stages/failure.c). */
#include "gen/features/rescue.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gen/elf/elf.h"
#include "gen/host/sysroot.h"
#include "layout.h"
#include "log.h"
#include "util.h"

#define RESCUE_HASH_MAX 512

static int add_busybox(struct image *img, const char *sysroot, enum rescue_shell mode)
{
	struct elf_resolver *er;
	char *path;
	int r;

	if (mode == RESCUE_SHELL_NO)
		return 0;
	path = sysroot_find_tool(sysroot, "busybox");
	if (!path) {
		if (mode == RESCUE_SHELL_YES)
			return err_set("rescue_shell = yes, but busybox is not installed "
				       "(apt install busybox-static)");
		log_notice("no busybox on the host (apt install busybox-static): this image has "
			   "no rescue shell");
		return 0;
	}
	if (image_has(img, path)) {
		free(path);
		return 0;
	}
	er = elf_resolver_new(sysroot);
	r = elf_add_binary(er, img, path);
	if (r == 0)
		log_info("rescue shell: %s", path);
	elf_resolver_free(er);
	free(path);
	return r;
}

/* crypt(3)'s alphabet, and '=' and ',' of "rounds=N" and yescrypt's
 * parameters: a line break or a ':' would be a second record. */
static bool hash_ok(const char *h)
{
	size_t n = strlen(h);

	if (!n || n > RESCUE_HASH_MAX || h[0] == '!' || h[0] == '*')
		return false;
	for (const char *c = h; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("./$=,", *c))
			return false;
	return true;
}

/* ACCOUNT's hash from SYSROOT/etc/shadow, resolved inside the sysroot. */
static int shadow_hash(const char *sysroot, const char *account, char **hash)
{
	char *real = NULL, *path, *data = NULL, *line, *save = NULL;
	size_t len, alen = strlen(account);
	struct stat st;
	int r;

	*hash = NULL;
	r = sysroot_resolve(sysroot, "/etc/shadow", NULL, NULL, &real, &st);
	if (r < 0)
		return r;
	path = path_join(sysroot, real);
	free(real);
	r = S_ISREG(st.st_mode) ? read_file(path, &data, &len) : -EINVAL;
	if (r < 0) {
		r = err_errno(-r, "rescue_password_account: %s", path);
		free(path);
		return r;
	}
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, account, alen) || line[alen] != ':')
			continue;
		*hash = xstrndup(line + alen + 1, strcspn(line + alen + 1, ":"));
		break;
	}
	explicit_bzero(data, len);
	free(data);
	if (!*hash)
		r = err_set("rescue_password_account = %s: no such account in %s", account, path);
	free(path);
	return r;
}

static int add_password(struct image *img, const char *sysroot, const struct rescue_opts *o)
{
	char *hash = NULL;
	int r;

	if (o->password_hash && o->password_account)
		return err_set("rescue_password_hash and rescue_password_account: give one");
	if (o->password_hash) {
		hash = xstrdup(o->password_hash);
		if (!hash_ok(hash)) {
			free(hash);
			return err_set("rescue_password_hash: not a crypt(3) hash (make one with "
				       "mkpasswd, from the whois package)");
		}
	} else if (o->password_account) {
		r = shadow_hash(sysroot, o->password_account, &hash);
		if (r < 0)
			return r;
		if (!hash_ok(hash)) {
			free(hash);
			return err_set("rescue_password_account = %s: the account has no usable "
				       "password (locked or empty)", o->password_account);
		}
	} else {
		return 0;
	}
	r = image_add_data(img, LAYOUT_RESCUE_PASSWORD_FILE, hash, strlen(hash), 0600);
	explicit_bzero(hash, strlen(hash));
	free(hash);
	if (r == 0)
		log_notice("the rescue shell asks for a password; its hash is in the image, which "
			   "anyone who can read it (a /boot that is not encrypted) can try to crack");
	return r;
}

int rescue_plan_add(struct image *img, const char *sysroot, const struct rescue_opts *o)
{
	int r = add_busybox(img, sysroot, o->shell);

	if (r == 0 && o->shell != RESCUE_SHELL_NO)
		r = add_password(img, sysroot, o);
	return r;
}
