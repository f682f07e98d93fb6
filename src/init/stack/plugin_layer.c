// SPDX-License-Identifier: GPL-2.0-or-later
/* The plugins' layer rows (docs/plugins.md): each becomes a row of the
 * layer table like LVM's: a device of its blkid type appears, its
 * modules are loaded, its program runs with the device node and the
 * command-line options it named, through the same runner as lvm and
 * mdadm (tool.c). What the program makes comes through the registry
 * like any other device. */
#include <stdlib.h>
#include <string.h>

#include "init/stack/plugin_rows.h"
#include "init/stack/stack.h"
#include "init/stack/stack_env.h"
#include "log.h"

struct open_job {
	const struct plugin_row *row;
	char devnode[];
};

static enum job_result open_job(void *arg, void *data)
{
	struct stack_env *env = arg;
	struct open_job *j = data;
	const struct plugin_row *r = j->row;
	struct strv argv = { 0 };
	char *set = xasprintf("plugin:%s", r->plugin);
	int st;

	log_info("%s is %s: opening it with plugin %s", j->devnode, r->key, r->plugin);
	stack_load_modules(env, set, (const char *const *)r->modules.v);
	free(set);
	strv_push(&argv, r->program);
	strv_push(&argv, j->devnode);
	for (size_t i = 0; i < env->stack->params.n; i++)
		if (plugin_row_reads(r, env->stack->params.v[i]))
			strv_push(&argv, env->stack->params.v[i]);
	st = tool_run(env, r->program, argv.v, NULL, 0);
	if (st != 0) {
		char *what = st > 0 ? xasprintf("exited with status %d", st)
				    : xstrdup("could not run");
		if (st > 0)
			log_err("plugin %s: %s %s %s", r->plugin, r->program, j->devnode, what);
		strv_push_owned(&env->stack->plugin_failed,
				xasprintf("plugin %s: %s %s %s", r->plugin, r->program, j->devnode,
					  what));
		free(what);
	}
	strv_free(&argv);
	return JOB_DONE;
}

static void plugin_seen(struct stack_env *env, const struct blockdev *bd)
{
	const struct plugin_row *r = plugin_rows_layer(&env->stack->plugins, bd->type);
	struct open_job *j;

	if (!r || stack_once(env->stack, "plugin", bd->devnode))
		return;
	j = xmalloc(sizeof(*j) + strlen(bd->devnode) + 1);
	j->row = r;
	strcpy(j->devnode, bd->devnode);
	stack_queue(env, "plugin", open_job, j, NULL);
}

void plugin_layers_setup(struct stack_env *env, bool (*is_builtin)(const char *type))
{
	struct stack *s = env->stack;

	if (s->plugins_read)
		return;
	s->plugins_read = true;
	plugin_rows_read(env->ops, is_builtin, &s->plugins);
	for (size_t i = 0; i < s->plugins.n; i++) {
		const struct plugin_row *r = &s->plugins.v[i];
		if (r->root || r->claim)
			continue; /* sequence.c's: plugin_rows_root() before root= is judged;
				   * plugin_claim.c's */
		ARRAY_GROW(s->plugin_layers, s->capplugin_layers, s->nplugin_layers + 1);
		s->plugin_layers[s->nplugin_layers++] = (struct layer){
			.name = r->plugin,
			.blkid_type = r->key,
			.makes = "what its program makes",
			.modules = (const char *const *)r->modules.v,
			.seen = plugin_seen,
		};
		log_debug("plugin %s: %s devices are opened by %s", r->plugin, r->key, r->program);
	}
	plugin_claims_setup(env);
}

void plugin_layers_report(struct stack_env *env)
{
	for (size_t i = 0; i < env->stack->plugin_failed.n; i++)
		log_err("%s", env->stack->plugin_failed.v[i]);
}

void plugin_layers_free(struct stack *s)
{
	plugin_rows_free(&s->plugins);
	plugin_claims_free(s);
	free(s->plugin_layers);
	strv_free(&s->plugin_failed);
	strv_free(&s->params);
	s->plugin_layers = NULL;
	s->nplugin_layers = s->capplugin_layers = 0;
	s->plugins_read = false;
}
