// SPDX-License-Identifier: GPL-2.0-or-later
/* The passphrase prompt: on every console the kernel writes to, echo
 * off, one line from whichever answers first. With console=tty1
 * console=ttyS0 a person at the keyboard and one on the serial line can
 * both unlock; /dev/console alone is only the last of them. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/stack.h"

#define MAX_CONSOLES 8
#define ACTIVE_CONSOLES "/sys/class/tty/console/active"

struct console {
	int fd;
	bool tty;
	struct termios old;
};

static bool console_name_ok(const char *name)
{
	return *name && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
			       strlen(name);
}

static size_t open_consoles(struct console *c)
{
	char *active = NULL, *save = NULL;
	size_t n = 0;

	if (read_line(ACTIVE_CONSOLES, &active) == 0) {
		for (char *w = strtok_r(active, " ", &save); w && n < MAX_CONSOLES;
		     w = strtok_r(NULL, " ", &save)) {
			char path[64];
			if (!console_name_ok(w) || strlen(w) > 32)
				continue;
			snprintf(path, sizeof(path), "/dev/%s", w);
			c[n].fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
			if (c[n].fd >= 0)
				n++;
		}
	}
	free(active);
	if (n == 0) {
		c[0].fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
		n = c[0].fd >= 0;
	}
	return n;
}

static void quiet(struct console *c)
{
	struct termios t;

	c->tty = tcgetattr(c->fd, &c->old) == 0;
	if (!c->tty)
		return;
	t = c->old;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
	t.c_lflag |= ICANON;
	tcsetattr(c->fd, TCSAFLUSH, &t);
}

/* The line a console has ready (canonical mode: poll says readable
 * once it is complete). 1: a line, 2: part of one so far (not a tty),
 * 0: end of input, <0: -errno. */
static int read_answer(int fd, char *buf, size_t size, size_t *n)
{
	for (;;) {
		char ch;
		ssize_t r = read(fd, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 2; /* nothing more now: the line goes on later */
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		if (ch == '\n' || ch == '\r')
			return 1;
		if (*n + 1 < size)
			buf[(*n)++] = ch;
	}
}

/* Wait until one console has a line, handling device events meanwhile. */
static int wait_answer(struct console *c, size_t nc, int evfd, void (*pump)(void *), void *arg,
		       char *buf, size_t size, size_t *n)
{
	struct pollfd pfd[MAX_CONSOLES + 1];
	size_t ev = nc, partial = nc; /* the console whose line is begun in buf */

	for (;;) {
		size_t open_ = 0;
		for (size_t i = 0; i < nc; i++) {
			pfd[i] = (struct pollfd){ .fd = c[i].fd, .events = POLLIN };
			open_ += c[i].fd >= 0;
		}
		if (!open_)
			return 0;
		pfd[ev] = (struct pollfd){ .fd = evfd, .events = POLLIN };
		if (poll(pfd, evfd >= 0 ? nc + 1 : nc, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (evfd >= 0 && (pfd[ev].revents & POLLIN) && pump)
			pump(arg);
		for (size_t i = 0; i < nc; i++) {
			int r;
			if (c[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (partial != i)
				*n = 0;
			r = read_answer(c[i].fd, buf, size, n);
			if (r == 1 || r < 0)
				return r;
			partial = r == 2 ? i : nc;
			if (r == 0)
				c[i].fd = -1; /* this one has no more input; the others may */
		}
	}
}

ssize_t real_read_secret(const char *prompt, char *buf, size_t size, int evfd,
			 void (*pump)(void *), void *arg)
{
	struct console c[MAX_CONSOLES];
	int fds[MAX_CONSOLES];
	size_t nc = open_consoles(c), n = 0;
	int r;

	if (nc == 0)
		return err_errno(errno, "cannot open /dev/console");
	for (size_t i = 0; i < nc; i++) {
		fds[i] = c[i].fd;
		quiet(&c[i]);
		write_all(c[i].fd, prompt, strlen(prompt));
	}
	r = wait_answer(c, nc, evfd, pump, arg, buf, size, &n);
	buf[n] = '\0';
	for (size_t i = 0; i < nc; i++) {
		if (c[i].tty)
			tcsetattr(fds[i], TCSAFLUSH, &c[i].old);
		write_all(fds[i], "\n", 1);
		close(fds[i]);
	}
	if (r < 0 || (r == 0 && n == 0)) {
		explicit_bzero(buf, size);
		return r < 0 ? err_errno(r, "read the console") : err_set("end of input on /dev/console");
	}
	return (ssize_t)n;
}
