// SPDX-License-Identifier: GPL-2.0-or-later
/* The build's input, apart from the key table that fills it (config.c),
 * so that the build owns its own type. */
#include "gen/build/opts.h"

#include <stdlib.h>
#include <string.h>

void build_opts_init(struct build_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = MODE_GENERIC;
	o->compress = COMP_ZSTD;
	o->compress_level = -1;
	o->microcode = MICROCODE_AUTO;
}

void build_opts_free(struct build_opts *o)
{
	char **strs[] = { &o->kver,    &o->output,      &o->kmoddir,    &o->kernel_tree,
			  &o->uki,     &o->uki_stub,    &o->uki_kernel, &o->uki_cmdline,
			  &o->uki_sign_key, &o->uki_sign_cert, &o->uki_ucode,
			  &o->uki_pcr_key, &o->uki_pcr_public_key,
			  &o->sysroot, &o->cmdline,     &o->init,       &o->rescue.password_hash,
			  &o->rescue.password_account, &o->plymouth_theme };
	struct strv *lists[] = { &o->add_modules, &o->omit_modules, &o->add_files, &o->add_binaries,
				 &o->add_hooks,   &o->add_keys,     &o->keyfile_pattern, &o->plugins,
				 &o->configs };

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		strv_free(lists[i]);
}
