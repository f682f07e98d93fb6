/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_HTTP_MSG_H
#define UNIRAMFS_NET_HTTP_MSG_H

#include <stdbool.h>
#include <stddef.h>

/* The HTTP/1.1 a live root's download speaks (root=live:http://…): its
 * URL, the one GET request, and the head of the server's answer. Pure:
 * text in, structs out; every refusal is recorded with err_set and names
 * the offending text (shown with its control bytes escaped). */

#define HTTP_HOST_MAX 256
#define HTTP_PATH_MAX 2048
/* A head longer than this is refused: no image server needs more. */
#define HTTP_HEAD_MAX 16384

struct http_url {
	bool tls;                 /* https:// */
	char host[HTTP_HOST_MAX]; /* a name, an IPv4 address or an IPv6 one without brackets */
	unsigned port;            /* 80 or 443 unless given */
	bool port_given;
	char path[HTTP_PATH_MAX]; /* from the first '/', with its query */
};

/* http://HOST[:PORT]/PATH or https://…: 0, or -EINVAL (err set) for
 * another scheme, user info, a fragment, a bad host or port, a missing
 * path, or a byte a request line cannot carry. */
int http_url_parse(const char *text, struct http_url *u);

/* The GET of u into buf (no NUL counted): its length, or -ENOSPC. */
int http_request(const struct http_url *u, char *buf, size_t size);

struct http_head {
	int status;               /* 100-999 */
	char reason[64];          /* shown form (control bytes escaped, cut) */
	bool has_length;
	unsigned long long length;
	bool has_location;
	char location[HTTP_PATH_MAX + HTTP_HOST_MAX + 16];
};

/* The answer's head at the start of buf (len bytes read so far): the
 * head's length with its blank line (the body starts there), 0 when the
 * head is not complete yet (read more), -EINVAL (err set) when it is
 * malformed, longer than HTTP_HEAD_MAX, or asks for what we refuse: a
 * chunked or otherwise transfer-encoded body, a compressed one, two
 * different Content-Lengths. */
int http_head_parse(const char *buf, size_t len, struct http_head *h);

/* A redirect status whose Location we may follow (301, 302, 303, 307, 308). */
bool http_is_redirect(int status);

/* text shown for a message: at most max-1 bytes of it, control and
 * non-ASCII bytes as \xNN, "..." when cut. */
void http_show(const char *text, size_t len, char *out, size_t max);

#endif
