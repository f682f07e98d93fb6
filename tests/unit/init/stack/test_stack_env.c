// SPDX-License-Identifier: GPL-2.0-or-later
/* The stack driven through a struct stack_env alone, with no init
 * around it: what the env holds is all the stack needs. A LUKS device
 * is unlocked with a typed passphrase (the keymap named, the time at
 * the prompt added to the stall clock, the job queued with the env as
 * its ctx), left locked once the env says the root is there, and
 * unlocked by clevis once the env's network callback says it is up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "err.h"
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

#define U1 "0f5c1e3a-7b2d-4c8e-9a6f-1d2e3f4a5b6c"
#define CLEVIS_JSON                                                                         \
	"{\"keyslots\":{\"0\":{\"type\":\"luks2\"},\"1\":{\"type\":\"luks2\"}},"               \
	"\"tokens\":{\"0\":{\"type\":\"clevis\",\"keyslots\":[\"1\"],"                         \
	"\"jwe\":{\"ciphertext\":\"\",\"protected\":\"eyJhbGciOiJFQ0RI\"}}},"                  \
	"\"segments\":{\"0\":{\"type\":\"crypt\"}}}"

static struct fake_ops *cur;

static int x_run(const char *path, char *const argv[], char *const envp[], const void *input,
		 size_t len)
{
	stack_log_run(cur, path, argv, envp, input, len);
	return 0;
}

/* A person who takes 4 s to type "pw". */
static ssize_t x_read_secret(const char *prompt, char *buf, size_t size, struct loop *loop,
			     struct askpass *remote)
{
	(void)loop;
	(void)remote;
	strv_push_owned(&cur->log, xasprintf("prompt %s", prompt));
	cur->now += 4000;
	snprintf(buf, size, "pw");
	return 2;
}

static const struct initops xops = {
	.run = x_run,
	.read_secret = x_read_secret,
};

/* The boot's side, as the env's callbacks see it. */
struct boot {
	bool root_there;
	enum stack_net net;
};

static bool root_found(void *ctx)
{
	return ((struct boot *)ctx)->root_there;
}

static enum stack_net net_state(void *ctx)
{
	return ((struct boot *)ctx)->net;
}

/* Everything the env points to, on the test's stack. */
struct world {
	struct stack_world s;
	struct boot boot;
};

static struct fake_ops *setup(struct world *w, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	cur = f;
	msgs_capture(LOG_INFO);
	memset(&w->boot, 0, sizeof(w->boot));
	fake_tool(f, "/usr/sbin/cryptsetup");
	stack_world_init(&w->s, f, &xops, cmdline);
	w->s.env.keymap = "de";
	w->s.env.root_found = root_found;
	w->s.env.net = net_state;
	w->s.env.ctx = &w->boot;
	return f;
}

static void finish(struct fake_ops *f, struct world *w)
{
	stack_world_finish(f, &w->s, test_cur_failed);
	cur = NULL;
}

static void appear(struct world *w, const char *name)
{
	struct blockdev bd;

	memset(&bd, 0, sizeof(bd));
	bd.name = (char *)name;
	bd.devnode = xasprintf("/dev/%s", name);
	bd.type = "crypto_LUKS";
	bd.uuid = U1;
	stack_seen(&w->s.env, DEV_ADDED, &bd);
	free(bd.devnode);
}

/* What sequence.c's run_jobs does, without the failure path. */
static int run_queued(struct world *w)
{
	struct job j;
	int failed = 0;

	while (jobq_pop(&w->s.jobs, &j)) {
		CHECK(j.ctx == &w->s.env);
		failed += j.run(j.ctx, j.data) == JOB_FAILED;
		job_free(&j);
	}
	return failed;
}

static void test_passphrase_unlock(void)
{
	struct world w;
	struct fake_ops *f = setup(&w, "root=/dev/mapper/luks-" U1);

	stack_setup(&w.s.env);
	f->now = FAKE_T0;
	appear(&w, "vda2");
	CHECK(w.s.jobs.n == 1);
	CHECK(run_queued(&w) == 0);
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda2 (" U1 ", keymap de): ") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=- <pw>") >= 0);
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	CHECK(w.s.stall_ms == 4000);
	CHECK(w.s.stack.last_run_ms == FAKE_T0 + 4000);
	finish(f, &w);

	/* no name for it anywhere: only for a root still to come */
	f = setup(&w, "");
	w.boot.root_there = true;
	appear(&w, "vda2");
	CHECK(w.s.jobs.n == 0);
	CHECK(said("<6>/dev/vda2: LUKS UUID=" U1 " left locked: the root is already there\n"));
	CHECK(fake_log_count(f, "prompt") == 0);
	finish(f, &w);
}

static void test_clevis_asks_the_env(void)
{
	struct world w;
	struct fake_ops *f = setup(&w, "root=/dev/mapper/luks-" U1);

	fake_tool(f, "/usr/bin/clevis");
	fake_mkdir(f, "/dev");
	stack_luks2_header(f, "/dev/vda2", CLEVIS_JSON);
	w.boot.net = STACK_NET_COMING;
	appear(&w, "vda2");
	CHECK(run_queued(&w) == 0);
	CHECK(said("<6>/dev/vda2: waiting for the network to reach its clevis server\n"));
	CHECK(w.s.stack.nnet_waiting == 1 && w.s.jobs.n == 0);
	/* the boot's network came up and it says so */
	w.boot.net = STACK_NET_UP;
	luks_net_up(&w.s.env);
	CHECK(run_queued(&w) == 0);
	CHECK(fake_log_find(f, "run /usr/bin/clevis clevis luks unlock -d /dev/vda2 -n luks-" U1)
	      >= 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	finish(f, &w);

	/* no network callback at all: clevis is not tried, the prompt is */
	f = setup(&w, "root=/dev/mapper/luks-" U1);
	fake_tool(f, "/usr/bin/clevis");
	fake_mkdir(f, "/dev");
	stack_luks2_header(f, "/dev/vda2", CLEVIS_JSON);
	w.s.env.net = NULL;
	appear(&w, "vda2");
	CHECK(run_queued(&w) == 0);
	CHECK(said("<4>/dev/vda2: its clevis token needs the network: add rd.neednet=1 ip=dhcp to "
		   "the command line; asking for the passphrase\n"));
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &w);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_passphrase_unlock);
	RUN(test_clevis_asks_the_env);
	buf_free(&msgs);
	return test_done();
}
