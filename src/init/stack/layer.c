// SPDX-License-Identifier: GPL-2.0-or-later
/* Encrypted, logical and RAID layers. Each probed block device may hold
 * one: a LUKS header is unlocked, an LVM PV activates its VG, an md
 * member joins its array. What that makes appears as a new block uevent
 * and goes through the same path, so stacks in any order just work. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "layout.h"
#include "log.h"
#include "init/stack/stack.h"

void stack_setup(struct init *in)
{
	struct stack *s = xcalloc(1, sizeof(*s));
	const struct options *o = &in->opt;

	s->tries = 3;
	for (size_t i = 0; i < o->luks.n; i++)
		luks_parse_option(s, o->luks.v[i]);
	for (size_t i = 0; i < o->lvm.n; i++)
		lvm_parse_option(s, o->lvm.v[i]);
	for (size_t i = 0; i < o->md.n; i++)
		md_parse_option(s, o->md.v[i]);
	in->stack = s;
	luks_load_crypttab(in, s);
}

void stack_free(struct init *in)
{
	struct stack *s = in->stack;

	if (!s)
		return;
	strv_free(&s->luks_uuids);
	strv_free(&s->name_uuids);
	strv_free(&s->name_names);
	strv_free(&s->key_paths);
	strv_free(&s->key_uuids);
	for (size_t i = 0; i < s->ncrypttab; i++) {
		free(s->crypttab[i].name);
		free(s->crypttab[i].device);
		free(s->crypttab[i].keyfile);
		free(s->crypttab[i].options);
	}
	free(s->crypttab);
	strv_free(&s->vgs);
	strv_free(&s->lvs);
	strv_free(&s->md_uuids);
	strv_free(&s->done);
	strv_free(&s->deferred);
	free(s);
	in->stack = NULL;
}

void stack_block(struct init *in, const struct blockdev *bd)
{
	if (!in->stack || !bd->type)
		return;
	if (in->stack->prompting) {
		/* one prompt at a time; after it, from in->devs (newest probe) */
		if (!strv_contains(&in->stack->deferred, bd->name))
			strv_push(&in->stack->deferred, bd->name);
		return;
	}
	if (!strcmp(bd->type, "crypto_LUKS"))
		luks_block(in, bd);
	else if (!strcmp(bd->type, "LVM2_member"))
		lvm_block(in, bd);
	else if (!strcmp(bd->type, "linux_raid_member"))
		md_block(in, bd);
}

bool stack_once(struct stack *s, const char *kind, const char *key)
{
	char *k = xasprintf("%s:%s", kind, key);

	if (strv_contains(&s->done, k)) {
		free(k);
		return true;
	}
	strv_push_owned(&s->done, k);
	return false;
}

static void hex_only(const char *u, char *out, size_t size)
{
	size_t n = 0;

	for (; *u && n + 1 < size; u++)
		if (isxdigit((unsigned char)*u))
			out[n++] = (char)tolower((unsigned char)*u);
	out[n] = '\0';
}

bool stack_uuid_eq(const char *a, const char *b)
{
	char x[128], y[128];

	if (!a || !b)
		return false;
	hex_only(a, x, sizeof(x));
	hex_only(b, y, sizeof(y));
	return *x && strcmp(x, y) == 0;
}

/*
 * No modprobe in the image: the kernel's request_module() for a dm
 * target, an md personality or a cipher template finds nothing. Load
 * what the layer may need before its tool runs; the ones not in the
 * image are simply not wanted there (hostonly picked its set).
 */
bool stack_load_modules(struct init *in, const char *layer)
{
	static const struct {
		const char *layer, *mods[8];
	} sets[] = {
		{ "luks", { "dm_mod", "dm_crypt", "xts", "ecb", "essiv", "cbc" } },
		{ "lvm", { "dm_mod", "dm_snapshot", "dm_thin_pool", "dm_mirror", "dm_cache",
			   "dm_cache_smq" } },
		/* raid456 benchmarks its algorithms for a good half second:
		 * only once lvm failed without it (lvm.c) */
		{ "lvm-raid", { "dm_raid" } },
		{ "md", { "md_mod", "raid1", "raid0", "raid10", "raid456", "linear" } },
	};

	if (!in->ml || stack_once(in->stack, "modules", layer))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
		if (strcmp(sets[i].layer, layer))
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(sets[i].mods) && sets[i].mods[k]; k++)
			if (modload_name(in->ml, sets[i].mods[k]) < 0)
				log_debug("%s: %s", sets[i].mods[k], err_msg());
	}
	modload_settle(in->ml);
	return true;
}

char *stack_find_tool(struct init *in, const char *name)
{
	/* where the generator finds them on the host, so the same path */
	static const char *const dirs[] = { LAYOUT_TOOL_DIRS };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *p = xasprintf("%s/%s", dirs[i], name);
		if (in->ops->access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

int stack_run(struct init *in, const char *name, char *const argv[], const void *input,
	      size_t len)
{
	char *path = stack_find_tool(in, name);
	struct buf cmd = { 0 };
	struct strv env = { 0 };
	int st;

	for (size_t i = 0; argv[i]; i++)
		buf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
	if (!path) {
		log_err("cannot run %s: %s is not in this image", cmd.p, name);
		buf_free(&cmd);
		return -1;
	}
	log_debug("running %s", cmd.p);
	for (char **e = in->tool_envp; e && *e; e++)
		strv_push(&env, *e);
	/* lvm names every inherited fd it did not expect: noise on the console */
	strv_push(&env, "LVM_SUPPRESS_FD_WARNINGS=1");
	st = in->xops->run ? in->xops->run(path, argv, env.v, input, len)
			   : err_set("no way to run programs");
	strv_free(&env);
	if (st < 0)
		log_err("cannot run %s: %s", cmd.p, err_msg());
	free(path);
	buf_free(&cmd);
	return st;
}

/* Half the root timeout (15 s when it is forever) gives every member
 * of an array its chance; then arrays still short of members are
 * started degraded, as dracut does after rd.retry. */
void stack_wait_root(struct init *in, long long deadline_ms)
{
	struct stack *s = in->stack;
	long timeout = in->opt.timeout < 0 ? DEFAULT_ROOT_TIMEOUT : in->opt.timeout;
	long long half = now_ms(in) + timeout * 1000 / 2, stall0 = in->stall_ms;

	if (s && !s->md_off && !s->degraded_tried) {
		if (deadline_ms >= 0 && half > deadline_ms)
			half = deadline_ms;
		wait_events(in, half, 0, true);
		if (in->root >= 0)
			return;
		if (s->md_member_seen && md_any_inactive(in)) {
			s->degraded_tried = true;
			md_start_degraded(in);
		}
		/* a prompt answered meanwhile moves the whole wait on */
		if (deadline_ms >= 0)
			deadline_ms += in->stall_ms - stall0;
	}
	wait_events(in, deadline_ms, 0, true);
}

bool stack_link_matches(struct init *in, const struct blockdev *bd, const char *spec)
{
	char *a, *b, ra[PATH_MAX], rb[PATH_MAX];
	bool r;

	if (!str_has_prefix(spec, "/dev/") || !bd->devnode || !strcmp(spec, bd->devnode))
		return false;
	a = in->ops->path(spec);
	b = in->ops->path(bd->devnode);
	r = realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
	free(a);
	free(b);
	return r;
}

static bool seen_uuid(struct init *in, const char *type, const char *uuid)
{
	for (size_t i = 0; i < in->ndevs; i++) {
		const struct blockdev *bd = &in->devs[i];
		if (bd->type && !strcmp(bd->type, type) && stack_uuid_eq(bd->uuid, uuid))
			return true;
	}
	return false;
}

void stack_report_missing(struct init *in)
{
	struct stack *s = in->stack;

	if (!s)
		return;
	for (size_t i = 0; i < s->luks_uuids.n; i++)
		if (!seen_uuid(in, "crypto_LUKS", s->luks_uuids.v[i]))
			log_err("waited for LUKS device UUID=%s (rd.luks.uuid) which never appeared",
				s->luks_uuids.v[i]);
	for (size_t i = 0; i < s->name_uuids.n; i++)
		if (!strv_contains(&s->luks_uuids, s->name_uuids.v[i]) &&
		    !seen_uuid(in, "crypto_LUKS", s->name_uuids.v[i]))
			log_err("waited for LUKS device UUID=%s (rd.luks.name) which never appeared",
				s->name_uuids.v[i]);
	for (size_t i = 0; i < s->md_uuids.n; i++)
		if (!seen_uuid(in, "linux_raid_member", s->md_uuids.v[i]))
			log_err("waited for RAID array UUID=%s (rd.md.uuid) which never appeared",
				s->md_uuids.v[i]);
}
