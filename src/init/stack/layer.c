// SPDX-License-Identifier: GPL-2.0-or-later
/* Encrypted and RAID layers, as a table. Each probed block device may
 * hold one: its row's seen() queues a job (unlock, assemble); what the
 * job makes appears as a new block device and comes through the
 * registry like any other, so stacks in any order just work. The
 * plugins' layer rows (plugin_layer.c) follow the built-in ones once the
 * image's rows are read (stack_setup): LVM among them, uniramfs's own
 * plugin (plugins/lvm.conf). LUKS and md stay here: LUKS asks for a
 * passphrase and reads crypttab, md starts arrays degraded half way to
 * the root's timeout and names rd.md.uuid never seen, which no row
 * says. */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/stack/stack.h"
#include "log.h"

static const struct layer *const layers[] = { &luks_layer, &md_layer, &verity_layer };

/* The k-th row: the built-in ones, then the plugins'; NULL past the end. */
static const struct layer *layer_at(const struct stack *s, size_t k)
{
	if (k < ARRAY_SIZE(layers))
		return layers[k];
	k -= ARRAY_SIZE(layers);
	return k < s->nplugin_layers ? &s->plugin_layers[k] : NULL;
}

static bool layer_opens(const struct layer *l, const char *type)
{
	if (l->blkid_type && !strcmp(type, l->blkid_type))
		return true;
	for (const char *const *t = l->more_types; t && *t; t++)
		if (!strcmp(type, *t))
			return true;
	return false;
}

/* A plugin may not take a type a built-in layer opens. */
static bool builtin_type(const char *type)
{
	for (size_t k = 0; k < ARRAY_SIZE(layers); k++)
		if (layer_opens(layers[k], type))
			return true;
	return false;
}

static bool option_is(const char *o, const char *key)
{
	size_t n = strlen(o);

	return !strncmp(key, o, n) && (!key[n] || key[n] == '.');
}

/* Its option (KEY or KEY.*) or one of its more_options. */
static bool layer_option(const struct layer *l, const char *key)
{
	if (option_is(l->option, key))
		return true;
	for (const char *const *o = l->more_options; o && *o; o++)
		if (option_is(*o, key))
			return true;
	return false;
}

void stack_init(struct stack *s)
{
	memset(s, 0, sizeof(*s));
	s->tries = 3;
	luks_opts_init(&s->opts);
}

/* dracut's rd.auto: its default, 0, assembles only the md arrays, LUKS
 * devices and LVM volumes the command line names (dracut's hostonly
 * images name them in their own cmdline.d); rd.auto=1, every one found.
 * uniramfs has no such names baked in and promises that a generic image
 * boots a stacked root with root= alone, so without the word it assembles
 * everything, as rd.auto=1 asks. An rd.auto=0 written out is honoured:
 * a layer none of whose options is given is left alone (LUKS: unless the
 * image's crypttab names the device). The last word counts; "rd.auto"
 * alone is 1, as dracut's getargbool reads it. */
static void auto_parse(struct stack *s, const struct cmdline_param *p)
{
	bool b;

	if (!p->val)
		s->auto_off = false;
	else if (cmdline_parse_bool(p->val, &b) < 0)
		log_warn("ignoring rd.auto=%s: not a boolean (use 1 or 0)", p->val);
	else
		s->auto_off = !b;
}

void stack_parse(struct stack *s, const struct cmdline *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct cmdline_param *p = &c->p[i];
		strv_push_owned(&s->params,
				p->val ? xasprintf("%s=%s", p->key, p->val) : xstrdup(p->key));
		if (!strcmp(p->key, "rd.auto"))
			auto_parse(s, p);
		for (size_t k = 0; k < ARRAY_SIZE(layers); k++) {
			if (!layer_option(layers[k], p->key))
				continue;
			char *kv = p->val ? xasprintf("%s=%s", p->key, p->val) : xstrdup(p->key);
			layers[k]->parse(s, kv);
			free(kv);
		}
	}
	if (s->auto_off && !s->md_off && !s->md_uuids.n) {
		log_info("rd.auto=0: md arrays left alone: no rd.md.uuid= names one");
		s->md_off = true;
	}
}

void stack_free(struct stack *s)
{
	strv_free(&s->luks_uuids);
	strv_free(&s->name_uuids);
	strv_free(&s->name_names);
	for (size_t i = 0; i < s->nkeys; i++)
		luks_key_free(&s->keys[i]);
	free(s->keys);
	luks_free_waiting(s);
	luks_crypttab_opts_free(s);
	luks_header_free(s);
	crypttab_free(&s->crypttab);
	strv_free(&s->md_uuids);
	verity_free(&s->verity);
	strv_free(&s->done);
	luks_opts_free(&s->opts);
	luks_uuid_opts_free(s);
	plugin_layers_free(s);
	memset(s, 0, sizeof(*s));
}

void stack_seen(void *arg, enum dev_change what, const struct blockdev *bd)
{
	struct stack_env *env = arg;
	const struct layer *l;

	if (what == DEV_REMOVED)
		return;
	luks_any_seen(env, bd);
	for (size_t k = 0; (l = layer_at(env->stack, k)); k++)
		if (l->any_seen)
			l->any_seen(env, bd);
	if (!bd->type)
		return;
	for (size_t k = 0; (l = layer_at(env->stack, k)); k++)
		if (layer_opens(l, bd->type))
			l->seen(env, bd);
}

bool stack_has_half_time(const struct stack_env *env)
{
	const struct layer *l;

	if (env->stack->half_time_done)
		return false;
	for (size_t k = 0; (l = layer_at(env->stack, k)); k++)
		if (l->half_time)
			return true;
	return false;
}

bool stack_half_time(struct stack_env *env)
{
	const struct layer *l;
	bool did = false;

	if (env->stack->half_time_done)
		return false;
	env->stack->half_time_done = true;
	for (size_t k = 0; (l = layer_at(env->stack, k)); k++)
		if (l->half_time)
			did |= l->half_time(env);
	return did;
}

void stack_setup(struct stack_env *env)
{
	const struct layer *l;

	plugin_layers_setup(env, builtin_type);
	for (size_t k = 0; (l = layer_at(env->stack, k)); k++)
		if (l->setup)
			l->setup(env);
}

void stack_report_missing(struct stack_env *env)
{
	const struct layer *l;

	for (size_t k = 0; (l = layer_at(env->stack, k)); k++)
		if (l->report_missing)
			l->report_missing(env);
	plugin_layers_report(env);
}
