// SPDX-License-Identifier: GPL-2.0-or-later
/* The passphrase prompt: on /dev/console, echo off, one line. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/stack.h"

/* One byte of the answer; while none is there, keep handling events. */
static int next_char(int fd, int evfd, void (*pump)(void *), void *arg, char *c)
{
	for (;;) {
		struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN },
					 { .fd = evfd, .events = POLLIN } };
		int r = poll(pfd, evfd >= 0 ? 2 : 1, -1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return err_errno(errno, "poll");
		}
		if (evfd >= 0 && (pfd[1].revents & POLLIN) && pump)
			pump(arg);
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(fd, c, 1);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			return n == 1 ? 1 : n == 0 ? 0 : err_errno(errno, "read /dev/console");
		}
	}
}

ssize_t real_read_secret(const char *prompt, char *buf, size_t size, int evfd,
			 void (*pump)(void *), void *arg)
{
	struct termios old, quiet;
	bool tty;
	size_t n = 0;
	int fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return err_errno(errno, "cannot open /dev/console");
	tty = tcgetattr(fd, &old) == 0;
	if (tty) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
		quiet.c_lflag |= ICANON;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	write_all(fd, prompt, strlen(prompt));
	for (;;) {
		char c;
		r = next_char(fd, evfd, pump, arg, &c);
		if (r <= 0 || c == '\n' || c == '\r')
			break;
		if (n + 1 < size)
			buf[n++] = c;
	}
	buf[n] = '\0';
	if (tty)
		tcsetattr(fd, TCSAFLUSH, &old);
	write_all(fd, "\n", 1);
	close(fd);
	if (r < 0 || (r == 0 && n == 0)) {
		explicit_bzero(buf, size);
		return r < 0 ? r : err_set("end of input on /dev/console");
	}
	return (ssize_t)n;
}
