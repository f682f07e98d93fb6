// SPDX-License-Identifier: GPL-2.0-or-later
/* Run a tool (cryptsetup, lvm, mdadm, a plugin's program) to its end, feeding its stdin
 * from memory: a passphrase goes through a pipe, never argv or a file. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

int tool_run(struct stack_env *env, const char *name, char *const argv[], const void *input,
	     size_t len)
{
	char *path = tool_find(env, name);
	struct buf cmd = { 0 };
	struct strv vars = { 0 };
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
		strv_push(&vars, *e);
	/* lvm names every inherited fd it did not expect: noise on the console */
	strv_push(&vars, "LVM_SUPPRESS_FD_WARNINGS=1");
	st = env->xops->run ? env->xops->run(path, argv, vars.v, input, len)
			    : err_set("no way to run programs");
	env->stack->last_run_ms = env->ops->now_ms();
	strv_free(&vars);
	if (st < 0)
		log_err("cannot run %s: %s", cmd.p, err_msg());
	free(path);
	buf_free(&cmd);
	return st;
}

int real_run(const char *path, char *const argv[], char *const envp[], const void *input,
	     size_t len)
{
	int fds[2] = { -1, -1 }, st;
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
	if (pid == 0) {
		sigset_t none;
		int in = input ? fds[0] : open("/dev/null", O_RDONLY | O_CLOEXEC);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (in >= 0)
			dup2(in, STDIN_FILENO);
		execve(path, argv, envp);
		_exit(127);
	}
	if (input) {
		void (*old)(int) = signal(SIGPIPE, SIG_IGN);
		close(fds[0]);
		/* A tool that exits before reading all of it is no error here:
		 * its exit status says what happened. */
		write_all(fds[1], input, len);
		close(fds[1]);
		signal(SIGPIPE, old);
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return err_errno(errno, "waitpid %s", path);
	}
	if (WIFSIGNALED(st))
		return err_set("%s killed by signal %d", path, WTERMSIG(st));
	if (WEXITSTATUS(st) == 127)
		return err_set("cannot execute %s", path);
	return WEXITSTATUS(st);
}
