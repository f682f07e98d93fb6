// SPDX-License-Identifier: GPL-2.0-or-later
/* A live root's download connection (httpsock.h): non-blocking, so that
 * neither the connect nor a read can outlast its timeout. */
#include "init/netboot/httpsock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "err.h"

static long long mono_ms(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for events on fd for at most timeout_ms: 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, long timeout_ms)
{
	long long end = mono_ms(NULL) + timeout_ms;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		long long left = end - mono_ms(NULL);
		int n;

		if (left < 0)
			left = 0;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int sock_send_all(void *ctx, const void *buf, size_t len)
{
	struct http_sock *s = ctx;
	const char *p = buf;

	while (len) {
		ssize_t n = send(s->fd, p, len, MSG_NOSIGNAL);
		int r;
		if (n < 0 && errno == EAGAIN) {
			if ((r = wait_fd(s->fd, POLLOUT, 30000)) < 0)
				return r;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t sock_recv(void *ctx, void *buf, size_t len, long timeout_ms)
{
	struct http_sock *s = ctx;

	for (;;) {
		ssize_t n = recv(s->fd, buf, len, 0);
		int r;
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		if ((r = wait_fd(s->fd, POLLIN, timeout_ms)) < 0)
			return r;
	}
}

int http_sock_connect(struct http_sock *s, const struct net_addr *addr, unsigned port,
		      long timeout_ms, const char *shown, struct http_io *io)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	char text[NET_ADDR_TEXT];
	int r, soerr = 0;
	socklen_t el = sizeof(soerr);

	if (addr->family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		a->sin6_addr = addr->v6;
		sl = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		a->sin_addr = addr->v4;
		sl = sizeof(*a);
	}
	net_addr_str(addr, text);
	s->fd = socket(addr->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return err_errno(errno, "%s: cannot open a TCP socket", shown);
	if (connect(s->fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
		r = err_errno(errno, "%s: cannot connect to %s port %u", shown, text, port);
		http_sock_close(s);
		return r;
	}
	r = wait_fd(s->fd, POLLOUT, timeout_ms);
	if (r == 0 && getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &soerr, &el) < 0)
		r = -errno;
	if (r == 0 && soerr)
		r = -soerr;
	if (r == -ETIMEDOUT) {
		http_sock_close(s);
		return err_set_code(r, "%s: no answer from %s port %u within %ld seconds", shown, text,
				    port, timeout_ms / 1000);
	}
	if (r < 0) {
		http_sock_close(s);
		return err_errno(r, "%s: cannot connect to %s port %u", shown, text, port);
	}
	*io = (struct http_io){ .ctx = s, .send_all = sock_send_all, .recv = sock_recv,
				.now_ms = mono_ms };
	return 0;
}

void http_sock_close(struct http_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
