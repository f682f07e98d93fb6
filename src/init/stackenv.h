/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACKENV_H
#define UNIRAMFS_INIT_STACKENV_H

#include "init/init.h"

/* in->stack_env from the init's own parts; the module index, the tools'
 * environment and the keymap are filled in by init_run as it learns
 * them, before stack_setup. */
void stack_env_init(struct init *in);

#endif
