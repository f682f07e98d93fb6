// SPDX-License-Identifier: GPL-2.0-or-later
/* The plugins' claim rows (docs/plugins.md): a disk whose kernel name a
 * row names (sd*) is held from the root matcher and every layer until
 * the row's program answered whether it is a member of something the
 * program builds (a multipath path: multipath-tools makes the map over
 * it). Claimed, it is never a candidate for root= or a layer, so a
 * root=UUID= that both paths and the map carry resolves to the map, as
 * udev's SYSTEMD_READY=0 does for a multipath path. Not claimed, it is
 * published as any device.
 *
 * Paths come one by one: the first may be answered "not mine" (one path
 * of a WWID nobody listed) before the second makes it a member. So once
 * a disk is claimed, every disk answered "not mine" before is asked
 * again, and one claimed now is withdrawn from the subscribers (the root
 * matcher forgets it, and takes the map when it comes). */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "init/dev/registry.h"
#include "init/stack/plugin_rows.h"
#include "init/stack/stack.h"
#include "init/stack/stack_env.h"
#include "log.h"

struct claim_job {
	const struct plugin_row *row;
	bool again; /* published already: a claim withdraws it */
	char name[];
};

static const struct plugin_row *row_for(const struct plugin_rows *rows, const char *name)
{
	for (size_t i = 0; i < rows->n; i++)
		if (rows->v[i].claim && !fnmatch(rows->v[i].key, name, 0))
			return &rows->v[i];
	return NULL;
}

static void queue(struct stack_env *env, const struct plugin_row *r, const char *name, bool again);

/* The disk and its partitions: released (held ones), or withdrawn. */
static void settle(struct stack_env *env, const char *disk, bool claimed, bool again)
{
	struct stack *s = env->stack;

	if (again)
		registry_claim(env->devs, disk);
	else
		registry_release(env->devs, disk, claimed);
	for (size_t i = 0; i < s->part_names.n; i++) {
		if (strcmp(s->part_disks.v[i], disk))
			continue;
		if (again)
			registry_claim(env->devs, s->part_names.v[i]);
		else
			registry_release(env->devs, s->part_names.v[i], claimed);
	}
}

static void ask_again(struct stack_env *env)
{
	struct strv was = env->stack->claim_free;

	env->stack->claim_free = (struct strv){ 0 };
	for (size_t i = 0; i < was.n; i++) {
		const struct plugin_row *r = row_for(&env->stack->plugins, was.v[i]);
		if (r && registry_get(env->devs, was.v[i]))
			queue(env, r, was.v[i], true);
	}
	strv_free(&was);
}

static enum job_result claim_job(void *arg, void *data)
{
	struct stack_env *env = arg;
	struct claim_job *j = data;
	const struct plugin_row *r = j->row;
	const struct blockdev *bd = registry_get(env->devs, j->name);
	struct strv argv = { 0 };
	char *set, *node;
	int st;

	if (!bd)
		return JOB_DONE; /* gone meanwhile */
	node = xstrdup(bd->devnode);
	set = xasprintf("plugin:%s", r->plugin);
	stack_load_modules(env, set, (const char *const *)r->modules.v);
	free(set);
	strv_push(&argv, r->program);
	strv_push(&argv, node);
	for (size_t i = 0; i < env->stack->params.n; i++)
		if (plugin_row_reads(r, env->stack->params.v[i]))
			strv_push(&argv, env->stack->params.v[i]);
	st = tool_run_limit(env, r->program, argv.v, r->limit_ms);
	strv_free(&argv);
	if (st == 0) {
		log_info("%s is claimed by plugin %s: not a root candidate", node, r->plugin);
		settle(env, j->name, true, j->again);
		ask_again(env);
	} else {
		if (st != 1) {
			char *what = st > 0 ? xasprintf("exited with status %d", st)
					    : xstrdup("could not run");
			if (st > 0)
				log_err("plugin %s: %s %s %s", r->plugin, r->program, node, what);
			strv_push_owned(&env->stack->plugin_failed,
					xasprintf("plugin %s: %s %s %s", r->plugin, r->program,
						  node, what));
			free(what);
		}
		log_debug("%s: not claimed by plugin %s", node, r->plugin);
		if (!j->again)
			settle(env, j->name, false, false);
		strv_push(&env->stack->claim_free, j->name);
	}
	free(node);
	return JOB_DONE;
}

static void queue(struct stack_env *env, const struct plugin_row *r, const char *name, bool again)
{
	struct claim_job *j = xmalloc(sizeof(*j) + strlen(name) + 1);

	j->row = r;
	j->again = again;
	strcpy(j->name, name);
	stack_queue(env, "claim", claim_job, j, NULL);
}

static enum dev_claim claim_hold(void *arg, const struct blockdev *bd, const char *parent)
{
	struct stack_env *env = arg;
	const struct blockdev *disk;
	const struct plugin_row *r;

	if (parent) {
		/* a partition goes with its disk: held while it is, hidden
		 * once it is claimed */
		if (!(disk = registry_get(env->devs, parent)) || disk->claim == DEV_FREE) {
			if (!row_for(&env->stack->plugins, parent))
				return DEV_FREE;
		}
		strv_push(&env->stack->part_names, bd->name);
		strv_push(&env->stack->part_disks, parent);
		return disk ? disk->claim : DEV_FREE;
	}
	if (!(r = row_for(&env->stack->plugins, bd->name)))
		return DEV_FREE;
	log_debug("%s: held until plugin %s answered", bd->devnode, r->plugin);
	queue(env, r, bd->name, false);
	return DEV_HELD;
}

void plugin_claims_setup(struct stack_env *env)
{
	for (size_t i = 0; i < env->stack->plugins.n; i++)
		if (env->stack->plugins.v[i].claim) {
			env->devs->hold = claim_hold;
			env->devs->hold_arg = env;
			return;
		}
}

void plugin_claims_free(struct stack *s)
{
	strv_free(&s->claim_free);
	strv_free(&s->part_names);
	strv_free(&s->part_disks);
}
