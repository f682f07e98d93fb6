// SPDX-License-Identifier: GPL-2.0-or-later
/* One HTTP GET into a file (httpget.h). The server is hostile: its head
 * is read into a bounded buffer and parsed by net/http_msg.c, its body
 * must be exactly the length it announced (fewer bytes, more bytes and
 * silence are each a failure of their own), and the file never gets
 * more than g->max bytes. */
#include "init/netboot/httpget.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "log.h"

#define BUF_SIZE 65536
/* After the body, how long a server that ignored "Connection: close"
 * may keep the connection open before we stop looking for extra bytes. */
#define TAIL_WAIT_MS 2000

struct xfer {
	const struct http_io *io;
	const struct http_get *g;
	unsigned long long total;
	long long next_progress;
	long long started;
};

static double mib(unsigned long long n)
{
	return (double)n / (1024.0 * 1024.0);
}

static void progress(struct xfer *x, unsigned long long got, bool last)
{
	long long now = x->io->now_ms(x->io->ctx);

	if (!last && now < x->next_progress)
		return;
	x->next_progress = now + x->g->progress_ms;
	if (last)
		log_info("%s: %llu bytes in %lld.%01lld s", x->g->shown, got,
			 (now - x->started) / 1000, (now - x->started) % 1000 / 100);
	else
		log_info("%s: %.1f of %.1f MiB (%llu%%)", x->g->shown, mib(got), mib(x->total),
			 x->total ? got * 100 / x->total : 100);
}

static ssize_t recv_some(struct xfer *x, char *buf, size_t len, unsigned long long got)
{
	ssize_t n = x->io->recv(x->io->ctx, buf, len, x->g->stall_ms);

	if (n == -ETIMEDOUT)
		return err_set_code(-ETIMEDOUT, "%s: the server sent nothing for %ld seconds "
				    "(%llu of %llu bytes received)", x->g->shown,
				    x->g->stall_ms / 1000, got, x->total);
	if (n < 0)
		return err_errno((int)n, "%s: cannot read the answer", x->g->shown);
	return n;
}

static int write_all(struct xfer *x, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(x->g->out, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return err_errno(errno, "%s: cannot write the image", x->g->shown);
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The body: have bytes of it already in buf. */
static int body(struct xfer *x, char *buf, size_t have, struct http_got *got)
{
	unsigned long long want = x->total;
	ssize_t n;
	int r;

	for (;;) {
		if (have > want - got->bytes)
			return err_set("%s: the server sent more than the %llu bytes it announced",
				       x->g->shown, want);
		if ((r = write_all(x, buf, have)) < 0)
			return r;
		got->bytes += have;
		if (got->bytes == want)
			break;
		progress(x, got->bytes, false);
		if ((n = recv_some(x, buf, BUF_SIZE, got->bytes)) < 0)
			return (int)n;
		if (n == 0)
			return err_set("%s: the connection closed after %llu of the %llu bytes announced",
				       x->g->shown, got->bytes, want);
		have = (size_t)n;
	}
	/* all there: the end of the connection should follow at once */
	n = x->io->recv(x->io->ctx, buf, BUF_SIZE, x->g->stall_ms < TAIL_WAIT_MS ?
			x->g->stall_ms : TAIL_WAIT_MS);
	if (n > 0)
		return err_set("%s: the server sent more than the %llu bytes it announced",
			       x->g->shown, want);
	progress(x, got->bytes, true);
	return 0;
}

int http_get_run(const struct http_io *io, const struct http_url *u, const struct http_get *g,
		 struct http_got *got)
{
	struct xfer x = { .io = io, .g = g };
	struct http_head h;
	char req[HTTP_PATH_MAX + HTTP_HOST_MAX + 256];
	static char buf[BUF_SIZE];
	size_t have = 0;
	int len, r;

	memset(got, 0, sizeof(*got));
	x.started = io->now_ms(io->ctx);
	if ((len = http_request(u, req, sizeof(req))) < 0)
		return err_set("%s: the request is too long", g->shown);
	if ((r = io->send_all(io->ctx, req, (size_t)len)) < 0)
		return err_errno(r, "%s: cannot send the request", g->shown);
	for (;;) {
		ssize_t n;
		if (have == sizeof(buf))
			return err_set("%s: the server's answer has no end of its head within %d bytes",
				       g->shown, HTTP_HEAD_MAX);
		if ((n = recv_some(&x, buf + have, sizeof(buf) - have, 0)) < 0)
			return (int)n;
		if (n == 0)
			return err_set("%s: the server closed the connection before its answer's head "
				       "was complete", g->shown);
		have += (size_t)n;
		if ((r = http_head_parse(buf, have, &h)) < 0)
			return err_wrap("%s", g->shown);
		if (r > 0)
			break;
	}
	got->status = h.status;
	if (http_is_redirect(h.status) && h.has_location) {
		got->redirect = true;
		strcpy(got->location, h.location);
		return 0;
	}
	if (h.status != 200)
		return err_set("%s: the server answered %d %s", g->shown, h.status, h.reason);
	if (!h.has_length)
		return err_set("%s: the server gave no Content-Length: uniramfs needs the image's "
			       "size before it downloads it", g->shown);
	if (h.length > g->max)
		return err_set("%s: the image is %llu bytes, more than the %llu bytes %s", g->shown,
			       h.length, g->max, g->max_why);
	x.total = h.length;
	x.next_progress = x.started + g->progress_ms;
	log_info("%s: %llu bytes (%.1f MiB)", g->shown, h.length, mib(h.length));
	memmove(buf, buf + r, have - (size_t)r);
	return body(&x, buf, have - (size_t)r, got);
}
