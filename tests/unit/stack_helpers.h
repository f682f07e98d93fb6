/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An init over fake ops for the tests of its storage stack (LUKS, LVM,
 * md, LUKS2 tokens): the tools in the image, the command line parsed,
 * the messages kept in msgs (log_capture.h). */
#ifndef UNIRAMFS_TEST_STACK_HELPERS_H
#define UNIRAMFS_TEST_STACK_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

#include "fake_ops.h"
#include "init/core/jobs.h"
#include "init/dev/driverq.h"
#include "init/dev/registry.h"
#include "init/stack/stack.h"
#include "init/stack/stack_env.h"
#include "log_capture.h"

/* Its users that drive a whole init include init/init.h; one that
 * drives the stack through a stack_env alone does not. */
struct init;
struct initops;

/* An executable (that would fail) at path in f's tree. */
void fake_tool(struct fake_ops *f, const char *path);
/* in over f, with xops for the tools and the prompt, cmdline parsed as
 * the kernel's; every message up to LOG_INFO kept from here on. */
void stack_init_start(struct init *in, struct fake_ops *f, const char *cmdline,
		      const struct initops *xops);
/* Append "run PATH ARGV...[ env SYSTEMD_*...][ <INPUT>]" to f's log: a
 * tool the init ran, as the tests check it. */
void stack_log_run(struct fake_ops *f, const char *path, char *const argv[], char *const envp[],
		   const void *input, size_t len);
/* The tools' exit statuses and the prompt's answers, as a test scripts
 * them: each run takes the next status (0 when none is left), each
 * prompt the next answer (end of input when none is left), each
 * run_stderr the next of errs too (nothing when none is left). The initops
 * stack_script_ops plays them; every run and prompt goes to f's log. */
struct stack_script {
	struct fake_ops *f;
	int statuses[8];
	const char *answers[8];
	int nanswer;
	bool log_env; /* the runs' SYSTEMD_* environment in the log too */
	const char *errs[8]; /* what each run_stderr writes on stderr, in turn */
};
extern struct stack_script stack_script;
extern const struct initops stack_script_ops;
/* A fresh script logging to f. */
void stack_script_start(struct fake_ops *f);
void stack_script_answer(const char *answer);
int stack_script_next_status(void);

/* A LUKS2 header at dev in f's tree: the binary part, then json in its
 * 12 KiB JSON area. */
void stack_luks2_header(struct fake_ops *f, const char *dev, const char *json);
/* The block device /dev/NAME (type, uuid) appears; the jobs it queued run. */
void stack_event(struct init *in, const char *name, const char *type, const char *uuid);
/* A block device as the registry probed it, added to in->devs (NULL
 * fields absent); told to nobody. */
struct blockdev *stack_device(struct init *in, const char *name, const char *type,
			      const char *uuid, const char *label);
/* A stack_env and all it points to, for a test that drives the stack
 * with no init around it: what the env holds is all the stack needs. */
struct stack_world {
	struct stack stack;
	struct jobq jobs;
	struct registry devs;
	struct driverq drivers;
	long long stall_ms;
	struct stack_env env;
};

/* w over f, with xops for the tools and the prompt, the layers'
 * options of cmdline parsed; the test sets the env's other fields
 * (keymap, callbacks, tools' environment) and calls stack_setup. */
void stack_world_init(struct stack_world *w, struct fake_ops *f, const struct initops *xops,
		      const char *cmdline);
/* Free w and f; after a failed check, print f's calls and the messages. */
void stack_world_finish(struct fake_ops *f, struct stack_world *w, bool failed);
/* Free in and f; after a failed check (test.h's test_cur_failed, which
 * is the test file's own), print f's calls and the messages first. */
void stack_init_finish(struct fake_ops *f, struct init *in, bool failed);

#endif
