// SPDX-License-Identifier: GPL-2.0-or-later
/* The Plymouth splash's client (plymouth.h). Every talk with plymouthd
 * goes through its own client program, `plymouth`, as dracut's and
 * initramfs-tools' scripts do: its socket protocol is plymouth's to
 * change. The programs run with the init's clean environment, stdin
 * /dev/null and their output discarded, except ask-for-password's
 * answer, read from a pipe.
 *
 * A question answered elsewhere is withdrawn from the splash with the
 * one cancel plymouthd has: Ctrl+C on its keyboard. Its protocol has no
 * request for it, and plymouthd keeps the dialog of a client that went
 * away (main.c's entry_triggers leave their queue only on the keyboard's
 * Enter, Ctrl+C or Ctrl+D), so the next question would wait behind it
 * and show its words. The Ctrl+C goes into the input queue of the VT
 * plymouthd reads (TIOCSTI: the init writes there, it never reads it);
 * plymouthd then ends that question (its client exits with no answer)
 * and clears what was typed into it. The next question is sent only once
 * that client has ended, so the cancel cannot reach it. */
#include "init/remote/plymouth.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "log.h"
#include "util.h"

#define PLY_ANSWER_MAX 1024

static struct {
	bool wanted, tried, up;
	bool vt;        /* plymouthd reads paths.tty (given it with --tty) */
	char *prompt;   /* the question asked now, NULL: none */
	pid_t ask_pid;  /* the ask-for-password client, 0: none */
	int ask_fd;     /* its stdout */
	bool withdrawn; /* its question was cancelled: its end is awaited */
	size_t n;
	char answer[PLY_ANSWER_MAX];
} ply = { .ask_fd = -1 };

static struct plymouth_paths paths = { PLYMOUTHD, PLYMOUTH, PLYMOUTH_TTY, PLYMOUTH_RUN_DIR };

void plymouth_use(const struct plymouth_paths *p)
{
	paths = *p;
}

static char *const clean_env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/", "TERM=linux", NULL };

/* fork and exec path with argv, stdout to out_fd (-1: /dev/null). The
 * pid, or < 0. */
static pid_t spawn(const char *path, char *const argv[], int out_fd)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sigset_t none;
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(out_fd >= 0 ? out_fd : null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execve(path, argv, clean_env);
		_exit(127);
	}
	return pid;
}

/* Run path to its end: its exit status, or < 0. */
static int run(const char *path, char *const argv[])
{
	int st;
	pid_t pid = spawn(path, argv, -1);

	if (pid < 0)
		return (int)pid;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void plymouth_want(bool on)
{
	ply.wanted = on;
}

bool plymouth_wanted(void)
{
	return ply.wanted && !ply.tried;
}

bool plymouth_owns_vts(void)
{
	return ply.up;
}

/* The kernel's command line for plymouthd, with two words of its own:
 * no udev runs here (plymouthd takes /dev/dri/card0, else /dev/fb0), and
 * the serial consoles stay the init's prompt's, never plymouthd's. */
static char *daemon_cmdline(void)
{
	char *line = NULL, *r;

	if (read_line("/proc/cmdline", &line) < 0)
		line = xstrdup("splash");
	r = xasprintf("--kernel-command-line=%s plymouth.ignore-udev plymouth.ignore-serial-consoles", line);
	free(line);
	return r;
}

void plymouth_start(void)
{
	char *cl, *pidfile, *tty;
	int st;

	if (!plymouth_wanted())
		return;
	ply.tried = true;
	if (access(paths.daemon, X_OK) != 0) {
		log_warn("splash: this image has no plymouthd (build it with plymouth = yes): no splash");
		return;
	}
	mkdir(paths.rundir, 0755);
	/* --attach-to-session keeps the console's output through a pty */
	if (access("/dev/pts/ptmx", F_OK) != 0 && (mkdir("/dev/pts", 0755) == 0 || errno == EEXIST))
		if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "gid=5,mode=620,ptmxmode=666") < 0 &&
		    errno != EBUSY)
			log_warn("splash: cannot mount /dev/pts: %s", strerror(errno));
	cl = daemon_cmdline();
	pidfile = xasprintf("--pid-file=%s/pid", paths.rundir);
	tty = xasprintf("--tty=%s", paths.tty);
	/* the VT named, so that the cancel (withdraw) goes where it reads;
	 * without one plymouthd falls back on a serial console by itself */
	ply.vt = access(paths.tty, F_OK) == 0;
	{
		/* '@': systemd's shutdown spares it; it is the root's to end */
		char *const argv[] = { "@plymouthd", "--mode=boot", "--attach-to-session", pidfile, cl,
				       ply.vt ? tty : NULL, NULL };
		st = run(paths.daemon, argv);
	}
	free(tty);
	free(pidfile);
	free(cl);
	if (st != 0) {
		log_warn("splash: plymouthd did not start (status %d): no splash", st);
		return;
	}
	{
		char *const argv[] = { "plymouth", "show-splash", NULL };
		if ((st = run(paths.client, argv)) != 0)
			log_warn("splash: plymouth show-splash exited with status %d", st);
	}
	ply.up = true;
	log_info("splash: plymouthd started, %s",
		 access("/dev/dri/card0", F_OK) == 0 ? "on /dev/dri/card0"
		 : access("/dev/fb0", F_OK) == 0     ? "on /dev/fb0 (no DRM driver bound)"
						     : "without a display (text)");
}

/* The client gone (reaped or never started): its pipe closed, what it
 * said wiped. */
static void ask_reset(void)
{
	if (ply.ask_fd >= 0)
		close(ply.ask_fd);
	ply.ask_pid = 0;
	ply.ask_fd = -1;
	ply.withdrawn = false;
	explicit_bzero(ply.answer, sizeof(ply.answer));
	ply.n = 0;
}

/* Cancel the client's question on the splash: Ctrl+C into the input of
 * the VT plymouthd reads (see the top). When it cannot be, the dialog
 * stays, as plymouth leaves it, and answers the next question. */
static void withdraw(void)
{
	static bool said;
	const char cancel = '\x03';
	int fd = -1, r = -ENODEV;

	if (ply.vt) {
		fd = open(paths.tty, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			r = -errno;
		else {
			r = ioctl(fd, TIOCSTI, &cancel) < 0 ? -errno : 0;
			close(fd);
		}
	}
	ply.withdrawn = r == 0;
	if (r < 0 && !said) {
		said = true;
		log_warn("splash: cannot withdraw a question answered elsewhere (Ctrl+C into %s: %s): "
			 "its dialog answers the next one",
			 ply.vt ? paths.tty : "plymouthd's VT", strerror(-r));
	}
}

/* The client has ended since (withdrawn, or its dialog answered while
 * nothing was asked): what it said was for a question gone. */
static void reap_ended(void)
{
	if (ply.ask_pid > 0 && waitpid(ply.ask_pid, NULL, WNOHANG) == ply.ask_pid)
		ask_reset();
}

/* End the client now (switch_root, a failure), its question withdrawn
 * first so that it does not stay on the splash. */
static void ask_end(void)
{
	reap_ended();
	if (ply.ask_pid > 0) {
		if (!ply.withdrawn)
			withdraw();
		kill(ply.ask_pid, SIGTERM);
		while (waitpid(ply.ask_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	ask_reset();
}

/* Start a client asking ply.prompt on the splash. */
static void ask_spawn(void)
{
	int p[2];
	char *arg;

	if (pipe2(p, O_CLOEXEC) < 0) {
		log_warn("splash: cannot ask through plymouth: %s", strerror(errno));
		return;
	}
	arg = xasprintf("--prompt=%s", ply.prompt);
	{
		char *const argv[] = { "plymouth", "ask-for-password", arg, NULL };
		ply.ask_pid = spawn(paths.client, argv, p[1]);
	}
	free(arg);
	close(p[1]);
	if (ply.ask_pid < 0) {
		ply.ask_pid = 0;
		close(p[0]);
		return;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	ply.ask_fd = p[0];
}

void plymouth_ask(const char *prompt)
{
	free(ply.prompt);
	ply.prompt = prompt ? xstrdup(prompt) : NULL;
	if (!prompt) {
		/* answered on a console or over SSH: off the splash with it */
		reap_ended();
		if (ply.ask_pid > 0 && !ply.withdrawn)
			withdraw();
		return;
	}
	plymouth_start(); /* a question before the display came: now */
	if (!ply.up)
		return;
	reap_ended();
	if (ply.ask_pid == 0)
		ask_spawn();
	/* else a withdrawn client: this question is asked once it has ended
	 * (plymouth_ready); one that could not be withdrawn has its dialog
	 * on the splash still, and that answers this question */
}

size_t plymouth_pollfd(struct pollfd *pfd, size_t max)
{
	if (!ply.prompt || ply.ask_fd < 0 || max == 0)
		return 0;
	pfd[0] = (struct pollfd){ .fd = ply.ask_fd, .events = POLLIN };
	return 1;
}

ssize_t plymouth_ready(const struct pollfd *pfd, size_t n, char *buf, size_t size)
{
	int st = -1;
	ssize_t len;

	for (size_t k = 0; ply.prompt && k < n; k++) {
		if (ply.ask_fd < 0 || pfd[k].fd != ply.ask_fd || !(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		for (;;) {
			ssize_t r = read(ply.ask_fd, ply.answer + ply.n, sizeof(ply.answer) - 1 - ply.n);
			if (r > 0 && (ply.n += (size_t)r) < sizeof(ply.answer) - 1)
				continue;
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EAGAIN)
				return -EAGAIN; /* more to come */
			break; /* its end (or full: a line no passphrase is) */
		}
		while (waitpid(ply.ask_pid, &st, 0) < 0 && errno == EINTR)
			;
		ply.ask_pid = 0;
		if (ply.withdrawn) {
			/* the earlier question is off the splash: ask this one */
			ask_reset();
			ask_spawn();
			return -EAGAIN;
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			/* plymouthd went away, or would not ask: the consoles still can */
			log_warn("splash: plymouth ask-for-password ended without an answer");
			ask_reset();
			return -EAGAIN;
		}
		len = (ssize_t)ply.n;
		if (len && ply.answer[len - 1] == '\n')
			len--;
		if (len == 0) {
			/* Enter on an empty dialog, or a Ctrl+C (the client says
			 * nothing for either): not an answer; the dialog again */
			ask_reset();
			ask_spawn();
			return -EAGAIN;
		}
		if ((size_t)len > size - 1)
			len = (ssize_t)size - 1;
		memcpy(buf, ply.answer, (size_t)len);
		buf[len] = '\0';
		ask_reset();
		return len;
	}
	return -EAGAIN;
}

void plymouth_message(const char *msg)
{
	char *arg;

	if (!ply.up)
		return;
	arg = xasprintf("--text=%s", msg);
	{
		char *const argv[] = { "plymouth", "display-message", arg, NULL };
		run(paths.client, argv);
	}
	free(arg);
}

void plymouth_newroot(const char *dir)
{
	char *arg;
	int st;

	if (!ply.up)
		return;
	ask_end();
	arg = xasprintf("--new-root-dir=%s", dir);
	{
		char *const argv[] = { "plymouth", "update-root-fs", arg, NULL };
		st = run(paths.client, argv);
	}
	free(arg);
	if (st != 0)
		log_warn("splash: plymouth update-root-fs exited with status %d", st);
	else
		log_info("splash: plymouthd stays for the root (pid file %s/pid)", paths.rundir);
}

void plymouth_quit(void)
{
	if (!ply.up)
		return;
	ask_end();
	{
		char *const argv[] = { "plymouth", "quit", NULL };
		run(paths.client, argv);
	}
	ply.up = false;
	log_info("splash: quit, for the report on the console");
}
