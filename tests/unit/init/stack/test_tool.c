// SPDX-License-Identifier: GPL-2.0-or-later
/* The runner's time limit (src/init/stack/tool.c, real_run_limit): a
 * plugin's program that never ends is killed with what it started, and
 * said with its limit; one that ends in time gives its status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/stack.h"
#include "test.h"
#include "util.h"

static char tmpdir[] = "/tmp/uniramfs-test-tool-XXXXXX";

/* The state letter of /proc/PID/stat, or 0 when it is gone. */
static char state_of(long pid)
{
	char *p = xasprintf("/proc/%ld/stat", pid), *data = NULL, *end;
	size_t len;
	char st = 0;

	if (read_file(p, &data, &len) == 0 && (end = strrchr(data, ')')) && end[1] == ' ')
		st = end[2];
	free(p);
	free(data);
	return st;
}

static void test_killed_at_the_limit(void)
{
	char *pidfile = path_join(tmpdir, "pid"), *script, *data = NULL;
	size_t len;
	long pid;
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };

	/* it starts a child that would outlive it, then waits for ever */
	script = xasprintf("sleep 1000 & echo $! > %s; wait", pidfile);
	argv[2] = script;
	CHECK(real_run_limit("/bin/sh", argv, envp, 1000) == -ETIMEDOUT);
	CHECK_STR(err_msg(), "/bin/sh did not end within its time limit of 1 s: killed");
	CHECK(read_file(pidfile, &data, &len) == 0);
	pid = data ? strtol(data, NULL, 10) : 0;
	CHECK(pid > 0);
	/* its group was killed: the sleep is gone, or a zombie no one reaped yet */
	if (pid > 0) {
		char st = state_of(pid);
		/* SIGKILL is delivered at once, but the kernel may take a moment to
		 * tear it down: wait for the state, not for a time */
		while (st && st != 'Z' && st != 'X')
			st = state_of(pid);
		CHECK(st == 0 || st == 'Z' || st == 'X');
	}
	free(data);
	free(script);
	free(pidfile);

	/* a limit in ms is said in ms */
	argv[2] = "exec sleep 1000";
	CHECK(real_run_limit("/bin/sh", argv, envp, 300) == -ETIMEDOUT);
	CHECK_STR(err_msg(), "/bin/sh did not end within its time limit of 300 ms: killed");
}

static void test_ends_in_time(void)
{
	char *argv[] = { "/bin/sh", "-c", "exit 4", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	char *none[] = { "/nonexistent/prog", NULL };

	CHECK(real_run_limit("/bin/sh", argv, envp, 60000) == 4);
	argv[2] = "kill -TERM $$";
	CHECK(real_run_limit("/bin/sh", argv, envp, 60000) < 0);
	CHECK_STR(err_msg(), "/bin/sh killed by signal 15");
	CHECK(real_run_limit("/nonexistent/prog", none, envp, 60000) < 0);
	CHECK_STR(err_msg(), "cannot execute /nonexistent/prog");
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	RUN(test_killed_at_the_limit);
	RUN(test_ends_in_time);
	{
		char *c = xasprintf("rm -rf %s", tmpdir);
		if (system(c) != 0)
			fprintf(stderr, "# cannot remove %s\n", tmpdir);
		free(c);
	}
	return test_done();
}
