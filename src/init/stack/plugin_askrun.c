// SPDX-License-Identifier: GPL-2.0-or-later
/* A plugin's program run with the request channel (plugin_ask.h): as
 * tool_run runs the layers' tools (the same clean environment, stdin
 * /dev/null, the console), plus one end of a socket pair as fd 3 that
 * the init serves until the program exits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/plugin_ask.h"
#include "init/stack/stack.h"
#include "log.h"
#include "util.h"

static int serve_cb(void *ctx, int fd)
{
	return plugin_ask_serve(ctx, fd);
}

int plugin_run(struct stack_env *env, const char *plugin, char *const argv[], long limit_ms)
{
	struct plugin_ask a = { .env = env, .plugin = plugin };
	struct strv envp = { 0 };
	struct buf cmd = { 0 };
	int st;

	if (!env->xops->run_asking) /* a test's initops without it: no channel */
		return tool_run_limit(env, argv[0], argv, limit_ms);
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
	if (env->ops->access(argv[0], X_OK) != 0) {
		log_err("cannot run %s: %s is not in this image", cmd.p, argv[0]);
		buf_free(&cmd);
		return -ENOENT;
	}
	log_debug("running %s (with the request channel)", cmd.p);
	for (char *const *e = env->tool_envp; e && *e; e++)
		strv_push(&envp, *e);
	strv_push(&envp, "LVM_SUPPRESS_FD_WARNINGS=1");
	strv_push(&envp, PLUGIN_ASK_FD_ENV);
	st = env->xops->run_asking(argv[0], argv, envp.v, limit_ms, serve_cb, &a);
	env->stack->last_run_ms = env->ops->now_ms();
	explicit_bzero(a.line, sizeof(a.line));
	strv_free(&envp);
	if (st < 0)
		log_err("cannot run %s: %s", cmd.p, err_msg());
	buf_free(&cmd);
	return st;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int status_of(int st, const char *path)
{
	if (WIFSIGNALED(st))
		return err_set("%s killed by signal %d", path, WTERMSIG(st));
	if (WEXITSTATUS(st) == 127)
		return err_set("cannot execute %s", path);
	return WEXITSTATUS(st);
}

/* In the child: the signals as a shell leaves them, stdin /dev/null,
 * its end of the channel as PLUGIN_ASK_FD, its own process group (what
 * it started dies with it at the limit), then path. */
static void exec_asking(const char *path, char *const argv[], char *const envp[], int end)
{
	sigset_t none;
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	dup2(null, STDIN_FILENO);
	/* dup2 onto itself would keep FD_CLOEXEC: move it first */
	if (end == PLUGIN_ASK_FD)
		end = fcntl(end, F_DUPFD_CLOEXEC, PLUGIN_ASK_FD + 1);
	if (end < 0 || dup2(end, PLUGIN_ASK_FD) < 0)
		_exit(127);
	execve(path, argv, envp);
	_exit(127);
}

int real_run_asking(const char *path, char *const argv[], char *const envp[], long limit_ms,
		    int (*serve)(void *ctx, int fd), void *ctx)
{
	long long deadline = limit_ms > 0 ? mono_ms() + limit_ms : -1;
	int sv[2], pidfd, st;
	pid_t pid, got;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return err_errno(errno, "socketpair");
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return err_errno(e, "fork");
	}
	if (pid == 0)
		exec_asking(path, argv, envp, sv[1]);
	setpgid(pid, pid); /* as the child does: whichever runs first */
	close(sv[1]);
	/* the program's end, not the socket's: a child of it (zfs
	 * load-key) may still hold the other end. Without a pidfd (a
	 * kernel before 5.3) the child is looked at every 50 ms. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (;;) {
		struct pollfd p[2] = { { .fd = sv[0], .events = POLLIN },
				       { .fd = pidfd, .events = POLLIN } };
		long long now = mono_ms();
		int timeout = deadline < 0 ? -1 : deadline > now ? (int)(deadline - now) : 0;
		int r;

		if (pidfd < 0 && (timeout < 0 || timeout > 50))
			timeout = 50;
		got = waitpid(pid, &st, WNOHANG);
		if (got == pid || (got < 0 && errno != EINTR))
			break;
		if (deadline >= 0 && now >= deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while ((got = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
				;
			if (sv[0] >= 0)
				close(sv[0]);
			if (pidfd >= 0)
				close(pidfd);
			if (limit_ms % 1000)
				return err_set_code(-ETIMEDOUT, "%s did not end within its time limit of %ld ms: killed",
						    path, limit_ms);
			return err_set_code(-ETIMEDOUT, "%s did not end within its time limit of %ld s: killed",
					    path, limit_ms / 1000);
		}
		r = poll(p, 2, timeout);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && sv[0] >= 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			long long t0 = mono_ms();
			int s = serve(ctx, sv[0]);
			/* a person at the prompt is not the program's time */
			if (deadline >= 0)
				deadline += mono_ms() - t0;
			if (s < 0) {
				close(sv[0]);
				sv[0] = -1;
			}
		}
	}
	if (sv[0] >= 0)
		close(sv[0]);
	if (pidfd >= 0)
		close(pidfd);
	if (got != pid) {
		while ((got = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
		if (got < 0)
			return err_errno(errno, "waitpid %s", path);
	}
	return status_of(st, path);
}
