/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_TOKEN_H
#define UNIRAMFS_INIT_STACK_LUKS_TOKEN_H

#include <stdbool.h>
#include <stddef.h>

struct stack_env;

#include "init/stack/luks_opts.h"

/* cryptsetup open --token-only [--token-type T] [OPTIONS] DEV NAME into
 * argv (room for LUKS_TOKEN_ARGV; strings in scratch): its count. */
#define LUKS_TOKEN_ARGV (8 + LUKS_OPEN_ARGV)
size_t luks_token_argv(const char **argv, char scratch[LUKS_SCRATCH][LUKS_ARG_MAX], const struct luks_opts *o,
		       const char *dev, const char *name);
#define TPM2_DEFAULT "/dev/tpmrm0" /* systemd's default: the kernel's resource manager */
#define TPM2_WAIT_HEADER_S 5       /* only the header names a TPM: a short wait */

/* The TPM's queued driver loaded and path waited for, secs at most (0:
 * for ever), said as it waits (dev names who waits): true when there. */
bool luks_tpm_wait(struct stack_env *env, const char *dev, const char *path, long secs);
/* The LUKS2_TOKEN_* of dev's header, or -errno (-EINVAL: not LUKS2). */
int luks_header_tokens(struct stack_env *env, const char *dev);
/* Before the prompt: the device's LUKS2 tokens, when the image has the
 * plugins and the header has tokens; a TPM2 token's PIN asked for when it
 * needs one (luks_pin.h). Unlocked as name: 1 with no typed secret, 2
 * with a typed PIN; 0: not. */
int luks_token_try(struct stack_env *env, const char *dev, const char *name,
		   const struct luks_opts *o);

#endif
