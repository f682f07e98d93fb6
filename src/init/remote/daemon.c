// SPDX-License-Identifier: GPL-2.0-or-later
/* A daemon the init starts and must leave nothing of before
 * switch_root: dropbear forks a process per login, which calls setsid,
 * so neither its process group nor its session holds them all. Its
 * descendants are found by their parent links in /proc instead. */
#include "init/remote/sshd.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "util.h"

pid_t real_start_daemon(const char *path, char *const argv[], char *const envp[])
{
	pid_t pid = fork();

	if (pid < 0)
		return err_errno(errno, "fork");
	if (pid == 0) {
		sigset_t none;
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* its own session without a terminal: ^C on the console
		 * is the prompt's, not the daemon's */
		setsid();
		if (fd >= 0)
			dup2(fd, STDIN_FILENO);
		execve(path, argv, envp);
		_exit(127);
	}
	return pid;
}

/* The parent of pid from /proc/PID/stat, or -1. The name in parens may
 * hold anything, ')' too: the fields after it start after the last. */
static pid_t parent_of(const char *pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;
	long pp;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %ld", &pp) != 1)
		return -1;
	return (pid_t)pp;
}

/* Kill every descendant of root, deepest first found or not: a pass
 * kills the children of what is known, until a pass finds none. */
static void kill_descendants(pid_t root)
{
	pid_t *known = xmalloc(sizeof(*known));
	size_t n = 1, cap = 1;
	bool more = true;

	known[0] = root;
	while (more) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		more = false;
		if (!d)
			break;
		while ((e = readdir(d))) {
			pid_t pid, pp;
			bool seen = false;
			if (!isdigit((unsigned char)e->d_name[0]))
				continue;
			pid = (pid_t)atol(e->d_name);
			for (size_t i = 0; i < n && !seen; i++)
				seen = known[i] == pid;
			if (seen || (pp = parent_of(e->d_name)) <= 0)
				continue;
			for (size_t i = 0; i < n; i++) {
				if (known[i] != pp)
					continue;
				known = grow_array(known, &cap, n + 1, sizeof(*known));
				known[n++] = pid;
				kill(pid, SIGSTOP); /* no more forks from it */
				more = true;
				break;
			}
		}
		closedir(d);
	}
	for (size_t i = 1; i < n; i++)
		kill(known[i], SIGKILL);
	free(known);
}

void real_stop_daemon(pid_t pid)
{
	kill(pid, SIGSTOP);
	kill_descendants(pid);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}
