// SPDX-License-Identifier: GPL-2.0-or-later
/* LVM: each new physical volume re-runs the activation, so a volume
 * group spread over several disks comes up once its last PV is there
 * (lvm activates what is complete and leaves the rest for the next
 * run). lvm makes /dev/VG/LV and /dev/mapper nodes itself: the image's
 * lvm.conf turns udev off. */
#include <stdlib.h>
#include <string.h>

#include "init/stack/stack.h"
#include "log.h"

static const char *const lvm_modules[] = { "dm_mod", "dm_snapshot", "dm_thin_pool",
					   "dm_mirror", "dm_cache", "dm_cache_smq", NULL };
/* raid456 benchmarks its algorithms for a good half second: only once
 * lvm failed without it */
static const char *const lvm_raid_modules[] = { "dm_raid", NULL };

static void lvm_parse(struct stack *s, const char *kv)
{
	bool b;

	if (str_has_prefix(kv, "rd.lvm=")) {
		if (cmdline_parse_bool(kv + 7, &b) < 0)
			log_warn("ignoring %s: not a boolean (use 1 or 0)", kv);
		else
			s->lvm_off = !b;
	} else if (str_has_prefix(kv, "rd.lvm.vg=") && kv[10]) {
		strv_split(&s->vgs, kv + 10, ",");
	} else if (str_has_prefix(kv, "rd.lvm.lv=") && kv[10]) {
		if (!strchr(kv + 10, '/'))
			log_warn("ignoring %s: expected rd.lvm.lv=VG/LV", kv);
		else
			strv_split(&s->lvs, kv + 10, ",");
	}
}

static int activate(struct stack_env *env, const char *verb, const struct strv *names)
{
	struct strv argv = { 0 };
	int st;

	strv_push(&argv, "lvm");
	strv_push(&argv, verb);
	strv_push(&argv, "-ay");
	strv_push(&argv, "--sysinit");
	/* names from the command line: one starting with '-' is no option */
	if (names && names->n)
		strv_push(&argv, "--");
	for (size_t i = 0; names && i < names->n; i++)
		strv_push(&argv, names->v[i]);
	st = tool_run(env, "lvm", argv.v, NULL, 0);
	/* A VG whose other PVs are still to come fails in part: normal. */
	if (st > 0)
		log_info("lvm %s exited with status %d", verb, st);
	strv_free(&argv);
	return st;
}

/* Activate; a failure may be a RAID LV whose target is not loaded yet
 * (or a VG still missing PVs): load dm_raid and try once more. */
static void activate_all(struct stack_env *env, const struct stack *s)
{
	int st = 0;

	if (!s->vgs.n && !s->lvs.n) {
		st = activate(env, "vgchange", NULL);
	} else {
		if (s->vgs.n)
			st |= activate(env, "vgchange", &s->vgs) > 0;
		if (s->lvs.n)
			st |= activate(env, "lvchange", &s->lvs) > 0;
	}
	if (st > 0 && stack_load_modules(env, "lvm-raid", lvm_raid_modules))
		activate_all(env, s);
}

static enum job_result activate_job(void *arg, void *data)
{
	struct stack_env *env = arg;

	log_info("%s is an LVM physical volume: activating", (const char *)data);
	stack_load_modules(env, "lvm", lvm_modules);
	activate_all(env, env->stack);
	return JOB_DONE;
}

static void lvm_seen(struct stack_env *env, const struct blockdev *bd)
{
	struct stack *s = env->stack;

	if (s->lvm_off || stack_once(s, "lvm", bd->devnode))
		return;
	stack_queue(env, "lvm", activate_job, xstrdup(bd->devnode), NULL);
}

const struct layer lvm_layer = {
	.name = "lvm",
	.blkid_type = "LVM2_member",
	.makes = "the volume group's logical volumes, /dev/VG/LV (dm devices)",
	.option = "rd.lvm",
	.modules = lvm_modules,
	.parse = lvm_parse,
	.seen = lvm_seen,
};
