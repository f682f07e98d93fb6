/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_PIN_H
#define UNIRAMFS_INIT_STACK_LUKS_PIN_H

#include <stdbool.h>
#include <stddef.h>

struct stack_env;

/* What a token's open with a PIN came to, judged from cryptsetup's exit
 * status and its plugin's messages (luks_pin_judge). */
enum luks_pin_verdict {
	LUKS_PIN_OPENED,
	LUKS_PIN_WRONG,   /* the TPM refused the PIN: ask again */
	LUKS_PIN_LOCKOUT, /* dictionary-attack lockout: no PIN can work now */
	LUKS_PIN_FAILED,  /* anything else: asking again would not help */
};

/* st: cryptsetup's exit status (negative: it could not run); err: what
 * it wrote on stderr, terminated. */
enum luks_pin_verdict luks_pin_judge(int st, const char *err);

/* The token's open, given a PIN of len bytes: cryptsetup's exit status
 * (or a negative code) with its stderr in err (size bytes, terminated). */
typedef int luks_pin_open_fn(void *ctx, const char *pin, size_t len, char *err, size_t size);

/* Ask for the PIN of dev's TPM2 token through the prompt (every console
 * and an SSH login, the first answer wins: passphrase.c) and open with
 * it: up to tries times (0: until it is right), ended early by an empty
 * answer, a lockout or another failure, each said. True: opened. */
bool luks_pin_try(struct stack_env *env, const char *dev, long tries, luks_pin_open_fn *open,
		  void *ctx);

#endif
