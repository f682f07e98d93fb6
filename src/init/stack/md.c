// SPDX-License-Identifier: GPL-2.0-or-later
/* md RAID: every member goes to `mdadm -I`, which starts its array when
 * the last member arrives. An array still short of members half way to
 * the root timeout is started degraded, as dracut does after rd.retry. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "init/stack/stack.h"
#include "log.h"

static const char *const md_modules[] = { "md_mod", "raid1", "raid0", "raid10",
					  "raid456", "linear", NULL };

static void md_parse(struct stack *s, const char *kv)
{
	bool b;

	if (str_has_prefix(kv, "rd.md=")) {
		if (cmdline_parse_bool(kv + 6, &b) < 0)
			log_warn("ignoring %s: not a boolean (use 1 or 0)", kv);
		else
			s->md_off = !b;
	} else if (str_has_prefix(kv, "rd.md.uuid=") && kv[11]) {
		strv_split(&s->md_uuids, kv + 11, ",");
	} else if (!strcmp(kv, "rd.md") || str_has_prefix(kv, "rd.md.uuid")) {
		log_warn("ignoring %s: expected %.*s=VALUE", kv, (int)strcspn(kv, "="), kv);
	} else {
		/* dracut's rd.md.conf, rd.md.waitclean, rd.md.ddf, rd.md.imsm, ... */
		log_warn("ignoring %s: uniramfs does not support %.*s", kv, (int)strcspn(kv, "="), kv);
	}
}

static bool md_wanted(const struct stack *s, const char *uuid)
{
	if (!s->md_uuids.n)
		return true;
	if (!uuid) /* firmware RAID members may have none blkid reads */
		return false;
	for (size_t i = 0; i < s->md_uuids.n; i++)
		if (stack_uuid_eq(s->md_uuids.v[i], uuid))
			return true;
	return false;
}

static enum job_result incremental_job(void *arg, void *data)
{
	struct stack_env *env = arg;
	char *argv[] = { "mdadm", "-I", data, NULL };
	int st;

	stack_load_modules(env, "md", md_modules);
	st = tool_run(env, "mdadm", argv, NULL, 0);
	if (st > 0)
		log_warn("mdadm -I %s exited with status %d", (const char *)data, st);
	return JOB_DONE;
}

static void md_seen(struct stack_env *env, const struct blockdev *bd)
{
	struct stack *s = env->stack;

	if (s->md_off)
		return;
	if (!md_wanted(s, bd->uuid)) {
		log_info("%s: RAID member of UUID=%s, not in rd.md.uuid, left alone", bd->devnode,
			 bd->uuid ? bd->uuid : "?");
		return;
	}
	s->md_member_seen = true;
	if (stack_once(s, "md", bd->devnode))
		return;
	stack_queue(env, "mdadm -I", incremental_job, xstrdup(bd->devnode), NULL);
}

/* Any array in /proc/mdstat still inactive (members missing)? */
static bool any_inactive(struct stack_env *env)
{
	char *p = env->ops->path("/proc/mdstat"), *data = NULL;
	size_t len;
	bool r;

	if (read_file(p, &data, &len) < 0) {
		free(p);
		return false;
	}
	r = strstr(data, " : inactive ") != NULL;
	free(p);
	free(data);
	return r;
}

static bool md_half_time(struct stack_env *env)
{
	char *argv[] = { "mdadm", "-IRs", NULL };
	int st;

	if (env->stack->md_off || !env->stack->md_member_seen || !any_inactive(env))
		return false;
	log_warn("starting RAID array(s) degraded: some members did not appear");
	st = tool_run(env, "mdadm", argv, NULL, 0);
	if (st > 0)
		log_warn("mdadm -IRs exited with status %d", st);
	return true;
}

static void md_report_missing(struct stack_env *env)
{
	const struct stack *s = env->stack;

	for (size_t i = 0; i < s->md_uuids.n; i++)
		if (!stack_seen_uuid(env, "linux_raid_member", s->md_uuids.v[i]))
			log_err("waited for RAID array UUID=%s (rd.md.uuid) which never appeared",
				s->md_uuids.v[i]);
}

/* Firmware RAID whose metadata md does not keep itself (Intel IMSM,
 * SNIA DDF): mdadm -I assembles the container, then its volumes, and
 * starts mdmon (packed beside mdadm) to keep their metadata; the root's
 * mdmon@.service takes over from it (--offroot --takeover). */
static const char *const md_external_types[] = { "isw_raid_member", "ddf_raid_member", NULL };

const struct layer md_layer = {
	.name = "md",
	.blkid_type = "linux_raid_member",
	.more_types = md_external_types,
	.makes = "the array, /dev/mdN (and /dev/md/NAME)",
	.option = "rd.md",
	.modules = md_modules,
	.parse = md_parse,
	.seen = md_seen,
	.half_time = md_half_time,
	.report_missing = md_report_missing,
};
