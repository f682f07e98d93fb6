// SPDX-License-Identifier: GPL-2.0-or-later
/* One HTTP GET into a file, against a scripted server (an http_io that
 * hands out the answer in the pieces a test chooses, and can fall silent
 * or end early): the body lands exactly; each way a server can fail us
 * (silence, too many bytes, too few, no length, an error status, an
 * image larger than the room) is its own message; progress lines come at
 * most once per progress_ms of the fake clock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "err.h"
#include "init/netboot/httpget.h"
#include "log.h"
#include "log_capture.h"

#define URL "http://10.0.2.100:8080/root.squashfs"
#define SILENT ((const char *)1) /* a piece: nothing comes (the read times out) */

struct script {
	const char *piece[16]; /* NULL: the end of the connection */
	size_t len[16];        /* 0: strlen */
	size_t n, at;
	long long clock;
	long step_ms;          /* the fake clock moves on by this per read */
	char sent[1024];
	long timeouts_seen;
};

static int s_send(void *ctx, const void *buf, size_t len)
{
	struct script *s = ctx;

	snprintf(s->sent, sizeof(s->sent), "%.*s", (int)len, (const char *)buf);
	return 0;
}

static ssize_t s_recv(void *ctx, void *buf, size_t len, long timeout_ms)
{
	struct script *s = ctx;
	const char *p;
	size_t n;

	s->clock += s->step_ms;
	if (s->at >= s->n || !s->piece[s->at])
		return 0;
	p = s->piece[s->at];
	if (p == SILENT) {
		s->at++;
		s->clock += timeout_ms;
		s->timeouts_seen = timeout_ms;
		return -ETIMEDOUT;
	}
	n = s->len[s->at] ? s->len[s->at] : strlen(p);
	if (n > len)
		n = len;
	memcpy(buf, p, n);
	s->at++;
	return (ssize_t)n;
}

static long long s_now(void *ctx)
{
	return ((struct script *)ctx)->clock;
}

static void add(struct script *s, const char *p, size_t len)
{
	s->piece[s->n] = p;
	s->len[s->n++] = len;
}

/* Run the GET of URL against s into a temporary file: its result; the
 * file's bytes into out (at most size). */
static int run(struct script *s, unsigned long long max, char *out, size_t size, size_t *got_len,
	       struct http_got *got)
{
	struct http_io io = { .ctx = s, .send_all = s_send, .recv = s_recv, .now_ms = s_now };
	struct http_url u;
	char path[] = "/tmp/test_httpget.XXXXXX";
	int fd = mkstemp(path), r;
	struct http_get g = { .shown = URL, .out = fd, .max = max, .max_why = "free for it in /run (RAM)",
			      .stall_ms = 5000, .progress_ms = 1000 };
	ssize_t n;

	unlink(path);
	CHECK(http_url_parse(URL, &u) == 0);
	err_clear();
	r = http_get_run(&io, &u, &g, got);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, out, size);
	*got_len = n > 0 ? (size_t)n : 0;
	close(fd);
	return r;
}

static void test_body_in_pieces(void)
{
	struct script s = { .step_ms = 10 };
	struct http_got got;
	char out[64];
	size_t n;

	/* the head split inside its blank line, the body across three reads */
	add(&s, "HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r", 0);
	add(&s, "\nabc", 0);
	add(&s, "defg", 0);
	add(&s, "hij", 0);
	add(&s, NULL, 0);
	CHECK(run(&s, 1 << 20, out, sizeof(out), &n, &got) == 0);
	CHECK(n == 10 && !memcmp(out, "abcdefghij", 10));
	CHECK(got.bytes == 10 && got.status == 200 && !got.redirect);
	CHECK(!strncmp(s.sent, "GET /root.squashfs HTTP/1.1\r\nHost: 10.0.2.100:8080\r\n", 52));
}

static void test_binary_body(void)
{
	static const char body[] = { 0, 1, '\r', '\n', '\r', '\n', 0, (char)0xff };
	struct script s = { .step_ms = 1 };
	struct http_got got;
	char out[64];
	size_t n;

	add(&s, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n", 0);
	add(&s, body, sizeof(body));
	add(&s, NULL, 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == 0);
	CHECK(n == 8 && !memcmp(out, body, 8));
}

static void test_stall(void)
{
	struct script s = { .step_ms = 1 };
	struct http_got got;
	char out[64];
	size_t n;

	add(&s, "HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nabcd", 0);
	add(&s, SILENT, 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -ETIMEDOUT);
	CHECK_STR(err_msg(), URL ": the server sent nothing for 5 seconds (4 of 10 bytes received)");
	CHECK(s.timeouts_seen == 5000);
}

static void test_stall_in_head(void)
{
	struct script s = { .step_ms = 1 };
	struct http_got got;
	char out[8];
	size_t n;

	add(&s, "HTTP/1.0 200 OK\r\n", 0);
	add(&s, SILENT, 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -ETIMEDOUT);
	CHECK_STR(err_msg(), URL ": the server sent nothing for 5 seconds (0 of 0 bytes received)");
}

static void test_more_than_announced(void)
{
	struct script s = { .step_ms = 1 };
	struct http_got got;
	char out[64];
	size_t n;

	/* in the same read as the body's end */
	add(&s, "HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\nabcdEXTRA", 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -EINVAL);
	CHECK_STR(err_msg(), URL ": the server sent more than the 4 bytes it announced");
	CHECK(n == 0); /* nothing of it was written */

	/* in a read after the body was complete */
	memset(&s, 0, sizeof(s));
	add(&s, "HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\nab", 0);
	add(&s, "cd", 0);
	add(&s, "X", 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -EINVAL);
	CHECK_STR(err_msg(), URL ": the server sent more than the 4 bytes it announced");
}

static void test_kept_open_after_body(void)
{
	struct script s = { .step_ms = 1 };
	struct http_got got;
	char out[64];
	size_t n;

	/* a server that ignores "Connection: close": the body is all there */
	add(&s, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd", 0);
	add(&s, SILENT, 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == 0);
	CHECK(s.timeouts_seen == 2000); /* not the whole stall timeout */
}

static void test_short(void)
{
	struct script s = { .step_ms = 1 };
	struct http_got got;
	char out[64];
	size_t n;

	add(&s, "HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nabc", 0);
	add(&s, NULL, 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -EINVAL);
	CHECK_STR(err_msg(), URL ": the connection closed after 3 of the 10 bytes announced");

	memset(&s, 0, sizeof(s));
	add(&s, "HTTP/1.0 200", 0);
	add(&s, NULL, 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -EINVAL);
	CHECK_STR(err_msg(), URL ": the server closed the connection before its answer's head was "
		  "complete");
}

static void test_refusals(void)
{
	struct script s = { .step_ms = 1 };
	struct http_got got;
	char out[64];
	size_t n;

	add(&s, "HTTP/1.0 404 File not found\r\nContent-Length: 3\r\n\r\nno!", 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -EINVAL);
	CHECK_STR(err_msg(), URL ": the server answered 404 File not found");

	memset(&s, 0, sizeof(s));
	add(&s, "HTTP/1.0 200 OK\r\n\r\nabc", 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -EINVAL);
	CHECK_STR(err_msg(), URL ": the server gave no Content-Length: uniramfs needs the image's "
		  "size before it downloads it");

	memset(&s, 0, sizeof(s));
	add(&s, "HTTP/1.0 200 OK\r\nContent-Length: 101\r\n\r\nabc", 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -EINVAL);
	CHECK_STR(err_msg(), URL ": the image is 101 bytes, more than the 100 bytes free for it in "
		  "/run (RAM)");
	CHECK(n == 0);

	memset(&s, 0, sizeof(s));
	add(&s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -EINVAL);
	CHECK_STR(err_msg(), URL ": a transfer-encoded (chunked) body, which uniramfs does not "
		  "read: the server must send a Content-Length in the server's answer: "
		  "\"Transfer-Encoding: chunked\"");
}

static void test_redirect(void)
{
	struct script s = { .step_ms = 1 };
	struct http_got got;
	char out[64];
	size_t n;

	add(&s, "HTTP/1.0 301 Moved\r\nLocation: http://10.0.2.100:8081/x.img\r\n\r\nignored", 0);
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == 0);
	CHECK(got.redirect && got.status == 301 && n == 0);
	CHECK_STR(got.location, "http://10.0.2.100:8081/x.img");
}

static void test_head_too_long(void)
{
	static char junk[70000];
	struct script s = { .step_ms = 1 };
	struct http_got got;
	char out[8];
	size_t n;

	memset(junk, 'a', sizeof(junk));
	add(&s, "HTTP/1.0 200 OK\r\nX: ", 0);
	add(&s, junk, sizeof(junk));
	CHECK(run(&s, 100, out, sizeof(out), &n, &got) == -EINVAL);
	CHECK_STR(err_msg(), URL ": the server's answer has no end of its head within 16384 bytes");
}

static void test_progress(void)
{
	static char body[8][1000];
	struct script s = { .step_ms = 400 };
	struct http_got got;
	char out[16];
	size_t n;

	add(&s, "HTTP/1.0 200 OK\r\nContent-Length: 8000\r\n\r\n", 0);
	for (int i = 0; i < 8; i++)
		add(&s, body[i], sizeof(body[i]));
	add(&s, NULL, 0);
	msgs_capture(LOG_INFO);
	CHECK(run(&s, 1 << 20, out, sizeof(out), &n, &got) == 0);
	CHECK(got.bytes == 8000);
	/* 10 reads 400 ms apart (the last sees the end): a line at most each second */
	CHECK(count_said("<6>" URL ": 8000 bytes (0.0 MiB)") == 1);
	CHECK(said("<6>" URL ": 0.0 of 0.0 MiB (25%)"));
	CHECK(said("<6>" URL ": 0.0 of 0.0 MiB (62%)"));
	CHECK(said("<6>" URL ": 0.0 of 0.0 MiB (100%)") == false);
	CHECK(said("<6>" URL ": 8000 bytes in 4.0 s"));
	msgs_clear();
}

int main(void)
{
	log_init("test", LOG_ERR);
	RUN(test_body_in_pieces);
	RUN(test_binary_body);
	RUN(test_stall);
	RUN(test_stall_in_head);
	RUN(test_more_than_announced);
	RUN(test_kept_open_after_body);
	RUN(test_short);
	RUN(test_refusals);
	RUN(test_redirect);
	RUN(test_head_too_long);
	RUN(test_progress);
	return test_done();
}
