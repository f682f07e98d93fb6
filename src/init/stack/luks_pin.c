// SPDX-License-Identifier: GPL-2.0-or-later
/* A LUKS2 token that needs a PIN (systemd-cryptenroll --tpm2-with-pin=yes):
 * the PIN is asked through the same prompt as the passphrase, so a person
 * at any console or an SSH login can answer, and handed to cryptsetup on
 * a pipe: cryptsetup 2.6 first tries its tokens without a PIN and, told
 * that one needs it (-ENOANO), reads the PIN from a stdin that is no
 * terminal, up to a newline (src/cryptsetup.c, _try_token_pin_unlock).
 * Never argv or the environment. Its exit status alone cannot tell a
 * wrong PIN from a TPM that locks everyone out (both 1): the plugin's
 * own message, on stderr, can. */
#include "init/stack/luks_pin.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/remote/askpass.h"
#include "init/stack/stack.h"
#include "log.h"
#include "util.h"

/* cryptsetup's limit for a typed secret, as for the passphrase */
#define MAX_PIN 512
/* what cryptsetup's plugin says is kept; the rest is read and dropped */
#define ERR_MAX 2048

/* The plugin's words (systemd 252's tpm2-util.c, the TPM's code through
 * tss2's Tss2_RC_Decode): TPM2_RC_LOCKOUT becomes "TPM2 device is in
 * dictionary attack lockout mode." (tss2's own text for it: "... because
 * the TPM is in DA lockout mode"); a PIN the TPM refuses fails the HMAC
 * check of the session bound to the sealed key, "Failed to open session
 * in TPM: tpm:session(1):the authorization HMAC check failed and DA
 * counter incremented" (TPM_RC_AUTH_FAIL, seen with swtpm), or
 * TPM_RC_BAD_AUTH's "authorization failure without DA implications".
 * Later systemd says "Bad PIN". */
enum luks_pin_verdict luks_pin_judge(int st, const char *err)
{
	if (st == 0)
		return LUKS_PIN_OPENED;
	if (st < 0)
		return LUKS_PIN_FAILED;
	if (strstr(err, "lockout"))
		return LUKS_PIN_LOCKOUT;
	if (strstr(err, "authorization") || strstr(err, "Bad PIN") || strstr(err, "bad PIN"))
		return LUKS_PIN_WRONG;
	return LUKS_PIN_FAILED;
}

/* The plugin's lines into the log, where the console shows them anyway. */
static void log_lines(const char *dev, char *err)
{
	char *save = NULL;

	for (char *l = strtok_r(err, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (*l)
			log_info("%s: cryptsetup: %s", dev, l);
}

/* One PIN from the prompt: its length, 0 for an empty answer, or a
 * negative code (said). */
static ssize_t read_pin(struct stack_env *env, const char *dev, char *pin, size_t size)
{
	char *raw = xasprintf("Enter TPM2 PIN for %s: ", dev), *prompt;
	size_t plen = strlen(raw) * 4 + 1;
	long long t0 = env->ops->now_ms();
	ssize_t n;

	/* the device's name goes to the console and SSH without the log:
	 * escaped as the log is */
	prompt = xmalloc(plen);
	log_escape(prompt, plen, raw);
	free(raw);
	n = env->xops->read_secret ? env->xops->read_secret(prompt, pin, size, env->loop, env->remote)
				   : err_set("no console");
	/* a person typing does not count against rd.timeout */
	*env->stall_ms += env->ops->now_ms() - t0;
	free(prompt);
	if (n < 0)
		log_err("cannot read a TPM2 PIN for %s: %s", dev, err_msg());
	return n;
}

bool luks_pin_try(struct stack_env *env, const char *dev, long tries, luks_pin_open_fn *open,
		  void *ctx)
{
	char pin[MAX_PIN + 2]; /* one more: to see that it was longer */
	char err[ERR_MAX];
	long t;

	for (t = 0; tries == 0 || t < tries; t++) {
		ssize_t n = read_pin(env, dev, pin, sizeof(pin));
		enum luks_pin_verdict v;
		int st;

		if (n < 0)
			return false;
		if (n == 0) {
			log_info("%s: no TPM2 PIN given; asking for the passphrase", dev);
			return false;
		}
		if (n > MAX_PIN) {
			explicit_bzero(pin, sizeof(pin));
			log_err("the TPM2 PIN for %s is longer than %d characters; not trying it", dev,
				MAX_PIN);
			askpass_tell(env->remote, "PIN too long");
			continue;
		}
		err[0] = '\0';
		st = open(ctx, pin, (size_t)n, err, sizeof(err));
		explicit_bzero(pin, sizeof(pin));
		v = luks_pin_judge(st, err);
		log_lines(dev, err);
		switch (v) {
		case LUKS_PIN_OPENED:
			askpass_tell(env->remote, "unlocked");
			return true;
		case LUKS_PIN_WRONG:
			log_err("wrong TPM2 PIN for %s", dev);
			askpass_tell(env->remote, "wrong PIN");
			continue;
		case LUKS_PIN_LOCKOUT:
			log_err("%s: the TPM2 is in dictionary-attack lockout and takes no PIN now; "
				"asking for the passphrase", dev);
			askpass_tell(env->remote, "TPM2 in lockout");
			return false;
		case LUKS_PIN_FAILED:
			if (st > 0)
				log_warn("%s: its TPM2 token did not open with the PIN (cryptsetup exit "
					 "status %d); asking for the passphrase", dev, st);
			return false;
		}
	}
	log_warn("%s: no right TPM2 PIN in %ld tries; asking for the passphrase", dev, t);
	return false;
}
