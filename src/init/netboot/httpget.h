/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_HTTPGET_H
#define UNIRAMFS_INIT_NETBOOT_HTTPGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "init/net/http_msg.h"

/* One HTTP GET streamed into a file: the transfer of a live root's image
 * (stages/httproot.c runs it in a child the loop waits on). The
 * connection comes through http_io, so a unit test can play a server
 * that stalls, lies or overflows without a socket; the real one is
 * httpsock.c's. */
struct http_io {
	void *ctx;
	/* Send all of buf: 0 or -errno. */
	int (*send_all)(void *ctx, const void *buf, size_t len);
	/* Bytes read (> 0), 0 at the end of the connection, -ETIMEDOUT when
	 * nothing came for timeout_ms, or -errno. */
	ssize_t (*recv)(void *ctx, void *buf, size_t len, long timeout_ms);
	/* CLOCK_MONOTONIC in ms: when to print the next progress line. */
	long long (*now_ms)(void *ctx);
};

struct http_get {
	const char *shown;        /* the URL as messages name it */
	int out;                  /* the file the body goes to (written from its offset) */
	unsigned long long max;   /* the most the body may be */
	const char *max_why;      /* what max is: "free in /run" */
	long stall_ms;            /* the longest silence of the server */
	long progress_ms;         /* at most one progress line per this many ms */
};

struct http_got {
	unsigned long long bytes; /* written to out */
	int status;
	bool redirect;            /* status 3xx: location says where */
	char location[sizeof(((struct http_head *)0)->location)];
};

/* Send u's GET over io and read the answer: a 200 with a Content-Length
 * within g->max has its body written to g->out; a redirect fills
 * got->location and writes nothing. 0, or a negative code (err set,
 * naming g->shown): a status other than 200 or a redirect, a malformed
 * or refused head (http_msg.h), a body larger than g->max, a server
 * silent for g->stall_ms, a connection that ends early, more bytes than
 * announced, a failed write. */
int http_get_run(const struct http_io *io, const struct http_url *u, const struct http_get *g,
		 struct http_got *got);

#endif
