/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_PLUGIN_ASK_H
#define UNIRAMFS_INIT_STACK_PLUGIN_ASK_H

#include <stdbool.h>
#include <stddef.h>

#include "init/stack/stack_env.h"

/* The request channel a plugin's program asks the init through
 * (docs/plugins.md, "Asking the init"): the program's fd
 * $UNIRAMFS_ASK_FD is one end of a socket pair, the init serves the
 * other while it waits for the program. One line each way:
 *
 *   program -> init: "ask-secret PROMPT"  the init's prompt (every console, SSH)
 *                    "tell TEXT"          TEXT to the SSH logins at the prompt
 *   init -> program: "secret ANSWER", "ok", or "error WHY"
 *
 * PROMPT and TEXT: 1 to PLUGIN_ASK_TEXT_MAX bytes, no control
 * characters. The program is hostile: a bad request is answered with
 * "error WHY" and the channel closed; nothing it sends can block the
 * init beyond the prompt it asked for. */

#define PLUGIN_ASK_FD 3
#define PLUGIN_ASK_FD_ENV "UNIRAMFS_ASK_FD=3"
#define PLUGIN_ASK_TEXT_MAX 200
#define PLUGIN_ASK_LINE_MAX (16 + PLUGIN_ASK_TEXT_MAX)

enum plugin_ask_verb { PLUGIN_ASK_SECRET, PLUGIN_ASK_TELL };

struct plugin_ask_req {
	enum plugin_ask_verb verb;
	char text[PLUGIN_ASK_TEXT_MAX + 1];
};

/* One request line (len bytes, without its '\n'). 0, or -EINVAL with
 * err set to why. */
int plugin_ask_parse(const char *line, size_t len, struct plugin_ask_req *req);

/* What the channel's server keeps between reads. */
struct plugin_ask {
	struct stack_env *env;
	const char *plugin;   /* for messages */
	size_t n;
	char line[PLUGIN_ASK_LINE_MAX + 1];
};

/* fd (the init's end) is readable: read what is there, answer each
 * whole request. 0 to go on serving, or < 0 when the channel is done
 * (its end, or a bad request, answered): the caller closes fd. */
int plugin_ask_serve(struct plugin_ask *a, int fd);

/* Run a plugin's program (argv[0] its path in the image) as
 * tool_run_limit does (killed after limit_ms, not counting the time a
 * person spends at a prompt it asked for), with the channel:
 * UNIRAMFS_ASK_FD in its environment, requests served until it ends.
 * Its exit status, or a negative code (err set) when it could not run;
 * -ETIMEDOUT at the limit. */
int plugin_run(struct stack_env *env, const char *plugin, char *const argv[], long limit_ms);

/* plugin_askrun.c: the real initops' run_asking. */
int real_run_asking(const char *path, char *const argv[], char *const envp[], long limit_ms,
		    int (*serve)(void *ctx, int fd), void *ctx);

#endif
