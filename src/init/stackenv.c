// SPDX-License-Identifier: GPL-2.0-or-later
/* The stack_env: what the stacking layers may use of the init, and the
 * questions they may ask the boot, apart from the boot's sequence. */
#include "init/stackenv.h"

/* The stack_env's questions to the boot (ctx: the init). */
static bool stack_root_there(void *ctx)
{
	return ((const struct init *)ctx)->root != NULL;
}

static enum stack_net stack_net_state(void *ctx)
{
	const struct netup *nu = &((const struct init *)ctx)->net;

	if (!nu->wanted)
		return STACK_NET_UNWANTED;
	if (nu->chosen >= 0)
		return STACK_NET_UP;
	return nu->failed ? STACK_NET_FAILED : STACK_NET_COMING;
}

/* What the stack may use of the init, and no more. Its pointers are
 * known now; the module index, the tools' environment and the keymap
 * are filled in by init_run as it learns them, before stack_setup. */
void stack_env_init(struct init *in)
{
	in->stack_env = (struct stack_env){
		.ops = in->ops,
		.xops = in->xops,
		.stack = &in->stack,
		.loop = &in->loop,
		.ml = in->ml,
		.drivers = &in->drivers,
		.jobs = &in->jobs,
		.devs = &in->devs,
		.remote = &in->ssh.ask,
		.tool_envp = in->tool_envp,
		.keymap = in->keymap,
		.stall_ms = &in->stall_ms,
		.root_found = stack_root_there,
		.net = stack_net_state,
		.ctx = in,
	};
}
