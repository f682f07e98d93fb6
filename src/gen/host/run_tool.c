// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/host/run_tool.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"

static int child_exec(const char *const argv[], int outfd, const int *keep, size_t nkeep)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null < 0 || dup2(null, 0) < 0 || dup2(outfd, 1) < 0)
		_exit(126);
	for (size_t i = 0; i < nkeep; i++)
		if (fcntl(keep[i], F_SETFD, 0) < 0)
			_exit(126);
	execvp(argv[0], (char *const *)argv);
	_exit(127);
}

/* Read the child's stdout to its end; past max, stop reading and say so
 * (the child then dies of SIGPIPE or is killed). */
static int collect(int fd, size_t max, struct buf *out)
{
	char chunk[8192];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if (out->len + (size_t)n > max)
			return -EFBIG;
		buf_append(out, chunk, (size_t)n);
	}
}

int run_tool_capture(const char *const argv[], const char *pkg, size_t max, struct buf *out)
{
	return run_tool_fds(argv, pkg, NULL, 0, max, out);
}

int run_tool_fds(const char *const argv[], const char *pkg, const int *keep, size_t nkeep, size_t max,
		 struct buf *out)
{
	int pipefd[2], status, r;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return err_errno(errno, "pipe");
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return err_errno(r, "fork");
	}
	if (pid == 0)
		child_exec(argv, pipefd[1], keep, nkeep);
	close(pipefd[1]);
	r = collect(pipefd[0], max, out);
	close(pipefd[0]);
	if (r < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_errno(errno, "waitpid %s", argv[0]);
	if (r == -EFBIG)
		return err_set("%s wrote more than %zu bytes", argv[0], max);
	if (r < 0)
		return err_errno(r, "reading from %s", argv[0]);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return err_set("%s not found: install %s", argv[0], pkg);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return err_set("%s failed (%s %d)", argv[0], WIFEXITED(status) ? "exit status" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}
