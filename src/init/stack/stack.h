/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_STACK_H
#define UNIRAMFS_INIT_STACK_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cmdline.h"
#include "init/core/jobs.h"
#include "init/dev/blockdev.h"
#include "init/dev/registry.h"
#include "init/stack/crypttab.h"
#include "init/stack/luks_header.h"
#include "init/stack/luks_token.h"
#include "init/stack/plugin_rows.h"
#include "init/stack/stack_env.h"
#include "init/stack/verity.h"
#include "util.h"

struct loop;
struct askpass;

/* One line of the image's /etc/crypttab (hostonly images). */
/* A LUKS key file and where it applies (rd.luks.key, crypttab). */
struct luks_key {
	char *path;    /* absolute: in the image, or on keydev */
	char *keydev;  /* the device holding it (UUID=, LABEL=, /dev/...); NULL: the image */
	char *luksdev; /* the LUKS device it opens (UUID or device spec); NULL: any */
};

struct unlock;

/* What the rd.luks.* and rd.md.* options and the image's crypttab ask
 * for, and what was done already (the plugins' options: params). */
struct stack {
	bool luks_off, md_off, crypttab_off;
	/* rd.auto=0 given: dracut's "only what the command line names"
	 * (layer.c); its absence keeps uniramfs's own default, everything */
	bool auto_off;
	bool dps; /* root discovery: a LUKS partition of the root (usr) type opens as "root" ("usr") */
	struct strv luks_uuids;             /* rd.luks.uuid, lowercase, no "luks-" */
	struct strv name_uuids, name_names; /* rd.luks.name=UUID=NAME, parallel */
	struct luks_key *keys;              /* rd.luks.key, in order: the first that fits */
	size_t nkeys, capkeys;
	struct unlock **waiting;            /* unlocks whose key device is yet to come */
	size_t nwaiting, capwaiting;
	struct unlock **net_waiting;        /* clevis unlocks waiting for the network */
	size_t nnet_waiting, capnet_waiting;
	bool clevis_off;                    /* rd.luks.clevis=0 */
	long tries;                         /* rd.luks.tries, default 3 */
	struct luks_opts opts;              /* rd.luks.options=OPTS: devices without their own */
	struct luks_uuid_opts *uuid_opts;   /* rd.luks.options=UUID=OPTS: that device's, instead */
	size_t nuuid_opts, capuuid_opts;
	bool tokens_off, allow_discards;    /* rd.luks.tokens=0, rd.luks.allow-discards: every device */
	struct crypttab crypttab;           /* the image's /etc/crypttab */
	struct luks_opts *ct_opts;          /* each line's options, parallel (luks_crypttab_opts) */
	struct luks_detached *detached;     /* detached headers (luks_header.c) */
	size_t ndetached, capdetached;
	struct strv md_uuids;  /* rd.md.uuid as given (mdadm or blkid spelling) */
	struct verity verity;  /* roothash=, systemd.verity_root_* (verity.c) */
	struct strv done;      /* "luks:UUID", "plugin:/dev/X", "md:/dev/X", "modules:SET" */
	bool md_member_seen, half_time_done;
	long long last_run_ms; /* ops clock: when a layer's tool last ran */
	bool auto_unlocked;    /* a volume opened with no typed secret (docs/unlock.md) */
	/* The plugins' rows (plugin_layer.c): read at stack_setup, their
	 * layers after the built-in ones in the table. The command line is
	 * kept whole for them, since which options they read is known only
	 * once the image's rows are. */
	struct strv params;               /* "KEY=VALUE" or "KEY", in order */
	struct plugin_rows plugins;
	struct layer *plugin_layers;
	size_t nplugin_layers, capplugin_layers;
	struct strv plugin_failed;        /* what each failed program was given, for the timeout's report */
	bool plugins_read;
	/* The claim rows (plugin_claim.c): disks a row answered "not
	 * mine", asked again once another disk was claimed (a second
	 * path); each partition seen with its disk, parallel. */
	struct strv claim_free;
	struct strv part_names, part_disks;
};

/* A layer a block device may hold, libblkid style: a new one (iSCSI,
 * NBD) is one file and one row in layer.c's table. */
struct layer {
	const char *name;       /* "luks" */
	const char *blkid_type; /* the TYPE blkid gives its devices: "crypto_LUKS"; NULL: none (any_seen) */
	const char *const *more_types; /* others it opens the same way (NULL-terminated), or NULL */
	const char *makes;      /* what opening one makes, for the docs and the log */
	const char *option;     /* its command line options: "rd.luks" (and "rd.luks.*") */
	const char *const *more_options; /* others matched the same way (NULL-terminated), or NULL */
	const char *const *modules; /* loaded before its tool first runs (NULL-terminated) */
	/* One of its options, "KEY=VALUE" or "KEY". */
	void (*parse)(struct stack *s, const char *kv);
	/* Once the options are read (luks: the image's crypttab), or NULL. */
	void (*setup)(struct stack_env *env);
	/* A device of its type appeared or changed: queue a job to open it
	 * if it is wanted. Never blocks. */
	void (*seen)(struct stack_env *env, const struct blockdev *bd);
	/* Any device that appeared or changed, whatever its type (verity:
	 * the devices the command line names), or NULL. Never blocks. */
	void (*any_seen)(struct stack_env *env, const struct blockdev *bd);
	/* The root is not there half way to its timeout (md: start arrays
	 * degraded). NULL: nothing to do. Runs between loop runs. */
	bool (*half_time)(struct stack_env *env);
	/* After the root timed out: name what it waited for in vain. */
	void (*report_missing)(struct stack_env *env);
};

/* layer.c */
void stack_init(struct stack *s);
/* The layers' options from the command line: the one place they are read. */
void stack_parse(struct stack *s, const struct cmdline *c);
/* Each layer's setup (the image's crypttab). */
void stack_setup(struct stack_env *env);
/* The registry's subscriber (arg: the struct stack_env). */
void stack_seen(void *env, enum dev_change what, const struct blockdev *bd);
/* Half the root timeout passed without it: each layer's half_time, once.
 * True when one did something. */
bool stack_half_time(struct stack_env *env);
bool stack_has_half_time(const struct stack_env *env);
/* After a timeout: name each rd.luks.uuid / rd.md.uuid never seen. */
void stack_report_missing(struct stack_env *env);
void stack_free(struct stack *s);

/* common.c: for the layers */
/* "kind:key" was done before; if not, mark it and return false. */
bool stack_once(struct stack *s, const char *kind, const char *key);
/* UUIDs compared as their hex digits, any case, any '-' or ':'. */
bool stack_uuid_eq(const char *a, const char *b);
/* Was a device of blkid type with this UUID ever seen? */
bool stack_seen_uuid(const struct stack_env *env, const char *type, const char *uuid);
/* Load a set of modules (NULL-terminated) once per set name: true when
 * it did now. Before the tool runs: lvm execs a modprobe program of
 * its own for a missing dm target, which the image does not have (only
 * the kernel's request_module() is answered, by init/modprobe.c). */
bool stack_load_modules(struct stack_env *env, const char *set, const char *const *mods);
/* Queue a layer's job. data is owned by the job (freed with free(3)
 * unless free_fn). */
void stack_queue(struct stack_env *env, const char *what,
		 enum job_result (*run)(void *env, void *data), void *data,
		 void (*free_fn)(void *));
/* The boot's answers, through env's callbacks (none: a test's env,
 * where the root is still to come and nobody asked for a network). */
static inline bool stack_root_found(const struct stack_env *env)
{
	return env->root_found && env->root_found(env->ctx);
}
static inline enum stack_net stack_net(const struct stack_env *env)
{
	return env->net ? env->net(env->ctx) : STACK_NET_UNWANTED;
}

/* luks_key.c */
/* One rd.luks.key= value (warns by name and ignores a bad one). */
void luks_key_parse(struct stack *s, const char *v);
void luks_key_free(struct luks_key *k);
/* The first key for this LUKS device (uuid: its LUKS UUID when the
 * device shows none, its header detached; else NULL), or NULL. */
const struct luks_key *luks_key_for(const struct stack *s, const struct blockdev *bd,
				    const char *uuid);
/* Mount node (a filesystem fstype; keydev is its spec, for messages)
 * read-only, append the key file path on it to out, unmount. 0 or
 * -errno, after a warning naming the device, the file and why. */
int luks_key_read(struct stack_env *env, const char *node, const char *fstype, const char *keydev,
		  const char *path, struct buf *out);
/* Tests: open the key file by the component walk that stands in for
 * openat2 on kernels before 5.6, as if openat2 were ENOSYS. */
void luks_key_force_walk(bool on);

/* plugin_layer.c: the plugins' layer rows (docs/plugins.md). */
/* Read the image's rows once and add a layer for each layer row;
 * is_builtin: a blkid type the built-in layers open. */
void plugin_layers_setup(struct stack_env *env, bool (*is_builtin)(const char *type));
/* After the root timed out: each plugin program that failed. */
void plugin_layers_report(struct stack_env *env);
void plugin_layers_free(struct stack *s);
/* plugin_claim.c: the plugins' claim rows: each new disk they name is
 * held from the root matcher until the row's program answered. */
void plugin_claims_setup(struct stack_env *env);
void plugin_claims_free(struct stack *s);

/* luks_parse.c: one rd.luks.* option (luks_layer's parse). */
void luks_parse(struct stack *s, const char *kv);

/* luks.c, md.c, verity.c */
extern const struct layer luks_layer, md_layer, verity_layer;
/* verity.c: root= when the command line gives none: /dev/mapper/root
 * with roothash= (as systemd's fstab-generator says), else NULL. Right
 * after stack_parse already. */
const char *verity_default_root(const struct stack *s);
/* Is bd the verity root's data or hash device? Never the root itself:
 * its filesystem, unchecked, is the mapping's. */
bool verity_member(const struct stack *s, const struct sysops *ops, const struct blockdev *bd);
/* luks.c: any device that appeared (not only LUKS ones): the key device
 * an unlock waits for. */
void luks_any_seen(struct stack_env *env, const struct blockdev *bd);
void luks_free_waiting(struct stack *s);
/* The network is up: the clevis unlocks waiting for it are queued. */
void luks_net_up(struct stack_env *env);

/* tool.c */
/* The tool's path in the image ("/usr/sbin/lvm") or NULL. A name
 * starting with '/' is that path (a plugin's program). */
char *tool_find(struct stack_env *env, const char *name);
/* Run a tool found by name with the clean environment; its exit status,
 * or a negative code after logging why it could not run (-ENOENT: not
 * in the image). input may be NULL. */
int tool_run(struct stack_env *env, const char *name, char *const argv[], const void *input,
	     size_t len);
/* The same with no input, killed after limit_ms (a plugin's program):
 * -ETIMEDOUT then, after the runner's message naming the limit. */
int tool_run_limit(struct stack_env *env, const char *name, char *const argv[], long limit_ms);
/* The same, with vars ("NAME=VALUE", NULL-terminated, may be NULL)
 * added to the environment and stdout read into out as the initops'
 * run_output does (*len the whole count, which may exceed size). */
int tool_run_output(struct stack_env *env, const char *name, char *const argv[],
		    char *const vars[], char *out, size_t size, size_t *len);
/* The real initops' run and run_output. */
int real_run_output(const char *path, char *const argv[], char *const envp[], char *out,
		    size_t size, size_t *len);
int real_run(const char *path, char *const argv[], char *const envp[], const void *input,
	     size_t len);
int real_run_limit(const char *path, char *const argv[], char *const envp[], long limit_ms);
int real_run_stderr(const char *path, char *const argv[], char *const envp[], const void *input,
		    size_t len, char *err, size_t size);
/* passphrase.c: the real initops' read_secret. */
ssize_t real_read_secret(const char *prompt, char *buf, size_t size, struct loop *loop,
			 struct askpass *remote);
/* Its wait: the first line from the nc console fds con (each set to -1
 * at its end), or from remote (may be NULL), pumping loop (may be NULL)
 * meanwhile. 1: a line in buf, *n bytes, no newline, not terminated;
 * 0: every console ended and no remote client or socket is left;
 * -errno. Exposed for tests. */
int answer_wait(int *con, size_t nc, struct loop *loop, struct askpass *remote, char *buf,
		size_t size, size_t *n);

#endif
