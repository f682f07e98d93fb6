// SPDX-License-Identifier: GPL-2.0-or-later
/* The init's end of the remote prompt (askpass.h). Everything a client
 * sends is hostile; nothing it does may block the init: every socket is
 * non-blocking, a write that does not fit drops the client. */
#include "init/remote/askpass.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "err.h"
#include "init/remote/plymouth.h"
#include "util.h"

int askpass_listen(struct askpass *a, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return err_set_code(-ENAMETOOLONG, "%s: path too long for a socket", path);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_errno(errno, "socket for %s", path);
	unlink(path); /* a stale one from a try before */
	/* nobody but root may answer: the socket is made 0600 from the start */
	mode_t old = umask(0177);
	int r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0 || listen(fd, ASKPASS_MAX_CLIENTS) < 0) {
		r = err_errno(errno, "listen on %s", path);
		close(fd);
		return r;
	}
	a->lfd = fd;
	a->listening = true;
	free(a->path);
	a->path = xstrdup(path);
	return 0;
}

static void drop(struct askpass *a, size_t i)
{
	close(a->c[i].fd);
	explicit_bzero(a->c[i].line, sizeof(a->c[i].line));
	a->c[i].on = false;
	a->c[i].n = 0;
	if (a->winner == (int)i + 1)
		a->winner = 0;
}

/* One protocol line; control characters in text become '?' so a device
 * name cannot end a line early. A client that cannot take it now (its
 * buffer full: it does not read) is dropped. */
static int send_line(struct askpass *a, size_t i, const char *word, const char *text)
{
	struct buf b = { 0 };
	ssize_t w;

	buf_printf(&b, "%s", word);
	if (text) {
		buf_append(&b, " ", 1);
		for (const unsigned char *p = (const unsigned char *)text; *p; p++)
			buf_append(&b, (*p < 0x20 || *p == 0x7f) ? "?" : (const char *)p, 1);
	}
	buf_append(&b, "\n", 1);
	w = send(a->c[i].fd, b.p, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (w < 0 || (size_t)w != b.len) {
		buf_free(&b);
		drop(a, i);
		return -EPIPE;
	}
	buf_free(&b);
	return 0;
}

int askpass_add(struct askpass *a, int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	for (size_t i = 0; i < ASKPASS_MAX_CLIENTS; i++) {
		if (a->c[i].on)
			continue;
		a->c[i] = (struct askpass_client){ .on = true, .fd = fd };
		if (a->prompt)
			send_line(a, i, "prompt", a->prompt);
		return 0;
	}
	(void)!send(fd, "say too many connections; try later\n", 36, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
	return -ENOSPC;
}

/* What a client sent before this prompt answered another (the console
 * was first): never an answer to this one. */
static void drain(struct askpass *a, size_t i)
{
	char chunk[256];
	ssize_t r;

	while ((r = recv(a->c[i].fd, chunk, sizeof(chunk), MSG_DONTWAIT)) > 0 ||
	       (r < 0 && errno == EINTR))
		;
	explicit_bzero(chunk, sizeof(chunk));
	explicit_bzero(a->c[i].line, a->c[i].n);
	a->c[i].n = 0;
	if (r == 0)
		drop(a, i);
}

void askpass_ask(struct askpass *a, const char *prompt)
{
	free(a->prompt);
	a->prompt = prompt ? xstrdup(prompt) : NULL;
	if (prompt)
		a->winner = 0;
	plymouth_ask(prompt); /* the splash asks too; NULL ends its client */
	for (size_t i = 0; i < ASKPASS_MAX_CLIENTS; i++) {
		if (a->c[i].on && prompt)
			drain(a, i);
		if (a->c[i].on && (prompt || (int)i + 1 != a->winner))
			send_line(a, i, prompt ? "prompt" : "done", prompt);
	}
}

size_t askpass_pollfds(const struct askpass *a, struct pollfd *pfd, size_t max)
{
	size_t n = plymouth_pollfd(pfd, max);

	if (a->listening && n < max)
		pfd[n++] = (struct pollfd){ .fd = a->lfd, .events = POLLIN };
	for (size_t i = 0; i < ASKPASS_MAX_CLIENTS && n < max; i++)
		if (a->c[i].on)
			pfd[n++] = (struct pollfd){ .fd = a->c[i].fd, .events = POLLIN };
	return n;
}

static void accept_all(struct askpass *a)
{
	for (;;) {
		int fd = accept4(a->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct ucred cr;
		socklen_t len = sizeof(cr);

		if (fd < 0)
			return; /* EAGAIN: all taken; anything else: try at the next poll */
		/* the socket is root's alone; this is in case its mode is not */
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.uid != geteuid()) {
			close(fd);
			continue;
		}
		askpass_add(a, fd);
	}
}

/* Read what client i sent. 1: a whole line is in its buffer (n bytes,
 * no newline), 0: not yet, -ECONNRESET: it was dropped. */
static int read_client(struct askpass *a, size_t i)
{
	struct askpass_client *c = &a->c[i];
	char chunk[256];

	for (;;) {
		ssize_t r = recv(c->fd, chunk, sizeof(chunk), MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r <= 0) {
			drop(a, i); /* gone */
			return -ECONNRESET;
		}
		for (ssize_t k = 0; k < r; k++) {
			if (chunk[k] == '\n') {
				if (c->n && c->line[c->n - 1] == '\r')
					c->n--;
				/* the rest of this chunk is not an answer to
				 * anything asked yet: dropped with the line */
				explicit_bzero(chunk, sizeof(chunk));
				return 1;
			}
			if (chunk[k] == '\0' || c->n == sizeof(c->line)) {
				const char *why = chunk[k] == '\0' ? "a NUL byte in the answer: closing"
								   : "answer too long: closing";
				explicit_bzero(chunk, sizeof(chunk));
				send_line(a, i, "say", why);
				if (c->on)
					drop(a, i);
				return -ECONNRESET;
			}
			c->line[c->n++] = chunk[k];
		}
		explicit_bzero(chunk, sizeof(chunk));
	}
}

ssize_t askpass_ready(struct askpass *a, const struct pollfd *pfd, size_t n, char *buf,
		      size_t size)
{
	ssize_t got = a->prompt ? plymouth_ready(pfd, n, buf, size) : -EAGAIN;

	for (size_t k = 0; k < n; k++) {
		if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (a->listening && pfd[k].fd == a->lfd) {
			accept_all(a);
			continue;
		}
		for (size_t i = 0; i < ASKPASS_MAX_CLIENTS; i++) {
			struct askpass_client *c = &a->c[i];
			if (!c->on || c->fd != pfd[k].fd || read_client(a, i) != 1)
				continue;
			if (got >= 0 || !a->prompt) {
				/* not asked, or another answered first */
				send_line(a, i, "say", "no passphrase is asked now");
			} else {
				size_t len = c->n < size - 1 ? c->n : size - 1;
				memcpy(buf, c->line, len);
				buf[len] = '\0';
				got = (ssize_t)len;
				a->winner = (int)i + 1;
			}
			explicit_bzero(c->line, c->n);
			c->n = 0;
		}
	}
	return got;
}

void askpass_tell(struct askpass *a, const char *msg)
{
	if (a)
		plymouth_message(msg);
	for (size_t i = 0; a && i < ASKPASS_MAX_CLIENTS; i++)
		if (a->c[i].on)
			send_line(a, i, "say", msg);
}

size_t askpass_clients(const struct askpass *a)
{
	size_t n = 0;

	for (size_t i = 0; i < ASKPASS_MAX_CLIENTS; i++)
		n += a->c[i].on;
	return n;
}

void askpass_close(struct askpass *a)
{
	for (size_t i = 0; i < ASKPASS_MAX_CLIENTS; i++)
		if (a->c[i].on)
			drop(a, i);
	if (a->listening)
		close(a->lfd);
	if (a->path)
		unlink(a->path);
	free(a->path);
	free(a->prompt);
	memset(a, 0, sizeof(*a));
}
