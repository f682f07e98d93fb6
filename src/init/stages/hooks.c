// SPDX-License-Identifier: GPL-2.0-or-later
/* Hooks: any executable the image holds under HOOKS_DIR/STAGE runs at
 * that stage, in byte order of its name (so "10-a" before "20-b"), with
 * the state of the boot in its environment. A hook is an addition, never
 * a dependency: one that fails is logged and the boot goes on. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/stages/stages.h"
#include "log.h"

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static char **hook_env(struct init *in, const char *stage)
{
	struct strv env = { 0 };
	const struct options *o = &in->opt;

	for (char **e = in->tool_envp; e && *e; e++)
		strv_push(&env, *e);
	strv_push_owned(&env, xasprintf("UNIRAMFS_STAGE=%s", stage));
	strv_push_owned(&env, xasprintf("UNIRAMFS_KVER=%s", in->kver));
	strv_push(&env, "UNIRAMFS_SYSROOT=/sysroot");
	if (o->root)
		strv_push_owned(&env, xasprintf("UNIRAMFS_ROOT=%s", o->root));
	if (root_dev(in))
		strv_push_owned(&env, xasprintf("UNIRAMFS_ROOT_DEV=%s", root_dev(in)->devnode));
	if (o->rootfstype)
		strv_push_owned(&env, xasprintf("UNIRAMFS_ROOTFSTYPE=%s", o->rootfstype));
	if (o->rootflags)
		strv_push_owned(&env, xasprintf("UNIRAMFS_ROOTFLAGS=%s", o->rootflags));
	if (o->resume && !o->noresume)
		strv_push_owned(&env, xasprintf("UNIRAMFS_RESUME=%s", o->resume));
	strv_push(&env, in->fs_mounted ? "UNIRAMFS_ROOT_MOUNTED=1" : "UNIRAMFS_ROOT_MOUNTED=0");
	return env.v;
}

static void run_one(struct init *in, const char *stage, const char *name, char **env)
{
	char *path = xasprintf(HOOKS_DIR "/%s/%s", stage, name);
	char *argv[] = { path, NULL };
	int st;

	if (strv_contains(&in->opt.disablehooks, name)) {
		log_info("hook %s/%s disabled by disablehooks=", stage, name);
		free(path);
		return;
	}
	if (in->ops->access(path, X_OK) < 0) {
		log_warn("hook %s/%s is not executable, skipping it", stage, name);
		free(path);
		return;
	}
	log_info("running hook %s/%s", stage, name);
	st = in->xops->run ? in->xops->run(path, argv, env, NULL, 0)
			   : err_set("no way to run programs");
	if (st < 0)
		log_warn("hook %s/%s failed: %s", stage, name, err_msg());
	else if (st > 0)
		log_warn("hook %s/%s failed with status %d", stage, name, st);
	free(path);
}

void run_hooks(struct init *in, const char *stage)
{
	char *rel = xasprintf(HOOKS_DIR "/%s", stage);
	char *dir = in->ops->path(rel);
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, by_name);
	char **env = NULL;

	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			if (!env) {
				/* A hook may look any disk up by its /dev/disk
				 * link, as dracut's hooks after its udev settle
				 * do; the jobs those events queue run in the next
				 * wait. */
				devevents_drain(&in->events);
				env = hook_env(in, stage);
			}
			run_one(in, stage, ents[i]->d_name, env);
		}
		free(ents[i]);
	}
	free(ents);
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
	free(dir);
	free(rel);
}
