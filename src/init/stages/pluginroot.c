// SPDX-License-Identifier: GPL-2.0-or-later
/* A root= that a plugin's root row claims (docs/plugins.md): its program
 * mounts it on /sysroot, run as the layers' programs are (stack/tool.c),
 * and the boot goes on as after any root's mount. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/init.h"
#include "init/stack/plugin_ask.h"
#include "init/stages/stages.h"
#include "log.h"

int mount_plugin_root(struct init *in, const struct plugin_row *r)
{
	char *set = xasprintf("plugin-root:%s", r->plugin);
	char *argv[] = { r->program, in->opt.root + strlen(r->key), "/sysroot", NULL };
	int st, e;

	if ((e = in->ops->mkdir("/sysroot", 0755)) < 0 && e != -EEXIST) {
		free(set);
		return err_errno(e, "cannot create /sysroot");
	}
	log_info("root=%s: mounting it with plugin %s", in->opt.root, r->plugin);
	stack_load_modules(&in->stack_env, set, (const char *const *)r->modules.v);
	free(set);
	st = plugin_run(&in->stack_env, r->plugin, argv, r->limit_ms);
	if (st < 0)
		return err_set("plugin %s: %s %s /sysroot could not run", r->plugin, r->program,
			       argv[1]);
	if (st > 0)
		return err_set("plugin %s: %s %s /sysroot exited with status %d", r->plugin,
			       r->program, argv[1], st);
	in->fs_mounted = true;
	return 0;
}
