/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_H
#define UNIRAMFS_INIT_STACK_H

#include <stdbool.h>

#include "init/init.h"

/* One line of the image's /etc/crypttab (hostonly images). */
struct crypttab_entry {
	char *name, *device, *keyfile, *options; /* keyfile NULL: ask */
};

/* What the rd.luks.*, rd.lvm.* and rd.md.* options and the image's
 * crypttab ask for, and what was done already. */
struct stack {
	bool luks_off, lvm_off, md_off, crypttab_off;
	struct strv luks_uuids;             /* rd.luks.uuid, lowercase, no "luks-" */
	struct strv name_uuids, name_names; /* rd.luks.name=UUID=NAME, parallel */
	struct strv key_paths, key_uuids;   /* rd.luks.key, parallel; uuid "" = any */
	bool discard;                       /* rd.luks.options=discard, rd.luks.allow-discards */
	long tries;                         /* rd.luks.tries, default 3 */
	struct crypttab_entry *crypttab;
	size_t ncrypttab;
	struct strv vgs, lvs;  /* rd.lvm.vg, rd.lvm.lv */
	struct strv md_uuids;  /* rd.md.uuid as given (mdadm or blkid spelling) */
	struct strv done;      /* "luks:UUID", "lvm:/dev/X", "md:/dev/X" */
	bool md_member_seen, degraded_tried;
	bool prompting;       /* at a passphrase prompt: new devices wait */
	struct strv deferred; /* names of the block devices that came meanwhile */
};

/* stack.c */
/* The tool's path in the image ("/usr/sbin/lvm") or NULL. */
char *stack_find_tool(struct init *in, const char *name);
/* Run a tool found by name; its exit status, or -1 after logging why
 * it could not run. input may be NULL. */
int stack_run(struct init *in, const char *name, char *const argv[], const void *input,
	      size_t len);
/* Load the modules layer ("luks", "lvm", "lvm-raid", "md") may need,
 * once: true when it did now. */
bool stack_load_modules(struct init *in, const char *layer);
/* "kind:key" was done before; if not, mark it and return false. */
bool stack_once(struct stack *s, const char *kind, const char *key);
/* UUIDs compared as their hex digits, any case, any '-' or ':'. */
bool stack_uuid_eq(const char *a, const char *b);

/* luks.c */
void luks_parse_option(struct stack *s, const char *kv);
void luks_load_crypttab(struct init *in, struct stack *s);
void luks_block(struct init *in, const struct blockdev *bd);
/* lvm.c */
void lvm_parse_option(struct stack *s, const char *kv);
void lvm_block(struct init *in, const struct blockdev *bd);
/* md.c */
void md_parse_option(struct stack *s, const char *kv);
void md_block(struct init *in, const struct blockdev *bd);
/* Any array in /proc/mdstat still inactive (members missing)? */
bool md_any_inactive(struct init *in);
void md_start_degraded(struct init *in);

/* The real initops' run (tool_run.c) and read_secret (console_pass.c). */
int real_run(const char *path, char *const argv[], char *const envp[], const void *input,
	     size_t len);
ssize_t real_read_secret(const char *prompt, char *buf, size_t size, int evfd,
			 void (*pump)(void *), void *arg);

#endif
