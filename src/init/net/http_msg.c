// SPDX-License-Identifier: GPL-2.0-or-later
/* The HTTP/1.1 of a live root's download (http_msg.h). Strict where a
 * lax reading could make the image wrong: the body's length must be said
 * once, in digits, and nothing may transform the body on the way
 * (Transfer-Encoding, Content-Encoding): what is written to the file is
 * exactly the bytes the server announced, or the download fails. */
#include "init/net/http_msg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "err.h"

void http_show(const char *text, size_t len, char *out, size_t max)
{
	size_t o = 0, i;

	if (!max)
		return;
	for (i = 0; i < len && o + 8 < max; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c < 0x20 || c >= 0x7f || c == '\\')
			o += (size_t)snprintf(out + o, max - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	if (i < len && o + 4 <= max)
		o += (size_t)snprintf(out + o, max - o, "...");
	out[o < max ? o : max - 1] = '\0';
}

static int refuse_url(const char *text, const char *why)
{
	char shown[128];

	http_show(text, strlen(text), shown, sizeof(shown));
	return err_set("%s: %s", shown, why);
}

static bool host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.';
}

/* Bytes a request line may carry unescaped: visible ASCII. */
static bool path_char(char c)
{
	return c > 0x20 && c < 0x7f;
}

int http_url_parse(const char *text, struct http_url *u)
{
	const char *p, *host, *end;
	size_t hl;

	memset(u, 0, sizeof(*u));
	if (!strncasecmp(text, "http://", 7)) {
		p = text + 7;
		u->port = 80;
	} else if (!strncasecmp(text, "https://", 8)) {
		p = text + 8;
		u->port = 443;
		u->tls = true;
	} else {
		return refuse_url(text, "not an http:// or https:// URL");
	}
	end = p + strcspn(p, "/?#");
	if (memchr(p, '@', (size_t)(end - p)))
		return refuse_url(text, "user names and passwords in the URL are not supported");
	if (*p == '[') {
		host = p + 1;
		hl = strcspn(host, "]");
		if (host[hl] != ']' || host + hl > end)
			return refuse_url(text, "an IPv6 address without its closing ']'");
		for (size_t i = 0; i < hl; i++)
			if (!strchr("0123456789abcdefABCDEF:.", host[i]))
				return refuse_url(text, "not an IPv6 address between the brackets");
		p = host + hl + 1;
	} else {
		host = p;
		hl = 0;
		while (host_char(host[hl]))
			hl++;
		p = host + hl;
	}
	if (!hl)
		return refuse_url(text, "no host name");
	if (hl >= sizeof(u->host))
		return refuse_url(text, "the host name is too long");
	memcpy(u->host, host, hl);
	if (*p == ':') {
		unsigned long port = 0;
		size_t n = 0;
		for (p++; *p >= '0' && *p <= '9' && n < 6; p++, n++)
			port = port * 10 + (unsigned long)(*p - '0');
		if (!n || port == 0 || port > 65535)
			return refuse_url(text, "the port is not a number from 1 to 65535");
		u->port = (unsigned)port;
		u->port_given = true;
	}
	if (*p != '/')
		return refuse_url(text, *p == '\0' || *p == '?' || *p == '#' ?
				  "no path to the image after the host" :
				  "a byte that is not allowed in a host name");
	if (strchr(p, '#'))
		return refuse_url(text, "a fragment (#) has no place in an image's URL");
	for (const char *c = p; *c; c++)
		if (!path_char(*c))
			return refuse_url(text, "a space or control byte in the path (write it as %XX)");
	if (strlen(p) >= sizeof(u->path))
		return refuse_url(text, "the path is too long");
	strcpy(u->path, p);
	return 0;
}

int http_request(const struct http_url *u, char *buf, size_t size)
{
	bool v6 = strchr(u->host, ':') != NULL;
	char port[16] = "";
	int n;

	if (u->port_given)
		snprintf(port, sizeof(port), ":%u", u->port);
	/* identity: the bytes on the wire are the image's; close: the end
	 * of the connection after the body is how extra bytes are seen */
	n = snprintf(buf, size,
		     "GET %s HTTP/1.1\r\nHost: %s%s%s%s\r\nUser-Agent: uniramfs\r\n"
		     "Accept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n",
		     u->path, v6 ? "[" : "", u->host, v6 ? "]" : "", port);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}

bool http_is_redirect(int status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

static int refuse_line(const char *line, size_t len, const char *why)
{
	char shown[96];

	http_show(line, len, shown, sizeof(shown));
	return err_set("%s in the server's answer: \"%s\"", why, shown);
}

static bool token_char(char c)
{
	return c > 0x20 && c < 0x7f && !strchr("()<>@,;:\\\"/[]?={}", c);
}

static bool name_is(const char *name, size_t nl, const char *want)
{
	return strlen(want) == nl && !strncasecmp(name, want, nl);
}

static int parse_status(const char *line, size_t len, struct http_head *h)
{
	const char *s = line + 9;

	if (len < 12 || (strncmp(line, "HTTP/1.1 ", 9) && strncmp(line, "HTTP/1.0 ", 9)))
		return refuse_line(line, len, "not an HTTP/1.0 or 1.1 status line");
	for (int i = 0; i < 3; i++)
		if (s[i] < '0' || s[i] > '9')
			return refuse_line(line, len, "no three-digit status");
	if (len > 12 && s[3] != ' ')
		return refuse_line(line, len, "no three-digit status");
	h->status = (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
	if (h->status < 100)
		return refuse_line(line, len, "no three-digit status");
	if (len > 13)
		http_show(s + 4, len - 13, h->reason, sizeof(h->reason));
	return 0;
}

static int parse_length(const char *line, size_t len, const char *v, size_t vl,
			struct http_head *h)
{
	unsigned long long n = 0;

	if (!vl || vl > 19)
		return refuse_line(line, len, "a Content-Length that is not a number");
	for (size_t i = 0; i < vl; i++) {
		if (v[i] < '0' || v[i] > '9')
			return refuse_line(line, len, "a Content-Length that is not a number");
		n = n * 10 + (unsigned long long)(v[i] - '0');
	}
	if (h->has_length && h->length != n)
		return refuse_line(line, len, "a second, different Content-Length");
	h->has_length = true;
	h->length = n;
	return 0;
}

/* One "Name: value" line (no CRLF). */
static int parse_field(const char *line, size_t len, struct http_head *h)
{
	size_t nl = 0, vs, ve;

	while (nl < len && token_char(line[nl]))
		nl++;
	if (!nl || nl == len || line[nl] != ':') {
		if (len && (line[0] == ' ' || line[0] == '\t'))
			return refuse_line(line, len, "a folded header line");
		return refuse_line(line, len, "a header line that is not \"Name: value\"");
	}
	for (vs = nl + 1; vs < len && (line[vs] == ' ' || line[vs] == '\t'); vs++)
		;
	for (ve = len; ve > vs && (line[ve - 1] == ' ' || line[ve - 1] == '\t'); ve--)
		;
	for (size_t i = vs; i < ve; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			return refuse_line(line, len, "a control byte in a header");
	if (name_is(line, nl, "Content-Length"))
		return parse_length(line, len, line + vs, ve - vs, h);
	if (name_is(line, nl, "Transfer-Encoding"))
		return refuse_line(line, len, "a transfer-encoded (chunked) body, which uniramfs "
				   "does not read: the server must send a Content-Length");
	if (name_is(line, nl, "Content-Encoding") &&
	    !(ve - vs == 8 && !strncasecmp(line + vs, "identity", 8)))
		return refuse_line(line, len, "a compressed body (the image must come as it is)");
	if (name_is(line, nl, "Location")) {
		if (ve - vs >= sizeof(h->location))
			return refuse_line(line, len, "a Location too long");
		memcpy(h->location, line + vs, ve - vs);
		h->location[ve - vs] = '\0';
		h->has_location = true;
	}
	return 0;
}

int http_head_parse(const char *buf, size_t len, struct http_head *h)
{
	const char *end = NULL, *line, *nl;
	size_t scan = len < HTTP_HEAD_MAX ? len : HTTP_HEAD_MAX;
	int r;

	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i + 3 < scan; i++)
		if (!memcmp(buf + i, "\r\n\r\n", 4)) {
			end = buf + i + 2; /* the last line's CRLF included */
			break;
		}
	if (!end) {
		if (memchr(buf, '\0', scan))
			return refuse_line(buf, scan, "a NUL byte");
		if (len >= HTTP_HEAD_MAX)
			return err_set("the server's answer has no end of its head within %d bytes",
				       HTTP_HEAD_MAX);
		return 0;
	}
	if (memchr(buf, '\0', (size_t)(end - buf)))
		return refuse_line(buf, (size_t)(end - buf), "a NUL byte");
	for (line = buf; line < end; line = nl + 2) {
		nl = memchr(line, '\r', (size_t)(end - line));
		if (!nl || nl[1] != '\n')
			return refuse_line(line, (size_t)(end - line), "a bare CR or LF");
		if (memchr(line, '\n', (size_t)(nl - line)))
			return refuse_line(line, (size_t)(nl - line), "a bare LF");
		r = line == buf ? parse_status(line, (size_t)(nl - line), h) :
				  parse_field(line, (size_t)(nl - line), h);
		if (r < 0)
			return r;
	}
	return (int)(end - buf) + 2;
}
