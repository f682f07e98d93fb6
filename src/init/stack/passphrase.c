// SPDX-License-Identifier: GPL-2.0-or-later
/* The passphrase prompt: on every console the kernel writes to, echo
 * off, one line from whichever answers first. With console=tty1
 * console=ttyS0 a person at the keyboard and one on the serial line can
 * both unlock; /dev/console alone is only the last of them. Once the
 * network is up an SSH login can answer too (remote/askpass.c): the
 * first answer from any of them wins. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "err.h"
#include "init/core/loop.h"
#include "init/remote/askpass.h"
#include "init/remote/plymouth.h"
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

/* tty0, tty1...: a virtual terminal, whose keyboard plymouthd reads
 * while the splash is up */
static bool is_vt(const char *name)
{
	return !strncmp(name, "tty", 3) && name[3] && strspn(name + 3, "0123456789") == strlen(name + 3);
}

static size_t open_consoles(struct console *c)
{
	char *active = NULL, *save = NULL;
	size_t n = 0;
	bool vts = !plymouth_owns_vts();

	if (read_line(ACTIVE_CONSOLES, &active) == 0) {
		for (char *w = strtok_r(active, " ", &save); w && n < MAX_CONSOLES;
		     w = strtok_r(NULL, " ", &save)) {
			char path[64];
			if (!console_name_ok(w) || strlen(w) > 32 || (!vts && is_vt(w)))
				continue;
			snprintf(path, sizeof(path), "/dev/%s", w);
			c[n].fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
			if (c[n].fd >= 0)
				n++;
		}
	}
	free(active);
	if (n == 0 && vts) {
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

int answer_wait(int *con, size_t nc, struct loop *loop, struct askpass *remote, char *buf,
		size_t size, size_t *n)
{
	size_t partial = nc; /* the console whose line is begun in buf */

	for (;;) {
		struct pollfd pfd[MAX_CONSOLES + LOOP_MAX_SOURCES + ASKPASS_MAX_FDS];
		size_t k = 0, open_ = 0, nl = 0, nr = 0, lbase, rbase;
		int timeout = -1, pr;
		bool pump = false;

		for (size_t i = 0; i < nc && i < MAX_CONSOLES; i++) {
			pfd[k++] = (struct pollfd){ .fd = con[i], .events = POLLIN };
			open_ += con[i] >= 0;
		}
		lbase = k;
		if (loop)
			nl = loop_pollfds(loop, pfd + k, LOOP_MAX_SOURCES, &timeout);
		k += nl;
		rbase = k;
		if (remote)
			nr = askpass_pollfds(remote, pfd + k, ASKPASS_MAX_FDS);
		k += nr;
		/* with every console at its end only SSH can still answer */
		if (!open_ && !nr)
			return 0;
		pr = poll(pfd, k, timeout);
		if (pr < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		pump = pr == 0;
		for (size_t i = lbase; i < lbase + nl; i++)
			pump |= pfd[i].revents != 0;
		if (pump && loop)
			loop_pump(loop); /* may start SSH: the next round polls it */
		for (size_t i = 0; i < nc && i < MAX_CONSOLES; i++) {
			int r;
			if (con[i] < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (partial != i)
				*n = 0;
			r = read_answer(con[i], buf, size, n);
			if (r == 1 || r < 0)
				return r;
			partial = r == 2 ? i : nc;
			if (r == 0)
				con[i] = -1; /* this one has no more input; the others may */
		}
		if (nr) {
			ssize_t got = askpass_ready(remote, pfd + rbase, nr, buf, size);
			if (got >= 0) {
				*n = (size_t)got;
				return 1;
			}
		}
	}
}

ssize_t real_read_secret(const char *prompt, char *buf, size_t size, struct loop *loop,
			 struct askpass *remote)
{
	struct console c[MAX_CONSOLES];
	int fds[MAX_CONSOLES], live[MAX_CONSOLES];
	size_t nc, n = 0;
	int r;

	if (remote)
		plymouth_start(); /* before the consoles: it takes the VTs */
	nc = open_consoles(c);
	if (nc == 0 && !(remote && plymouth_owns_vts()))
		return err_errno(errno, "cannot open /dev/console");
	for (size_t i = 0; i < nc; i++) {
		fds[i] = live[i] = c[i].fd;
		quiet(&c[i]);
		write_all(c[i].fd, prompt, strlen(prompt));
	}
	if (remote)
		askpass_ask(remote, prompt);
	r = answer_wait(live, nc, loop, remote, buf, size, &n);
	buf[n] = '\0';
	if (remote)
		askpass_ask(remote, NULL);
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
