// SPDX-License-Identifier: GPL-2.0-or-later
/* Who gets the rescue shell (issue 24): a shell after a failure is what
 * dracut, initramfs-tools and mkinitcpio users expect, but after an
 * automatic unlock (docs/unlock.md) it would hand an open volume to
 * whoever is at the console, the class of CVE-2016-4484. So: the
 * image's password when it has one, else no shell after an automatic
 * unlock unless the owner opted in. The messages are an interface
 * (docs/messages.md). */
#include <crypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"

#define RESCUE_TRIES 3
#define RESCUE_PASSWORD_MAX 512
#define RESCUE_PROMPT "Password for the rescue shell: "

/* The image's hash (LAYOUT_RESCUE_PASSWORD_FILE), its trailing blanks
 * cut; NULL: the image has none (an empty file is none too). */
static char *read_hash(struct init *in)
{
	char *path = in->ops->path(LAYOUT_RESCUE_PASSWORD_FILE), *h = NULL;
	size_t len;

	if (read_file(path, &h, &len) < 0) {
		free(path);
		return NULL;
	}
	free(path);
	while (len && (h[len - 1] == '\n' || h[len - 1] == ' ' || h[len - 1] == '\t'))
		h[--len] = '\0';
	if (!len) {
		free(h);
		return NULL;
	}
	return h;
}

/* Every byte compared, so the time says nothing of where they differ. */
static bool same_text(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned char d = na != nb;

	for (size_t i = 0; i < na && i < nb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return !d;
}

bool rescue_password_ok(const char *typed, const char *hash)
{
	struct crypt_data *cd = xcalloc(1, sizeof(*cd));
	/* crypt_rn: libxcrypt's, NULL for a hash it cannot use (crypt_r
	 * answers "*0"); and the one the sanitizers do not intercept */
	const char *out = crypt_rn(typed, hash, cd, (int)sizeof(*cd));
	bool ok = out && out[0] != '*' && same_text(out, hash);

	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

/* 0: the right password typed; a negative code after saying why not. */
static int ask_password(struct init *in, const char *hash)
{
	char pass[RESCUE_PASSWORD_MAX + 2];

	if (!in->xops->read_secret) {
		log_err("cannot read the rescue password: no console");
		return -ENOTTY;
	}
	for (int t = 0; t < RESCUE_TRIES; t++) {
		ssize_t n = in->xops->read_secret(RESCUE_PROMPT, pass, sizeof(pass), &in->loop, NULL);
		bool ok;

		if (n < 0) {
			log_err("cannot read the rescue password: %s", err_msg());
			return (int)n;
		}
		ok = n <= RESCUE_PASSWORD_MAX && rescue_password_ok(pass, hash);
		explicit_bzero(pass, sizeof(pass));
		if (ok)
			return 0;
		log_err("wrong password for the rescue shell");
	}
	log_err("no shell: %d wrong passwords", RESCUE_TRIES);
	return -EACCES;
}

int rescue_wanted(struct init *in, bool at_break)
{
	if (!in->opt.shell) {
		log_err("not starting a shell: rd.shell=0");
		return -EPERM;
	}
	if (!at_break && in->opt.emergency >= EMERGENCY_REBOOT &&
	    in->opt.emergency <= EMERGENCY_HALT) {
		log_err("not starting a shell: rd.emergency=%s",
			in->opt.emergency == EMERGENCY_REBOOT	? "reboot"
			: in->opt.emergency == EMERGENCY_POWEROFF ? "poweroff"
								  : "halt");
		return -EPERM;
	}
	return 0;
}

int rescue_authorized(struct init *in)
{
	char *hash = read_hash(in);
	int r;

	if (hash) {
		/* whoever types needs a keyboard: every queued driver loads */
		driverq_load_all(&in->drivers);
		r = ask_password(in, hash);
		explicit_bzero(hash, strlen(hash));
		free(hash);
		return r;
	}
	if (in->stack.auto_unlocked && !in->opt.shell_given && in->opt.emergency != EMERGENCY_SHELL) {
		log_err("not starting a shell: a volume was unlocked with no typed secret (TPM2, "
			"clevis, a key file or a token) and the image has no rescue password; "
			"rd.shell=1 or rd.emergency=shell on the command line allows one");
		return -EPERM;
	}
	return 0;
}
