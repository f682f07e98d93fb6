// SPDX-License-Identifier: GPL-2.0-or-later
/* A plugin's claim row driven through the registry and the stack over
 * fake ops (src/init/stack/plugin_claim.c, src/init/dev/registry.c): a
 * disk the row names is held from the subscribers (the root matcher)
 * until its program answered, with its partitions; claimed, it never
 * reaches them; a later claim withdraws the disks answered "not mine"
 * before, when the program now claims them (a second path came). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_ops.h"
#include "init/core/jobs.h"
#include "init/dev/registry.h"
#include "init/dev/uevent.h"
#include "init/stack/stack.h"
#include "init/stack/stack_env.h"
#include "layout.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

#define PROG "/usr/lib/mp/claim"
#define ROW "claim\tmp\tsd*\t" PROG "\t-\trd.multipath\n"

static struct fake_ops *cur;
static int status; /* what the next program exits with */
static struct buf seen; /* what the subscribers were told: "+sda -sda " */

static int x_run(const char *path, char *const argv[], char *const envp[], const void *input,
		 size_t len)
{
	struct buf b = { 0 };

	(void)envp;
	(void)input;
	(void)len;
	buf_printf(&b, "run %s", path);
	for (size_t i = 1; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	strv_push_owned(&cur->log, b.p);
	return status;
}

static const struct initops xops = { .run = x_run };
static char *tool_env[] = { "PATH=" LAYOUT_TOOL_PATH, NULL };

static void subscriber(void *arg, enum dev_change what, const struct blockdev *bd)
{
	(void)arg;
	buf_printf(&seen, "%c%s ", what == DEV_ADDED ? '+' : what == DEV_REMOVED ? '-' : '~',
		   bd->name);
}

static struct fake_ops *setup(struct stack_world *w, const char *rows, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	cur = f;
	status = 0;
	buf_free(&seen);
	buf_printf(&seen, "%s", "");
	msgs_capture(LOG_INFO);
	fake_tool(f, PROG);
	if (rows)
		fake_write(f, LAYOUT_PLUGIN_ROWS_FILE, rows);
	stack_world_init(w, f, &xops, cmdline);
	w->env.tool_envp = tool_env;
	registry_subscribe(&w->devs, subscriber, NULL);
	stack_setup(&w->env);
	return f;
}

static void finish(struct fake_ops *f, struct stack_world *w)
{
	if (test_cur_failed)
		printf("# subscribers saw: %s\n", seen.p);
	stack_world_finish(f, w, test_cur_failed);
	cur = NULL;
}

static void add(struct stack_world *w, const char *name, const char *disk)
{
	char path[128];
	struct uevent ev = { .action = "add", .subsystem = "block", .devname = name,
			     .devtype = disk ? "partition" : "disk", .major = 8 };

	if (disk)
		snprintf(path, sizeof(path), "/devices/pci0/host0/block/%s/%s", disk, name);
	else
		snprintf(path, sizeof(path), "/devices/pci0/host0/block/%s", name);
	ev.devpath = path;
	registry_event(&w->devs, &ev);
}

static void run_queued(struct stack_world *w)
{
	struct job j;

	while (jobq_pop(&w->jobs, &j)) {
		CHECK(j.run(j.ctx, j.data) == JOB_DONE);
		job_free(&j);
	}
}

static void test_held_then_released_or_claimed(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, ROW, "root=UUID=1 rd.multipath.debug rd.lvm=0");

	add(&w, "sda", NULL);
	add(&w, "sda1", "sda");
	add(&w, "vda", NULL);
	/* vda is no row's: told at once; sda and its partition wait */
	CHECK(!strcmp(seen.p, "+vda "));
	CHECK(w.jobs.n == 1);
	CHECK(registry_get(&w.devs, "sda")->claim == DEV_HELD);
	CHECK(registry_get(&w.devs, "sda1")->claim == DEV_HELD);
	status = 1; /* not mine */
	run_queued(&w);
	CHECK(fake_log_find(f, "run " PROG " /dev/sda rd.multipath.debug") >= 0);
	CHECK(!strcmp(seen.p, "+vda +sda +sda1 "));
	CHECK(registry_get(&w.devs, "sda")->claim == DEV_FREE);

	/* a second path: claimed, never told; sda asked again, claimed now,
	 * withdrawn with its partition */
	add(&w, "sdb", NULL);
	add(&w, "sdb1", "sdb");
	status = 0;
	run_queued(&w);
	CHECK(said("<6>/dev/sdb is claimed by plugin mp: not a root candidate\n"));
	CHECK(said("<6>/dev/sda is claimed by plugin mp: not a root candidate\n"));
	CHECK(!strcmp(seen.p, "+vda +sda +sda1 -sda -sda1 "));
	CHECK(registry_get(&w.devs, "sdb")->claim == DEV_CLAIMED);
	CHECK(registry_get(&w.devs, "sdb1")->claim == DEV_CLAIMED);
	CHECK(registry_get(&w.devs, "sda1")->claim == DEV_CLAIMED);
	CHECK(fake_log_count(f, "run " PROG " /dev/sda ") == 2);
	/* a change event of a claimed disk stays hidden; a partition of it
	 * that comes later is hidden at once */
	add(&w, "sdb", NULL);
	add(&w, "sdb2", "sdb");
	CHECK(w.jobs.n == 0);
	CHECK(!strcmp(seen.p, "+vda +sda +sda1 -sda -sda1 "));
	CHECK(registry_match(&w.devs, "/dev/sdb") == NULL);
	CHECK(registry_match(&w.devs, "/dev/vda") != NULL);
	CHECK(w.stack.plugin_failed.n == 0);
	finish(f, &w);
}

/* A program that fails: said, counted for the timeout's report, and the
 * disk published (the boot may still find its root there). */
static void test_failure_publishes(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, ROW, "root=UUID=1");

	add(&w, "sdc", NULL);
	status = 2;
	run_queued(&w);
	CHECK(said("<3>plugin mp: " PROG " /dev/sdc exited with status 2\n"));
	CHECK(!strcmp(seen.p, "+sdc "));
	msgs_clear();
	stack_report_missing(&w.env);
	CHECK(said("<3>plugin mp: " PROG " /dev/sdc exited with status 2\n"));
	finish(f, &w);

	/* no claim row: nothing is held */
	f = setup(&w, NULL, "root=UUID=1");
	add(&w, "sda", NULL);
	CHECK(!strcmp(seen.p, "+sda ") && w.jobs.n == 0);
	finish(f, &w);
}

/* A disk gone before its program ran: nothing runs, nothing is told. */
static void test_gone_before_answer(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, ROW, "root=UUID=1");
	struct uevent ev = { .action = "remove", .subsystem = "block", .devname = "sda",
			     .devpath = "/devices/pci0/host0/block/sda", .devtype = "disk" };

	add(&w, "sda", NULL);
	registry_event(&w.devs, &ev);
	run_queued(&w);
	CHECK(fake_log_count(f, "run") == 0);
	CHECK(!strcmp(seen.p, ""));
	finish(f, &w);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_held_then_released_or_claimed);
	RUN(test_failure_publishes);
	RUN(test_gone_before_answer);
	buf_free(&seen);
	buf_free(&msgs);
	return test_done();
}
