// SPDX-License-Identifier: GPL-2.0-or-later
/* The plugins' request channel (src/init/stack/plugin_ask.c,
 * plugin_askrun.c): a program's requests are hostile lines; a good
 * "ask-secret" is answered with what the init's prompt read, a bad one
 * with "error WHY" and the channel's end; and a real child finds its
 * end of the channel as fd 3. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "fake_ops.h"
#include "init/stack/plugin_ask.h"
#include "init/stack/stack.h"
#include "init/stack/stack_env.h"
#include "layout.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

static void test_parse_good(void)
{
	struct plugin_ask_req r;
	const char *l = "ask-secret Passphrase for ZFS rpool/ROOT: ";

	CHECK(plugin_ask_parse(l, strlen(l), &r) == 0);
	CHECK(r.verb == PLUGIN_ASK_SECRET);
	CHECK_STR(r.text, "Passphrase for ZFS rpool/ROOT: ");
	CHECK(plugin_ask_parse("tell unlocked", 13, &r) == 0);
	CHECK(r.verb == PLUGIN_ASK_TELL);
	CHECK_STR(r.text, "unlocked");
	/* UTF-8 is text */
	CHECK(plugin_ask_parse("tell d\xc3\xa9j\xc3\xa0", 11, &r) == 0);
}

static void test_parse_bad(void)
{
	struct plugin_ask_req r;
	char big[PLUGIN_ASK_TEXT_MAX + 20];

	CHECK(plugin_ask_parse("rm -rf /", 8, &r) == -EINVAL);
	CHECK_STR(err_msg(), "unknown request 'rm' (ask-secret or tell)");
	CHECK(plugin_ask_parse("ask-secret", 10, &r) == -EINVAL);
	CHECK_STR(err_msg(), "unknown request 'ask-secret' (ask-secret or tell)");
	CHECK(plugin_ask_parse("ask-secret ", 11, &r) == -EINVAL);
	CHECK_STR(err_msg(), "an empty text");
	CHECK(plugin_ask_parse("ask-secret a\x1b[2Jb", 17, &r) == -EINVAL);
	CHECK_STR(err_msg(), "a control character in the text");
	CHECK(plugin_ask_parse("tell a\0b", 8, &r) == -EINVAL);
	CHECK_STR(err_msg(), "a control character in the text");
	memcpy(big, "tell ", 5);
	memset(big + 5, 'x', sizeof(big) - 5);
	CHECK(plugin_ask_parse(big, sizeof(big), &r) == -EINVAL);
	CHECK_STR(err_msg(), "a text longer than 200 bytes");
	/* a verb that only begins like one */
	CHECK(plugin_ask_parse("tellx y", 7, &r) == -EINVAL);
}

static char asked[256];

static ssize_t x_read_secret(const char *prompt, char *buf, size_t size, struct loop *loop,
			     struct askpass *remote)
{
	(void)loop;
	(void)remote;
	snprintf(asked, sizeof(asked), "%s", prompt);
	snprintf(buf, size, "s3cret pass");
	return (ssize_t)strlen(buf);
}

static const struct initops xops = { .read_secret = x_read_secret };

/* What the program's end reads: one line. */
static void answer_is(int fd, const char *want)
{
	char got[512];
	ssize_t n = read(fd, got, sizeof(got) - 1);

	got[n > 0 ? n : 0] = '\0';
	CHECK_STR(got, want);
}

static void put(int fd, const char *s)
{
	CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
}

static void test_serve(void)
{
	struct fake_ops *f = fake_ops_new();
	struct stack_world w;
	struct plugin_ask a = { .plugin = "zfs" };
	int sv[2];

	msgs_capture(LOG_INFO);
	stack_world_init(&w, f, &xops, "");
	a.env = &w.env;
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	/* a request in two pieces: nothing until its end */
	put(sv[1], "ask-secret Pass");
	CHECK(plugin_ask_serve(&a, sv[0]) == 0);
	put(sv[1], "phrase: \n");
	CHECK(plugin_ask_serve(&a, sv[0]) == 0);
	CHECK_STR(asked, "Passphrase: ");
	answer_is(sv[1], "secret s3cret pass\n");
	CHECK(said("plugin zfs asks for a secret"));
	put(sv[1], "tell unlocked\n");
	CHECK(plugin_ask_serve(&a, sv[0]) == 0);
	answer_is(sv[1], "ok\n");
	/* nothing there yet: go on */
	CHECK(plugin_ask_serve(&a, sv[0]) == 0);
	put(sv[1], "give-me root\n");
	CHECK(plugin_ask_serve(&a, sv[0]) == -EINVAL);
	answer_is(sv[1], "error unknown request 'give-me' (ask-secret or tell)\n");
	CHECK(said("plugin zfs: bad request on its channel: unknown request 'give-me' "
		   "(ask-secret or tell)"));
	close(sv[0]);
	close(sv[1]);
	stack_world_finish(f, &w, test_cur_failed);
}

static void test_serve_long_and_end(void)
{
	struct fake_ops *f = fake_ops_new();
	struct stack_world w;
	struct plugin_ask a = { .plugin = "zfs" };
	char big[PLUGIN_ASK_LINE_MAX + 10];
	int sv[2];

	msgs_capture(LOG_INFO);
	stack_world_init(&w, f, &xops, "");
	a.env = &w.env;
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(sv[1], big);
	int r = 0;
	while (r == 0)
		r = plugin_ask_serve(&a, sv[0]);
	CHECK(r == -E2BIG);
	answer_is(sv[1], "error request too long\n");
	CHECK(said("plugin zfs: a request longer than 216 bytes on its channel"));
	close(sv[0]);
	/* the program's end closed: the channel is done */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	close(sv[1]);
	a.n = 0;
	CHECK(plugin_ask_serve(&a, sv[0]) == -EPIPE);
	close(sv[0]);
	stack_world_finish(f, &w, test_cur_failed);
}

static int answers;

static int serve_yes(void *ctx, int fd)
{
	char line[64];
	ssize_t n = read(fd, line, sizeof(line) - 1);

	(void)ctx;
	if (n <= 0)
		return -EPIPE;
	line[n] = '\0';
	CHECK_STR(line, "ask-secret Q\n");
	answers++;
	return write(fd, "secret yes\n", 11) == 11 ? 0 : -EPIPE;
}

/* A real child: fd 3 is its end, its exit status comes back. */
static void test_real_child(void)
{
	char *argv[] = { "sh", "-c",
			 "printf 'ask-secret Q\\n' >&3; read -r l <&3; test \"$l\" = 'secret yes' && "
			 "test \"$UNIRAMFS_ASK_FD\" = 3 && exit 7",
			 NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", PLUGIN_ASK_FD_ENV, NULL };

	if (access("/bin/sh", X_OK) != 0)
		SKIP("no /bin/sh");
	answers = 0;
	CHECK(real_run_asking("/bin/sh", argv, envp, 60000, serve_yes, NULL) == 7);
	CHECK(answers == 1);
	/* a program that never asks: its status all the same */
	char *quiet[] = { "sh", "-c", "exit 3", NULL };
	CHECK(real_run_asking("/bin/sh", quiet, envp, 0, serve_yes, NULL) == 3);
}

/* A program that never ends is killed at its limit, with what it started. */
static void test_real_child_limit(void)
{
	char *argv[] = { "sh", "-c", "sleep 30 & sleep 30", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", PLUGIN_ASK_FD_ENV, NULL };

	if (access("/bin/sh", X_OK) != 0)
		SKIP("no /bin/sh");
	CHECK(real_run_asking("/bin/sh", argv, envp, 300, serve_yes, NULL) == -ETIMEDOUT);
	CHECK_STR(err_msg(), "/bin/sh did not end within its time limit of 300 ms: killed");
}

int main(void)
{
	RUN(test_parse_good);
	RUN(test_parse_bad);
	RUN(test_serve);
	RUN(test_serve_long_and_end);
	RUN(test_real_child);
	RUN(test_real_child_limit);
	return test_done();
}
