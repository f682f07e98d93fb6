// SPDX-License-Identifier: GPL-2.0-or-later
/* The plugins' layer rows (docs/plugins.md): each becomes a row of the
 * layer table like md's: a device of its blkid type appears, its
 * modules are loaded, its program runs, once for each of its runs that
 * the command line calls for (the device node and the options it named
 * templated in), through the same runner as cryptsetup and mdadm
 * (tool.c), within its time limit. What the program makes comes through
 * the registry like any other device. LVM is such a row
 * (plugins/lvm.conf): what it needs shaped the runs, the switch and the
 * retry modules. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "init/stack/plugin_ask.h"
#include "init/stack/plugin_rows.h"
#include "init/stack/stack.h"
#include "init/stack/stack_env.h"
#include "log.h"

struct open_job {
	const struct plugin_row *row;
	char devnode[];
};

/* {OPTION}: the values of every OPTION=V1,V2 of the command line, in
 * order, one argument each (empty ones dropped). True when any. */
static bool option_values(const struct strv *params, const char *opt, size_t n, struct strv *argv)
{
	bool any = false;

	for (size_t i = 0; i < params->n; i++) {
		const char *kv = params->v[i];
		struct strv vals = { 0 };
		if (strncmp(kv, opt, n) || kv[n] != '=')
			continue;
		strv_split(&vals, kv + n + 1, ",");
		for (size_t j = 0; j < vals.n; j++)
			if (*vals.v[j]) {
				strv_push(argv, vals.v[j]);
				any = true;
			}
		strv_free(&vals);
	}
	return any;
}

/* One run's argv (plugin_rows.c checked its words). *named: it names
 * an option; *given: one of them is on the command line. */
static void expand(const struct plugin_row *r, const char *run, const char *devnode,
		   const struct strv *params, struct strv *argv, bool *named, bool *given)
{
	*named = *given = false;
	strv_push(argv, r->program);
	for (const char *w = run; *w;) {
		size_t n = strcspn(w, " ");
		if (n == 8 && !strncmp(w, "{device}", 8)) {
			strv_push(argv, devnode);
		} else if (w[0] == '{') {
			*named = true;
			*given |= option_values(params, w + 1, n - 2, argv);
		} else {
			strv_push_owned(argv, xstrndup(w, n));
		}
		w += n + (w[n] == ' ');
	}
}

/* The commands a job runs: each an argv. */
struct cmds {
	struct strv *v;
	size_t n, cap;
};

static void cmds_add(struct cmds *c, struct strv *argv)
{
	ARRAY_GROW(c->v, c->cap, c->n + 1);
	c->v[c->n++] = *argv;
	memset(argv, 0, sizeof(*argv));
}

static void cmds_free(struct cmds *c)
{
	for (size_t i = 0; i < c->n; i++)
		strv_free(&c->v[i]);
	free(c->v);
}

/* argv as the log shows it. */
static char *shown_of(const struct strv *argv)
{
	struct buf b = { 0 };

	for (size_t i = 0; i < argv->n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", argv->v[i]);
	return b.p;
}

/* The row's runs for this device: those naming an option given on the
 * command line, or when none is, those naming none; a row without runs
 * has one: the device, then each option word as given. */
static void runs_for(const struct plugin_row *r, const char *devnode, const struct strv *params,
		     struct cmds *cmds)
{
	bool any_given = false;

	if (!r->runs.n) {
		struct strv argv = { 0 };
		strv_push(&argv, r->program);
		strv_push(&argv, devnode);
		for (size_t i = 0; i < params->n; i++)
			if (plugin_row_reads(r, params->v[i]))
				strv_push(&argv, params->v[i]);
		cmds_add(cmds, &argv);
		return;
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r->runs.n; i++) {
			struct strv argv = { 0 };
			bool named, given;
			expand(r, r->runs.v[i], devnode, params, &argv, &named, &given);
			if (pass == 0 && named && given) {
				cmds_add(cmds, &argv);
				any_given = true;
			} else if (pass == 1 && !named && !any_given) {
				cmds_add(cmds, &argv);
			}
			strv_free(&argv);
		}
}

/* A failure, said now and kept for the report after a timeout; the same
 * command ending well later drops it (lvm: the VG was short of a PV). */
static void note(struct stack_env *env, const struct plugin_row *r, const char *shown, int st)
{
	struct strv *failed = &env->stack->plugin_failed;
	char *prefix = xasprintf("plugin %s: %s ", r->plugin, shown), *line;
	size_t k = 0;

	for (size_t i = 0; i < failed->n; i++) {
		if (str_has_prefix(failed->v[i], prefix))
			free(failed->v[i]);
		else
			failed->v[k++] = failed->v[i];
	}
	failed->n = k;
	free(prefix);
	if (st == 0)
		return;
	if (st > 0)
		line = xasprintf("plugin %s: %s exited with status %d", r->plugin, shown, st);
	else if (st == -ETIMEDOUT)
		line = xasprintf("plugin %s: %s was killed at its time limit of %ld %s", r->plugin, shown,
				 r->limit_ms % 1000 ? r->limit_ms : r->limit_ms / 1000,
				 r->limit_ms % 1000 ? "ms" : "s");
	else
		line = xasprintf("plugin %s: %s could not run", r->plugin, shown);
	/* could not run: the runner said why already */
	if (st > 0)
		log_warn("%s", line);
	strv_push_owned(failed, line);
}

/* Each command; true when one failed. */
static bool run_all(struct stack_env *env, const struct plugin_row *r, const struct cmds *cmds)
{
	bool failed = false;

	for (size_t i = 0; i < cmds->n; i++) {
		char *shown = shown_of(&cmds->v[i]);
		int st = plugin_run(env, r->plugin, cmds->v[i].v, r->limit_ms);
		note(env, r, shown, st);
		failed |= st != 0;
		free(shown);
	}
	return failed;
}

static enum job_result open_job(void *arg, void *data)
{
	struct stack_env *env = arg;
	struct open_job *j = data;
	const struct plugin_row *r = j->row;
	struct cmds cmds = { 0 };
	char *set = xasprintf("plugin:%s", r->plugin);

	log_info("%s is %s: opening it with plugin %s", j->devnode, r->key, r->plugin);
	stack_load_modules(env, set, (const char *const *)r->modules.v);
	free(set);
	runs_for(r, j->devnode, &env->stack->params, &cmds);
	/* what the row loads only when needed (lvm: dm_raid), then once more */
	set = xasprintf("plugin-retry:%s", r->plugin);
	if (run_all(env, r, &cmds) && r->retry_modules.n &&
	    stack_load_modules(env, set, (const char *const *)r->retry_modules.v))
		run_all(env, r, &cmds);
	free(set);
	cmds_free(&cmds);
	return JOB_DONE;
}

static void plugin_seen(struct stack_env *env, const struct blockdev *bd)
{
	const struct plugin_row *r = plugin_rows_layer(&env->stack->plugins, bd->type);
	struct open_job *j;

	if (!r || r->off || stack_once(env->stack, "plugin", bd->devnode))
		return;
	j = xmalloc(sizeof(*j) + strlen(bd->devnode) + 1);
	j->row = r;
	strcpy(j->devnode, bd->devnode);
	stack_queue(env, "plugin", open_job, j, NULL);
}

/* KEY=0 (or no, off, false) of the row's switch turns it off, as
 * rd.luks=0 and rd.md=0 turn off theirs; the last one given counts. */
static void switch_read(struct plugin_row *r, const struct strv *params)
{
	size_t n = r->switch_opt ? strlen(r->switch_opt) : 0;
	bool b;

	for (size_t i = 0; n && i < params->n; i++) {
		const char *kv = params->v[i];
		if (strncmp(kv, r->switch_opt, n) || (kv[n] && kv[n] != '='))
			continue;
		if (!kv[n])
			r->off = false;
		else if (cmdline_parse_bool(kv + n + 1, &b) < 0)
			log_warn("ignoring %s: not a boolean (use 1 or 0)", kv);
		else
			r->off = !b;
	}
	if (r->off)
		log_info("plugin %s: %s=0: %s devices left alone", r->plugin, r->switch_opt, r->key);
}

/* rd.auto=0 (layer.c): a row with options to name its devices by
 * (LVM's rd.lvm.vg, rd.lvm.lv), none of them given, is off, as its
 * switch would turn it off. A row with none has no way to be named:
 * rd.auto does not gate it, as dracut's does not gate bcache. */
static void auto_read(struct plugin_row *r, const struct stack *s)
{
	if (r->off || !s->auto_off || !r->options.n)
		return;
	for (size_t i = 0; i < s->params.n; i++)
		if (plugin_row_reads(r, s->params.v[i]))
			return;
	r->off = true;
	log_info("plugin %s: rd.auto=0: %s devices left alone: no option of the plugin's names one",
		 r->plugin, r->key);
}

void plugin_layers_setup(struct stack_env *env, bool (*is_builtin)(const char *type))
{
	struct stack *s = env->stack;

	if (s->plugins_read)
		return;
	s->plugins_read = true;
	plugin_rows_read(env->ops, is_builtin, &s->plugins);
	for (size_t i = 0; i < s->plugins.n; i++) {
		struct plugin_row *r = &s->plugins.v[i];
		switch_read(r, &s->params);
		if (r->root || r->claim)
			continue;
		auto_read(r, s); /* sequence.c's: plugin_rows_root() before root= is judged;
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
