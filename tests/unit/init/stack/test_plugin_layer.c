// SPDX-License-Identifier: GPL-2.0-or-later
/* A plugin's layer row driven through the stack over fake ops
 * (src/init/stack/plugin_layer.c): read at stack_setup, a device of its
 * blkid type queues one job, which runs the row's program through the
 * built-in layers' runner with the device node, the command-line
 * options the row names and the tools' clean environment, within the
 * row's time limit; its runs templated from the options, its switch,
 * its retry modules (what LVM needs); a failure is said at once and
 * again when the root timed out, unless the same command ended well
 * since. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "err.h"
#include "fake_ops.h"
#include "init/core/jobs.h"
#include "init/dev/driverq.h"
#include "init/dev/modload.h"
#include "init/dev/registry.h"
#include "init/stack/stack.h"
#include "init/stack/stack_env.h"
#include "layout.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

#define PROG "/usr/lib/bc/open"

static struct fake_ops *cur;
static int status; /* what the next program exits with */

/* "run PATH ARGV... env VAR..." for every program */
static int x_run(const char *path, char *const argv[], char *const envp[], const void *input,
		 size_t len)
{
	struct buf b = { 0 };

	(void)input;
	(void)len;
	buf_printf(&b, "run %s", path);
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	for (size_t i = 0; envp && envp[i]; i++)
		buf_printf(&b, " env %s", envp[i]);
	strv_push_owned(&cur->log, b.p);
	return status;
}

/* The same, with "limit=MS" after the environment; status -ETIMEDOUT: as the real one at the limit */
static int x_run_limit(const char *path, char *const argv[], char *const envp[], long limit_ms)
{
	struct strv v = { 0 };
	int st;

	for (size_t i = 0; envp && envp[i]; i++)
		strv_push(&v, envp[i]);
	strv_push_owned(&v, xasprintf("limit=%ld", limit_ms));
	st = x_run(path, argv, v.v, NULL, 0);
	strv_free(&v);
	if (st == -ETIMEDOUT)
		return err_set_code(-ETIMEDOUT, "%s did not end within its time limit of %ld s: killed", path,
				    limit_ms / 1000);
	return st;
}

static const struct initops xops = { .run = x_run, .run_limit = x_run_limit };
static char *tool_env[] = { "PATH=" LAYOUT_TOOL_PATH, "HOME=/", "TERM=linux", NULL };

static struct fake_ops *setup(struct stack_world *w, const char *rows, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	cur = f;
	status = 0;
	msgs_capture(LOG_INFO);
	fake_tool(f, PROG);
	if (rows)
		fake_write(f, LAYOUT_PLUGIN_ROWS_FILE, rows);
	stack_world_init(w, f, &xops, cmdline);
	w->env.tool_envp = tool_env;
	stack_setup(&w->env);
	return f;
}

static void finish(struct fake_ops *f, struct stack_world *w)
{
	stack_world_finish(f, w, test_cur_failed);
	cur = NULL;
}

static void appear(struct stack_world *w, const char *node, const char *type)
{
	struct blockdev bd;

	memset(&bd, 0, sizeof(bd));
	bd.name = (char *)node + 5;
	bd.devnode = (char *)node;
	bd.type = (char *)type;
	stack_seen(&w->env, DEV_ADDED, &bd);
}

static void run_queued(struct stack_world *w)
{
	struct job j;

	while (jobq_pop(&w->jobs, &j)) {
		CHECK(j.run(j.ctx, j.data) == JOB_DONE);
		job_free(&j);
	}
}

#define ROW "layer\tbc\tbcache\t" PROG "\tbcache\trd.bc,rd.other\n"
#define ENV_NO_LIMIT " env PATH=" LAYOUT_TOOL_PATH " env HOME=/ env TERM=linux env LVM_SUPPRESS_FD_WARNINGS=1"
#define ENV ENV_NO_LIMIT " env limit=120000" /* PLUGIN_LIMIT_MS: the row says none */

static void test_layer_row_runs_program(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, ROW, "root=UUID=1 rd.bcx=no rd.bc.note=hi rd.bc rd.lvm.vg=x "
					    "rd.other=a=b rd.bc.");

	CHECK(w.stack.nplugin_layers == 1);
	appear(&w, "/dev/vdb", "ext4");
	appear(&w, "/dev/vdc", "bcachefs");
	CHECK(w.jobs.n == 0);
	appear(&w, "/dev/vda", "bcache");
	CHECK(w.jobs.n == 1);
	/* seen again (a change event): still one job */
	appear(&w, "/dev/vda", "bcache");
	CHECK(w.jobs.n == 1);
	run_queued(&w);
	CHECK(said("<6>/dev/vda is bcache: opening it with plugin bc\n"));
	CHECK(fake_log_find(f, "run " PROG " " PROG " /dev/vda rd.bc.note=hi rd.bc rd.other=a=b "
			       "rd.bc." ENV) >= 0);
	CHECK(fake_log_count(f, "run") == 1);
	/* a second device of the type: its own run */
	appear(&w, "/dev/vdd", "bcache");
	run_queued(&w);
	CHECK(fake_log_count(f, "run " PROG " " PROG " /dev/vdd ") == 1);
	CHECK(w.stack.plugin_failed.n == 0);
	stack_report_missing(&w.env);
	CHECK(!said("<3>"));
	finish(f, &w);
}

static void test_failure_is_reported(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, ROW, "root=UUID=1");

	status = 3;
	appear(&w, "/dev/vda", "bcache");
	run_queued(&w);
	CHECK(said("<4>plugin bc: " PROG " /dev/vda exited with status 3\n"));
	msgs_clear();
	stack_report_missing(&w.env);
	CHECK(said("<3>plugin bc: " PROG " /dev/vda exited with status 3\n"));
	finish(f, &w);

	/* killed at its limit (limit=2 in the row): said by the runner, then
	 * in the report */
	f = setup(&w, "layer\tbc\tbcache\t" PROG "\t-\t-\tlimit=2\n", "root=UUID=1");
	status = -ETIMEDOUT;
	appear(&w, "/dev/vda", "bcache");
	run_queued(&w);
	CHECK(fake_log_find(f, "run " PROG " " PROG " /dev/vda" ENV_NO_LIMIT " env limit=2000") >= 0);
	CHECK(said("<3>cannot run " PROG " /dev/vda: " PROG " did not end within its time limit of 2 s: "
		   "killed\n"));
	msgs_clear();
	stack_report_missing(&w.env);
	CHECK(said("<3>plugin bc: " PROG " /dev/vda was killed at its time limit of 2 s\n"));
	finish(f, &w);

	/* gone from the image after the rows were read */
	f = setup(&w, ROW, "root=UUID=1");
	{
		char *p = fake_path(f, PROG);
		unlink(p);
		free(p);
	}
	appear(&w, "/dev/vda", "bcache");
	run_queued(&w);
	CHECK(said("<3>cannot run " PROG " /dev/vda: " PROG " is not in this image\n"));
	msgs_clear();
	stack_report_missing(&w.env);
	CHECK(said("<3>plugin bc: " PROG " /dev/vda could not run\n"));
	CHECK(fake_log_count(f, "run") == 0);
	finish(f, &w);
}

/* Bad rows are skipped, the built-in layers keep their types, a root
 * row makes no layer, and without the file nothing changes. */
static void test_rows_around(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, "layer\tevil\tlinux_raid_member\t" PROG "\t-\t-\n"
				       "root\tzfs\tZFS=\t" PROG "\t-\t-\n" ROW,
				   "root=UUID=1");

	CHECK(w.stack.nplugin_layers == 1);
	CHECK(said("<4>" LAYOUT_PLUGIN_ROWS_FILE ":1: blkid type linux_raid_member is the init's own layer; "
		   "row skipped\n"));
	CHECK(count_said(LAYOUT_PLUGIN_ROWS_FILE) == 1);
	finish(f, &w);

	f = setup(&w, NULL, "root=UUID=1");
	CHECK(w.stack.nplugin_layers == 0 && msgs.len == 0);
	appear(&w, "/dev/vda", "bcache");
	CHECK(w.jobs.n == 0);
	finish(f, &w);
}

#define RUNS_ROW                                                                                \
	"layer\tx\tx_member\t" PROG "\t-\trd.x.a,rd.x.b\trun=scan\trun=open {device} -- {rd.x.a}\t" \
	"run=use {rd.x.b} {device}\tswitch=rd.x\n"

/* Runs: those naming an option given, else those naming none; each
 * option's values split at commas, one argument each, after the row's
 * own words; {device} anywhere. */
static void test_runs_from_options(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, RUNS_ROW, "root=UUID=1");

	appear(&w, "/dev/vda", "x_member");
	run_queued(&w);
	CHECK(fake_log_find(f, "run " PROG " " PROG " scan" ENV) >= 0);
	CHECK(fake_log_count(f, "run") == 1);
	finish(f, &w);

	f = setup(&w, RUNS_ROW, "root=UUID=1 rd.x.a=one,-two rd.x.a=,three rd.x.b= rd.x.c=z");
	appear(&w, "/dev/vda", "x_member");
	run_queued(&w);
	CHECK(fake_log_find(f, "run " PROG " " PROG " open /dev/vda -- one -two three" ENV) >= 0);
	CHECK(fake_log_count(f, "run") == 1); /* rd.x.b= gives no value; scan is not run */
	finish(f, &w);

	f = setup(&w, RUNS_ROW, "root=UUID=1 rd.x.b=B rd.x.a=A");
	appear(&w, "/dev/vda", "x_member");
	run_queued(&w);
	CHECK(fake_log_find(f, "run " PROG " " PROG " open /dev/vda -- A" ENV) >= 0);
	CHECK(fake_log_find(f, "run " PROG " " PROG " use B /dev/vda" ENV) >= 0);
	CHECK(fake_log_count(f, "run") == 2);
	finish(f, &w);
}

/* rd.x=0 turns the row off, the last one counts, a bad value is said
 * and ignored. */
static void test_switch(void)
{
	static const struct {
		const char *cmdline;
		int runs;
		const char *said;
	} cases[] = {
		{ "rd.x=0", 0, "<6>plugin x: rd.x=0: x_member devices left alone\n" },
		{ "rd.x=no rd.x=1", 1, NULL },
		{ "rd.x=0 rd.x", 1, NULL },
		{ "rd.x=maybe", 1, "<4>ignoring rd.x=maybe: not a boolean (use 1 or 0)\n" },
		{ "rd.xy=0", 1, NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct stack_world w;
		char *c = xasprintf("root=UUID=1 %s", cases[i].cmdline);
		struct fake_ops *f = setup(&w, RUNS_ROW, c);
		appear(&w, "/dev/vda", "x_member");
		run_queued(&w);
		CHECK(fake_log_count(f, "run") == cases[i].runs);
		if (cases[i].said)
			CHECK(said(cases[i].said));
		if (test_cur_failed)
			printf("# case %zu: %s\n", i, cases[i].cmdline);
		free(c);
		finish(f, &w);
	}
}

/* A failed run loads the retry modules once, then the runs go again;
 * a later success of the same command drops its failure from the
 * report (a VG short of a PV the first time). */
static void test_retry_and_later_success(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, "layer\tx\tx_member\t" PROG "\t-\t-\trun=scan\t"
				       "retry-modules=x_raid\n", "root=UUID=1");

	fake_write(f, "/lib/modules/T/kernel/x-raid.ko", "");
	fake_write(f, "/lib/modules/T/modules.dep", "kernel/x-raid.ko:\n");
	fake_write(f, "/lib/modules/T/modules.alias", "");
	fake_write(f, "/lib/modules/T/modules.softdep", "");
	fake_write(f, "/lib/modules/T/modules.builtin", "");
	w.env.ml = modload_new(&f->ops, "/lib/modules/T");
	CHECK(w.env.ml != NULL);
	status = 5;
	appear(&w, "/dev/vda", "x_member");
	run_queued(&w);
	CHECK(fake_log_count(f, "run " PROG " " PROG " scan") == 2);
	CHECK(fake_log_find(f, "finit_module x_raid params=''") > fake_log_find(f, "run "));
	CHECK(w.stack.plugin_failed.n == 1);
	/* the next device: no more loading, one run, which now ends well */
	status = 0;
	appear(&w, "/dev/vdb", "x_member");
	run_queued(&w);
	CHECK(fake_log_count(f, "run " PROG " " PROG " scan") == 3);
	CHECK(fake_log_count(f, "finit_module") == 1);
	CHECK(w.stack.plugin_failed.n == 0);
	msgs_clear();
	stack_report_missing(&w.env);
	CHECK(!said("<3>"));
	modload_free(w.env.ml);
	w.env.ml = NULL;
	finish(f, &w);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_layer_row_runs_program);
	RUN(test_failure_is_reported);
	RUN(test_rows_around);
	RUN(test_runs_from_options);
	RUN(test_switch);
	RUN(test_retry_and_later_success);
	buf_free(&msgs);
	return test_done();
}
