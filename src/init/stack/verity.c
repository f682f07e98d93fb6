// SPDX-License-Identifier: GPL-2.0-or-later
/* A dm-verity root, as systemd's command line describes it: roothash=
 * with systemd.verity_root_data= and systemd.verity_root_hash= (by
 * default the partitions whose PARTUUIDs are the root hash's first and
 * last 128 bits, as systemd-veritysetup-generator derives them). Once
 * both devices are there, `veritysetup open DATA root HASH ROOTHASH`
 * makes /dev/mapper/root, the root when root= is not given, mounted
 * read-only. It is a layer of C, not a plugin row: it opens devices
 * the command line names, not a blkid type; it makes the root's
 * default; the raw data device must never be taken for the root; and
 * a root hash that does not match is a failure of its own. The kernel
 * checks every block as it is read, so a wrong root hash shows at the
 * first read: the first block is read at once. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/stack.h"
#include "init/stack/verity.h"
#include "log.h"

static const char *const verity_modules[] = { "dm_mod", "dm_verity", NULL };

/* systemd reads them with "rd." too (PROC_CMDLINE_STRIP_RD_PREFIX). */
static const char *const verity_options[] = {
	"systemd.verity",		"systemd.verity_root_data",
	"systemd.verity_root_hash",	"systemd.verity_root_options",
	"rd.systemd.verity",		"rd.systemd.verity_root_data",
	"rd.systemd.verity_root_hash",	"rd.systemd.verity_root_options",
	"rd.roothash",			NULL,
};

static void set(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

static bool key_is(const char *k, size_t n, const char *name)
{
	return strlen(name) == n && !strncmp(k, name, n);
}

static void verity_parse(struct stack *s, const char *kv)
{
	struct verity *v = &s->verity;
	const char *k = str_has_prefix(kv, "rd.") ? kv + 3 : kv, *eq = strchr(k, '=');
	const char *val = eq ? eq + 1 : NULL;
	size_t n = eq ? (size_t)(eq - k) : strlen(k);
	bool b;

	if (key_is(k, n, "systemd.verity")) {
		if (val && cmdline_parse_bool(val, &b) < 0)
			log_warn("ignoring %s: not a boolean (use 1 or 0)", kv);
		else
			v->off = val && !b;
		return;
	}
	if (!val || !*val) {
		log_warn("ignoring %s: expected %.*s=VALUE", kv, (int)n, k);
		return;
	}
	if (key_is(k, n, "roothash")) {
		if (verity_hash_check(val) < 0) {
			log_warn("ignoring %s: not a root hash (an even number of hexadecimal digits, "
				 "at most 128)",
				 kv);
			return;
		}
		set(&v->roothash, val);
		for (char *c = v->roothash; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
	} else if (key_is(k, n, "systemd.verity_root_data")) {
		if (!blockdev_spec_valid(val)) {
			log_warn("ignoring %s: not a device uniramfs understands", kv);
			return;
		}
		set(&v->data, val);
		v->data_given = true;
	} else if (key_is(k, n, "systemd.verity_root_hash")) {
		if (!blockdev_spec_valid(val)) {
			log_warn("ignoring %s: not a device uniramfs understands", kv);
			return;
		}
		set(&v->hash, val);
		v->hash_given = true;
	} else if (key_is(k, n, "systemd.verity_root_options")) {
		set(&v->options, val);
	}
}

/* Once the whole command line is read: the devices the root hash names
 * when the command line does not, or why there is no verity root. */
static void verity_setup(struct stack_env *env)
{
	struct verity *v = &env->stack->verity;

	if (v->off) {
		if (v->roothash)
			log_notice("systemd.verity=0: not opening the dm-verity root of roothash=%s",
				   v->roothash);
		return;
	}
	if (!v->roothash) {
		if (v->data || v->hash)
			log_warn("ignoring systemd.verity_root_%s=%s: no roothash= on the command line",
				 v->data ? "data" : "hash", v->data ? v->data : v->hash);
		return;
	}
	if (!v->data)
		v->data = verity_partuuid_path(v->roothash, false);
	if (!v->hash)
		v->hash = verity_partuuid_path(v->roothash, true);
	if (!v->data || !v->hash) {
		log_warn("roothash=%s is shorter than 128 bits: name its devices with "
			 "systemd.verity_root_data= and systemd.verity_root_hash=",
			 v->roothash);
		free(v->roothash);
		v->roothash = NULL;
	}
}

static bool active(const struct verity *v)
{
	return v->roothash && !v->off && v->data && v->hash;
}

static bool names(const struct sysops *ops, const struct blockdev *bd, const char *spec)
{
	return blockdev_matches(bd, spec) || blockdev_link_matches(ops, bd, spec);
}

/* The first block through the mapping: the kernel checks it against the
 * root hash, so EIO here is a root hash that does not match (or a first
 * block that does not). */
static int read_first_block(struct stack_env *env)
{
	char buf[4096];
	int fd = env->ops->open(VERITY_ROOT_DEV, O_RDONLY | O_CLOEXEC, 0);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf));
	n = n < 0 ? -errno : n;
	env->ops->close(fd);
	return n < 0 ? (int)n : 0;
}

static enum job_result open_job(void *arg, void *data)
{
	struct stack_env *env = arg;
	struct verity *v = &env->stack->verity;
	struct strv argv = { 0 };
	char *close_argv[] = { "veritysetup", "close", VERITY_ROOT_NAME, NULL };
	int st, r;

	(void)data;
	stack_load_modules(env, "verity", verity_modules);
	strv_push(&argv, "veritysetup");
	strv_push(&argv, "open");
	verity_options_argv(v->options, &argv);
	strv_push(&argv, v->data_node);
	strv_push(&argv, VERITY_ROOT_NAME);
	strv_push(&argv, v->hash_node);
	strv_push(&argv, v->roothash);
	log_info("dm-verity: opening %s with hashes on %s as " VERITY_ROOT_DEV, v->data_node,
		 v->hash_node);
	st = tool_run(env, "veritysetup", argv.v, NULL, 0);
	strv_free(&argv);
	if (st != 0) {
		if (st > 0)
			log_err("veritysetup could not open %s with hashes on %s (exit status %d)",
				v->data_node, v->hash_node, st);
		return JOB_FAILED;
	}
	if ((r = read_first_block(env)) < 0) {
		log_err("dm-verity: cannot read " VERITY_ROOT_DEV " (%s, hashes on %s): %s: "
			"roothash=%s is not their root hash, or the first block is corrupted",
			v->data_node, v->hash_node, strerror(-r), v->roothash);
		tool_run(env, "veritysetup", close_argv, NULL, 0);
		return JOB_FAILED;
	}
	log_info("dm-verity: " VERITY_ROOT_DEV " is %s, checked against roothash=%s",
		 v->data_node, v->roothash);
	return JOB_DONE;
}

static void note(char **node, const struct blockdev *bd, const char *what, const char *spec)
{
	if (*node && !strcmp(*node, bd->devnode))
		return;
	set(node, bd->devnode);
	log_info("dm-verity: %s device %s is %s", what, spec, bd->devnode);
}

static void verity_any_seen(struct stack_env *env, const struct blockdev *bd)
{
	struct verity *v = &env->stack->verity;

	if (!active(v))
		return;
	if (names(env->ops, bd, v->data))
		note(&v->data_node, bd, "data", v->data);
	else if (names(env->ops, bd, v->hash))
		note(&v->hash_node, bd, "hash", v->hash);
	else
		return;
	if (v->data_node && v->hash_node && !stack_once(env->stack, "verity", VERITY_ROOT_NAME))
		stack_queue(env, "veritysetup open", open_job, NULL, NULL);
}

static void verity_report_missing(struct stack_env *env)
{
	const struct verity *v = &env->stack->verity;

	if (!active(v))
		return;
	if (!v->data_node)
		log_err("waited for the dm-verity data device %s (%s) which never appeared",
			v->data, v->data_given ? "systemd.verity_root_data" : "roothash");
	if (!v->hash_node)
		log_err("waited for the dm-verity hash device %s (%s) which never appeared",
			v->hash, v->hash_given ? "systemd.verity_root_hash" : "roothash");
}

const char *verity_default_root(const struct stack *s)
{
	const struct verity *v = &s->verity;

	/* asked before verity_setup too: the devices named, or derivable */
	if (!v->roothash || v->off || (!(v->data && v->hash) && strlen(v->roothash) < 32))
		return NULL;
	return VERITY_ROOT_DEV;
}

bool verity_member(const struct stack *s, const struct sysops *ops, const struct blockdev *bd)
{
	const struct verity *v = &s->verity;

	return active(v) && (names(ops, bd, v->data) || names(ops, bd, v->hash));
}

const struct layer verity_layer = {
	.name = "verity",
	.blkid_type = NULL, /* the devices the command line names, whatever their type */
	.makes = VERITY_ROOT_DEV,
	.option = "roothash",
	.more_options = verity_options,
	.modules = verity_modules,
	.parse = verity_parse,
	.setup = verity_setup,
	.any_seen = verity_any_seen,
	.report_missing = verity_report_missing,
};
