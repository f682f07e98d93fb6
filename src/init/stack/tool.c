// SPDX-License-Identifier: GPL-2.0-or-later
/* Run a tool (cryptsetup, mdadm, a plugin's program) to its end, feeding its stdin
 * from memory: a passphrase goes through a pipe, never argv or a file. A
 * plugin's program, a stranger's code, runs within a time limit: the
 * boot waits for it, so one that never ends would hold the boot for
 * ever, before the root's timeout could even be judged. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/stack.h"
#include "layout.h"
#include "log.h"

char *tool_find(struct stack_env *env, const char *name)
{
	/* where the generator finds them on the host, so the same path */
	static const char *const dirs[] = { LAYOUT_TOOL_DIRS };

	/* a plugin's program is named by its path in the image (plugin_rows.c checked it) */
	if (name[0] == '/')
		return env->ops->access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *p = xasprintf("%s/%s", dirs[i], name);
		if (env->ops->access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

/* What tool_run and tool_run_output share: the same log line, the same
 * clean environment (plus vars, may be NULL), the same error reports.
 * out NULL: stdin is input, stdout the console. */
static int tool_exec(struct stack_env *env, const char *name, char *const argv[],
		     char *const vars[], const void *input, size_t len, char *out, size_t size,
		     size_t *outlen, long limit_ms)
{
	char *path = tool_find(env, name);
	struct buf cmd = { 0 };
	struct strv envp = { 0 };
	int st;

	/* iscsistart takes the CHAP secrets only as -w/-W arguments: they
	 * must not reach the log, which the real system keeps */
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&cmd, "%s%s", i ? " " : "",
			   i && !strcmp(name, "iscsistart") &&
				   (!strcmp(argv[i - 1], "-w") || !strcmp(argv[i - 1], "-W"))
			   ? "(secret)" : argv[i]);
	if (!path) {
		log_err("cannot run %s: %s is not in this image", cmd.p, name);
		buf_free(&cmd);
		return -ENOENT;
	}
	log_debug("running %s", cmd.p);
	for (char *const *e = env->tool_envp; e && *e; e++)
		strv_push(&envp, *e);
	/* lvm names every inherited fd it did not expect: noise on the console */
	strv_push(&envp, "LVM_SUPPRESS_FD_WARNINGS=1");
	for (char *const *e = vars; e && *e; e++)
		strv_push(&envp, *e);
	if (limit_ms > 0 && env->xops->run_limit)
		st = env->xops->run_limit(path, argv, envp.v, limit_ms);
	else if (out)
		st = env->xops->run_output
			     ? env->xops->run_output(path, argv, envp.v, out, size, outlen)
			     : err_set("no way to run programs");
	else
		st = env->xops->run ? env->xops->run(path, argv, envp.v, input, len)
				    : err_set("no way to run programs");
	env->stack->last_run_ms = env->ops->now_ms();
	strv_free(&envp);
	if (st < 0)
		log_err("cannot run %s: %s", cmd.p, err_msg());
	free(path);
	buf_free(&cmd);
	return st;
}

int tool_run(struct stack_env *env, const char *name, char *const argv[], const void *input,
	     size_t len)
{
	return tool_exec(env, name, argv, NULL, input, len, NULL, 0, NULL, 0);
}

int tool_run_limit(struct stack_env *env, const char *name, char *const argv[], long limit_ms)
{
	return tool_exec(env, name, argv, NULL, NULL, 0, NULL, 0, NULL, limit_ms);
}

int tool_run_output(struct stack_env *env, const char *name, char *const argv[],
		    char *const vars[], char *out, size_t size, size_t *len)
{
	*len = 0;
	return tool_exec(env, name, argv, vars, NULL, 0, out, size, len, 0);
}

/* A child's wait status as real_run returns it: the exit status, or an
 * error for a signal or an exec that failed (the child exits 127). */
static int child_status(int st, const char *path)
{
	if (WIFSIGNALED(st))
		return err_set("%s killed by signal %d", path, WTERMSIG(st));
	if (WEXITSTATUS(st) == 127)
		return err_set("cannot execute %s", path);
	return WEXITSTATUS(st);
}

/* The child's end: its status as real_run returns it. */
static int wait_child(pid_t pid, const char *path)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return err_errno(errno, "waitpid %s", path);
	}
	return child_status(st, path);
}

/* In the child: the signals as a shell leaves them, in on stdin, out
 * and err (each when >= 0) on stdout and stderr, then path. */
static void exec_child(const char *path, char *const argv[], char *const envp[], int in, int out,
		       int err)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (in >= 0)
		dup2(in, STDIN_FILENO);
	if (out >= 0)
		dup2(out, STDOUT_FILENO);
	if (err >= 0)
		dup2(err, STDERR_FILENO);
	execve(path, argv, envp);
	_exit(127);
}

int real_run_output(const char *path, char *const argv[], char *const envp[], char *out,
		    size_t size, size_t *len)
{
	int fds[2];
	char chunk[512];
	pid_t pid;
	int r;

	*len = 0;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return err_errno(errno, "pipe");
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return err_errno(e, "fork");
	}
	if (pid == 0)
		exec_child(path, argv, envp, open("/dev/null", O_RDONLY | O_CLOEXEC), fds[1], -1);
	close(fds[1]);
	/* read to the end even past size: the caller is told how much
	 * there was, and the child never blocks on a full pipe */
	for (;;) {
		ssize_t n = read(fds[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (*len < size)
			memcpy(out + *len, chunk, (size_t)n < size - *len ? (size_t)n : size - *len);
		*len += (size_t)n;
	}
	explicit_bzero(chunk, sizeof(chunk));
	close(fds[0]);
	r = wait_child(pid, path);
	return r;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int real_run_limit(const char *path, char *const argv[], char *const envp[], long limit_ms)
{
	long long deadline = mono_ms() + limit_ms;
	long nap_ms = 1;
	pid_t pid = fork(), got;
	int st;

	if (pid < 0)
		return err_errno(errno, "fork");
	if (pid == 0) {
		/* its own group: what it started dies with it at the limit */
		setpgid(0, 0);
		exec_child(path, argv, envp, open("/dev/null", O_RDONLY | O_CLOEXEC), -1, -1);
	}
	setpgid(pid, pid); /* as the child does: whichever runs first */
	/* no SIGCHLD to wait on here (PID 1's loop owns its signals): look
	 * at the child now and then, from 1 ms up to 50 ms apart */
	while ((got = waitpid(pid, &st, WNOHANG)) == 0 ||
	       (got < 0 && errno == EINTR)) {
		struct timespec nap;
		if (mono_ms() >= deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			if (limit_ms % 1000)
				return err_set_code(-ETIMEDOUT, "%s did not end within its time limit of %ld ms: killed",
						 path, limit_ms);
			return err_set_code(-ETIMEDOUT, "%s did not end within its time limit of %ld s: killed",
					 path, limit_ms / 1000);
		}
		nap = (struct timespec){ .tv_nsec = nap_ms * 1000000L };
		nanosleep(&nap, NULL);
		if (nap_ms < 50)
			nap_ms *= 2;
	}
	if (got < 0)
		return err_errno(errno, "waitpid %s", path);
	return child_status(st, path);
}

int real_run(const char *path, char *const argv[], char *const envp[], const void *input,
	     size_t len)
{
	int fds[2] = { -1, -1 };
	pid_t pid;

	if (input && pipe2(fds, O_CLOEXEC) < 0)
		return err_errno(errno, "pipe");
	pid = fork();
	if (pid < 0) {
		int e = errno;
		if (input) {
			close(fds[0]);
			close(fds[1]);
		}
		return err_errno(e, "fork");
	}
	if (pid == 0)
		exec_child(path, argv, envp, input ? fds[0] : open("/dev/null", O_RDONLY | O_CLOEXEC),
			   -1, -1);
	if (input) {
		void (*old)(int) = signal(SIGPIPE, SIG_IGN);
		close(fds[0]);
		/* A tool that exits before reading all of it is no error here:
		 * its exit status says what happened. */
		write_all(fds[1], input, len);
		close(fds[1]);
		signal(SIGPIPE, old);
	}
	return wait_child(pid, path);
}

int real_run_stderr(const char *path, char *const argv[], char *const envp[], const void *input,
		    size_t len, char *err, size_t size)
{
	int in[2], er[2];
	size_t kept = 0;
	char chunk[512];
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0)
		return err_errno(errno, "pipe");
	if (pipe2(er, O_CLOEXEC) < 0) {
		int e = errno;
		close(in[0]);
		close(in[1]);
		return err_errno(e, "pipe");
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(in[0]);
		close(in[1]);
		close(er[0]);
		close(er[1]);
		return err_errno(e, "fork");
	}
	if (pid == 0)
		exec_child(path, argv, envp, in[0], -1, er[1]);
	close(in[0]);
	close(er[1]);
	{
		void (*old)(int) = signal(SIGPIPE, SIG_IGN);
		/* all of it before reading stderr: it fits the pipe (a PIN) */
		write_all(in[1], input, len);
		close(in[1]);
		signal(SIGPIPE, old);
	}
	/* to the end, past size too: the child never blocks on a full pipe */
	for (;;) {
		ssize_t n = read(er[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && size && kept < size - 1; i++)
			err[kept++] = chunk[i];
	}
	if (size)
		err[kept] = '\0';
	close(er[0]);
	return wait_child(pid, path);
}
