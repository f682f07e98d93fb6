// SPDX-License-Identifier: GPL-2.0-or-later
/* Waiting for the TPM's device node (tpmwait.h). */
#include "init/tpm/tpmwait.h"

#include <unistd.h>

#include "init/core/loop.h"
#include "init/dev/driverq.h"

struct tpm_node {
	const struct sysops *ops;
	const char *path;
};

static bool node_there(void *arg)
{
	const struct tpm_node *t = arg;

	return t->ops->access(t->path, F_OK) == 0;
}

bool tpm_wait(const struct sysops *ops, struct loop *loop, struct driverq *drivers, const char *path,
	      long secs)
{
	struct tpm_node t = { ops, path };

	if (drivers)
		driverq_load_all(drivers);
	if (node_there(&t))
		return true;
	loop_run(loop, secs ? ops->now_ms() + secs * 1000 : -1, node_there, &t, 0);
	return node_there(&t);
}
