// SPDX-License-Identifier: GPL-2.0-or-later
/* root=live:http://… through the whole boot against fake_ops, the
 * download in place (the fake initops start no child) from a server
 * forked on 127.0.0.1: the room rd.live.maxsize= leaves, refused words
 * named, an unchecked image said so and its file gone after a failure. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_dns.h"
#include "fake_net.h"
#include "init/init.h"
#include "test.h"

static pid_t server;

/* A server on 127.0.0.1 that answers each connection with answer: its port. */
static unsigned serve(const char *answer)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 4) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &al) < 0)
		return 0;
	server = fork();
	if (server == 0) {
		for (;;) {
			char req[2048];
			int c = accept(s, NULL, NULL);
			if (c < 0)
				_exit(0);
			if (read(c, req, sizeof(req)) > 0 && write(c, answer, strlen(answer)) < 0)
				_exit(1);
			close(c);
		}
	}
	close(s);
	return ntohs(a.sin_port);
}

static void stop(void)
{
	if (server > 0) {
		kill(server, SIGKILL);
		waitpid(server, NULL, 0);
	}
	server = 0;
}

/* Boot cmdline (with %u the server's port) to its failure. */
static struct fake_ops *boot(const char *cmdline, unsigned port, struct init *in)
{
	char line[512];
	struct fake_ops *f;

	snprintf(line, sizeof(line), cmdline, port);
	f = fake_dns_setup(line, 1);
	CHECK(fake_net_run(f, in) < 0);
	return f;
}

static void test_maxsize(void)
{
	struct fake_ops *f;
	struct init in;
	unsigned port;
	char want[256];

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	port = serve("HTTP/1.0 200 OK\r\nContent-Length: 5000\r\n\r\nhsqs");
	if (!port)
		SKIP("no TCP on 127.0.0.1");
	f = boot("root=live:http://127.0.0.1:%u/root.img rd.timeout=3 rd.shell=0 panic=1 "
		 "rd.live.maxsize=1K", port, &in);
	stop();
	snprintf(want, sizeof(want), "<3>http://127.0.0.1:%u/root.img: the image is 5000 bytes, more "
		 "than the 1024 bytes rd.live.maxsize=1K allows\n", port);
	CHECK(fake_boot_logged(want));
	CHECK(!fake_boot_read(f, "/run/initramfs/livenet.img"));
	init_free(&in);
	fake_ops_free(f);
}

static void test_refused_words(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = boot("root=live:http://127.0.0.1:%u/root.img rd.timeout=3 rd.shell=0 panic=1 "
		 "rd.live.maxsize=12X", 9, &in);
	CHECK(fake_boot_logged("<3>rd.live.maxsize=12X: not a size (a number of bytes, or with K, M "
			       "or G)\n"));
	init_free(&in);
	fake_ops_free(f);
	f = boot("root=http://127.0.0.1:%u/root.img rd.timeout=3 rd.shell=0 panic=1 "
		 "rd.live.sha256=abc", 9, &in);
	CHECK(fake_boot_logged("<3>rd.live.sha256=abc: not a SHA-256 (64 hexadecimal digits)\n"));
	init_free(&in);
	fake_ops_free(f);
}

/* Downloaded, unchecked (said so), then not an image: the file is gone. */
static void test_unchecked(void)
{
	struct fake_ops *f;
	struct init in;
	unsigned port;
	char want[256];

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	port = serve("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello");
	if (!port)
		SKIP("no TCP on 127.0.0.1");
	f = boot("root=live:http://127.0.0.1:%u/x.img rd.timeout=3 rd.shell=0 panic=1", port, &in);
	stop();
	snprintf(want, sizeof(want), "<4>http://127.0.0.1:%u/x.img: no rd.live.sha256= on the command "
		 "line: nothing checked the image\n", port);
	CHECK(fake_boot_logged(want));
	snprintf(want, sizeof(want), "<6>http://127.0.0.1:%u/x.img: 5 bytes (0.0 MiB)\n", port);
	CHECK(fake_boot_logged(want));
	CHECK(fake_log_find(f, "unlink /run/initramfs/livenet.img") >= 0);
	CHECK(!fake_boot_read(f, "/run/initramfs/livenet.img"));
	init_free(&in);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_maxsize);
	RUN(test_refused_words);
	RUN(test_unchecked);
	fake_boot_remove_ext4();
	return test_done();
}
