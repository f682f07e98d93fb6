// SPDX-License-Identifier: GPL-2.0-or-later
/* Run a tool (cryptsetup, lvm, mdadm) to its end, feeding its stdin
 * from memory: a passphrase goes through a pipe, never argv or a file. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/stack.h"

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
