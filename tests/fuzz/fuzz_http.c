// SPDX-License-Identifier: GPL-2.0-or-later
/* A live root's download against a hostile web server: the first byte
 * picks how the answer is cut into reads (and whether the server falls
 * silent after it), the rest up to the first newline is the URL of
 * root=live:…, and what follows is the server's answer. Rules: a URL
 * taken makes a request with no control byte and nothing after its
 * blank line; a head parsed has a status of three digits; a download
 * that succeeds wrote to the file exactly the Content-Length announced,
 * which is within the room given, and never more. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "init/net/http_msg.h"
#include "init/netboot/httpget.h"
#include "log.h"

#define ROOM 4096

struct server {
	const uint8_t *p;
	size_t n, at, piece;
	bool silent_at_end;
	long long clock;
};

static int f_send(void *ctx, const void *buf, size_t len)
{
	(void)ctx, (void)buf, (void)len;
	return 0;
}

static ssize_t f_recv(void *ctx, void *buf, size_t len, long timeout_ms)
{
	struct server *s = ctx;
	size_t n = s->n - s->at;

	s->clock += 7;
	if (!n) {
		s->clock += timeout_ms;
		return s->silent_at_end ? -ETIMEDOUT : 0;
	}
	if (n > s->piece)
		n = s->piece;
	if (n > len)
		n = len;
	memcpy(buf, s->p + s->at, n);
	s->at += n;
	return (ssize_t)n;
}

static long long f_now(void *ctx)
{
	return ((struct server *)ctx)->clock;
}

static void sink(int level, const char *msg, void *u)
{
	(void)level, (void)msg, (void)u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int out = -1;
	struct http_url u;
	struct http_head h;
	struct http_got got;
	struct server s = { 0 };
	char url[512], req[HTTP_PATH_MAX + HTTP_HOST_MAX + 256];
	const uint8_t *nl;
	size_t ul;
	struct stat st;
	int r, hl;

	if (size < 1)
		return 0;
	if (out < 0) {
		log_set_sink(sink, NULL);
		out = memfd_create("fuzz_http", 0);
		if (out < 0)
			abort();
	}
	s.piece = (size_t)(data[0] & 0x7f) * 37 + 1;
	s.silent_at_end = data[0] & 0x80;
	data++, size--;
	nl = memchr(data, '\n', size < sizeof(url) ? size : sizeof(url) - 1);
	ul = nl ? (size_t)(nl - data) : 0;
	memcpy(url, data, ul);
	url[ul] = '\0';
	if (nl) {
		data += ul + 1;
		size -= ul + 1;
	}
	if (!nl || strlen(url) != ul || http_url_parse(url, &u) < 0)
		http_url_parse("http://10.0.2.100:8080/root.squashfs", &u);
	r = http_request(&u, req, sizeof(req));
	if (r < 0)
		__builtin_trap();
	for (int i = 0; i < r; i++)
		if (((unsigned char)req[i] < 0x20 && req[i] != '\r' && req[i] != '\n') ||
		    (unsigned char)req[i] >= 0x7f)
			__builtin_trap();
	if (r < 4 || memcmp(req + r - 4, "\r\n\r\n", 4) || strstr(req, "\r\n\r\n") != req + r - 4)
		__builtin_trap();

	hl = http_head_parse((const char *)data, size, &h);
	if (hl > 0 && (h.status < 100 || h.status > 999 || (size_t)hl > size))
		__builtin_trap();

	if (ftruncate(out, 0) < 0 || lseek(out, 0, SEEK_SET) < 0)
		abort();
	s.p = data;
	s.n = size;
	{
		struct http_io io = { .ctx = &s, .send_all = f_send, .recv = f_recv, .now_ms = f_now };
		struct http_get g = { .shown = "URL", .out = out, .max = ROOM, .max_why = "room",
				      .stall_ms = 5000, .progress_ms = 1000 };
		r = http_get_run(&io, &u, &g, &got);
	}
	if (fstat(out, &st) < 0)
		abort();
	if ((unsigned long long)st.st_size > ROOM || (unsigned long long)st.st_size != got.bytes)
		__builtin_trap();
	if (r == 0 && !got.redirect) {
		/* the head the client read is the one parsed from the same bytes */
		if (hl <= 0 || !h.has_length || h.length != got.bytes || h.status != 200)
			__builtin_trap();
		if ((size_t)hl + h.length > size)
			__builtin_trap();
	}
	return 0;
}
