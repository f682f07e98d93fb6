// SPDX-License-Identifier: GPL-2.0-or-later
/* A live root's URL, its GET, and the head of the server's answer: what
 * is taken, and each hostile or unusable form refused with a message
 * that names the offending text. */
#include <errno.h>

#include "test.h"
#include "err.h"
#include "init/net/http_msg.h"

static void test_url_forms(void)
{
	struct http_url u;

	CHECK(http_url_parse("http://10.0.2.2:8080/root.squashfs", &u) == 0);
	CHECK(!u.tls && u.port == 8080 && u.port_given);
	CHECK_STR(u.host, "10.0.2.2");
	CHECK_STR(u.path, "/root.squashfs");
	CHECK(http_url_parse("https://images.example.org/live/x.img?v=2", &u) == 0);
	CHECK(u.tls && u.port == 443 && !u.port_given);
	CHECK_STR(u.host, "images.example.org");
	CHECK_STR(u.path, "/live/x.img?v=2");
	CHECK(http_url_parse("http://[fd00::1]:81/a", &u) == 0);
	CHECK_STR(u.host, "fd00::1");
	CHECK(u.port == 81);
	CHECK(http_url_parse("HTTP://h/", &u) == 0);
}

static void refused(const char *url, const char *msg)
{
	struct http_url u;

	err_clear();
	CHECK(http_url_parse(url, &u) == -EINVAL);
	CHECK_STR(err_msg(), msg);
}

static void test_url_refused(void)
{
	refused("ftp://h/x", "ftp://h/x: not an http:// or https:// URL");
	refused("http://user:pw@h/x", "http://user:pw@h/x: user names and passwords in the URL are "
		"not supported");
	refused("http://h", "http://h: no path to the image after the host");
	refused("http:///x", "http:///x: no host name");
	refused("http://h:0/x", "http://h:0/x: the port is not a number from 1 to 65535");
	refused("http://h:65536/x", "http://h:65536/x: the port is not a number from 1 to 65535");
	refused("http://h:/x", "http://h:/x: the port is not a number from 1 to 65535");
	refused("http://h_x/x", "http://h_x/x: a byte that is not allowed in a host name");
	refused("http://h/a b", "http://h/a b: a space or control byte in the path (write it as %XX)");
	refused("http://h/a\r\nX: y", "http://h/a\\x0d\\x0aX: y: a space or control byte in the path "
		"(write it as %XX)");
	refused("http://h/x#frag", "http://h/x#frag: a fragment (#) has no place in an image's URL");
	refused("http://[fd00::1/x", "http://[fd00::1/x: an IPv6 address without its closing ']'");
	refused("http://[zz]/x", "http://[zz]/x: not an IPv6 address between the brackets");
}

static void test_request(void)
{
	struct http_url u;
	char buf[512];
	int n;

	CHECK(http_url_parse("http://10.0.2.2:8080/root.squashfs", &u) == 0);
	n = http_request(&u, buf, sizeof(buf));
	CHECK(n > 0);
	CHECK_STR(buf, "GET /root.squashfs HTTP/1.1\r\nHost: 10.0.2.2:8080\r\nUser-Agent: uniramfs\r\n"
		  "Accept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n");
	CHECK(http_url_parse("http://[fd00::1]/x", &u) == 0);
	CHECK(http_request(&u, buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, "\r\nHost: [fd00::1]\r\n") != NULL);
	CHECK(http_request(&u, buf, 20) == -ENOSPC);
}

static int head(const char *text, struct http_head *h)
{
	err_clear();
	return http_head_parse(text, strlen(text), h);
}

static void test_head_good(void)
{
	struct http_head h;
	const char *t = "HTTP/1.0 200 OK\r\nServer: x\r\nContent-Length:  344064 \r\n\r\nBODY";

	CHECK(head(t, &h) == (int)(strstr(t, "BODY") - t));
	CHECK(h.status == 200 && h.has_length && h.length == 344064);
	CHECK_STR(h.reason, "OK");
	CHECK(head("HTTP/1.1 302 Found\r\nLocation: /images/root.squashfs\r\nContent-Length: 0\r\n"
		   "\r\n", &h) > 0);
	CHECK(h.status == 302 && h.has_location && http_is_redirect(h.status));
	CHECK_STR(h.location, "/images/root.squashfs");
	/* the same length twice is the same length */
	CHECK(head("HTTP/1.1 200 OK\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\n", &h) > 0);
	CHECK(head("HTTP/1.1 204\r\n\r\n", &h) > 0 && h.status == 204 && !h.has_length);
	CHECK(head("HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\n\r\n", &h) > 0);
}

static void test_head_incomplete(void)
{
	struct http_head h;
	char big[HTTP_HEAD_MAX + 10];

	CHECK(head("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", &h) == 0);
	CHECK(head("", &h) == 0);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(head(big, &h) == -EINVAL);
	CHECK_STR(err_msg(), "the server's answer has no end of its head within 16384 bytes");
}

static void head_refused(const char *text, const char *msg)
{
	struct http_head h;

	CHECK(head(text, &h) == -EINVAL);
	CHECK_STR(err_msg(), msg);
}

static void test_head_refused(void)
{
	head_refused("ICY 200 OK\r\n\r\n", "not an HTTP/1.0 or 1.1 status line in the server's "
		     "answer: \"ICY 200 OK\"");
	head_refused("HTTP/1.1 2x0 OK\r\n\r\n", "no three-digit status in the server's answer: "
		     "\"HTTP/1.1 2x0 OK\"");
	head_refused("HTTP/1.1 2000 OK\r\n\r\n", "no three-digit status in the server's answer: "
		     "\"HTTP/1.1 2000 OK\"");
	head_refused("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		     "a transfer-encoded (chunked) body, which uniramfs does not read: the server "
		     "must send a Content-Length in the server's answer: \"Transfer-Encoding: chunked\"");
	head_refused("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n",
		     "a compressed body (the image must come as it is) in the server's answer: "
		     "\"Content-Encoding: gzip\"");
	head_refused("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
		     "a second, different Content-Length in the server's answer: \"Content-Length: 6\"");
	head_refused("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		     "a Content-Length that is not a number in the server's answer: "
		     "\"Content-Length: -1\"");
	head_refused("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n",
		     "a Content-Length that is not a number in the server's answer: "
		     "\"Content-Length: 5, 5\"");
	head_refused("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
		     "a Content-Length that is not a number in the server's answer: "
		     "\"Content-Length: 99999999999999999999\"");
	head_refused("HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n",
		     "a Content-Length that is not a number in the server's answer: "
		     "\"Content-Length: \"");
	head_refused("HTTP/1.1 200 OK\r\n X-Folded: y\r\n\r\n",
		     "a folded header line in the server's answer: \" X-Folded: y\"");
	head_refused("HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
		     "a header line that is not \"Name: value\" in the server's answer: "
		     "\"No colon here\"");
	head_refused("HTTP/1.1 200 OK\r\nX: a\nContent-Length: 1\r\n\r\n",
		     "a bare LF in the server's answer: \"X: a\\x0aContent-Length: 1\"");
	head_refused("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n",
		     "a bare CR or LF in the server's answer: \"X: a\\x0db\\x0d\\x0a\"");
	head_refused("HTTP/1.1 200 OK\r\nX: \x1b[2J\r\n\r\n",
		     "a control byte in a header in the server's answer: \"X: \\x1b[2J\"");
	{
		static const char nul[] = "HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n";
		struct http_head h;
		err_clear();
		CHECK(http_head_parse(nul, sizeof(nul) - 1, &h) == -EINVAL);
		CHECK_STR(err_msg(), "a NUL byte in the server's answer: "
			  "\"HTTP/1.1 200 OK\\x0d\\x0aX: a\\x00b\\x0d\\x0a\"");
	}
}

static void test_show(void)
{
	char out[16];

	http_show("abcdefghijklmnopqrstuvwxyz", 26, out, sizeof(out));
	CHECK_STR(out, "abcdefgh...");
	http_show("a\x01", 2, out, sizeof(out));
	CHECK_STR(out, "a\\x01");
}

int main(void)
{
	RUN(test_url_forms);
	RUN(test_url_refused);
	RUN(test_request);
	RUN(test_head_good);
	RUN(test_head_incomplete);
	RUN(test_head_refused);
	RUN(test_show);
	return test_done();
}
