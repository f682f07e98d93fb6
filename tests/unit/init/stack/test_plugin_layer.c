// SPDX-License-Identifier: GPL-2.0-or-later
/* A plugin's layer row driven through the stack over fake ops
 * (src/init/stack/plugin_layer.c): read at stack_setup, a device of its
 * blkid type queues one job, which runs the row's program through the
 * built-in layers' runner with the device node, the command-line
 * options the row names and the tools' clean environment; a failure is
 * said at once and again when the root timed out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "fake_ops.h"
#include "init/core/jobs.h"
#include "init/dev/driverq.h"
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

static const struct initops xops = { .run = x_run };
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
#define ENV " env PATH=" LAYOUT_TOOL_PATH " env HOME=/ env TERM=linux env LVM_SUPPRESS_FD_WARNINGS=1"

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
	CHECK(said("<3>plugin bc: " PROG " /dev/vda exited with status 3\n"));
	msgs_clear();
	stack_report_missing(&w.env);
	CHECK(said("<3>plugin bc: " PROG " /dev/vda exited with status 3\n"));
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
	struct fake_ops *f = setup(&w, "layer\tevil\tLVM2_member\t" PROG "\t-\t-\n"
				       "root\tzfs\tZFS=\t" PROG "\t-\t-\n" ROW,
				   "root=UUID=1");

	CHECK(w.stack.nplugin_layers == 1);
	CHECK(said("<4>" LAYOUT_PLUGIN_ROWS_FILE ":1: blkid type LVM2_member is the init's own layer; "
		   "row skipped\n"));
	CHECK(count_said(LAYOUT_PLUGIN_ROWS_FILE) == 1);
	finish(f, &w);

	f = setup(&w, NULL, "root=UUID=1");
	CHECK(w.stack.nplugin_layers == 0 && msgs.len == 0);
	appear(&w, "/dev/vda", "bcache");
	CHECK(w.jobs.n == 0);
	finish(f, &w);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_layer_row_runs_program);
	RUN(test_failure_is_reported);
	RUN(test_rows_around);
	buf_free(&msgs);
	return test_done();
}
