// SPDX-License-Identifier: GPL-2.0-or-later
/* The prompt's wait over consoles and SSH clients (answer_wait and
 * remote/askpass.c) on socketpairs: the first answer wins, each client
 * hears the prompt, "done" and the result, and a hostile client (a NUL,
 * a line too long, gone half way, one too many) is dropped with a word
 * while the prompt goes on. The loop is pumped meanwhile, and SSH may
 * come up in the middle of the wait. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "init/core/loop.h"
#include "init/core/ops.h"
#include "init/remote/askpass.h"
#include "init/stack/stack.h"
#include "test.h"

struct pair {
	int ours, theirs; /* ours: the init's end */
};

static struct pair pair(void)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	CHECK(fcntl(sv[0], F_SETFL, O_NONBLOCK) == 0);
	return (struct pair){ sv[0], sv[1] };
}

static void put(int fd, const char *s)
{
	CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
}

/* What the init has sent to a client so far (without blocking). */
static char *heard(int fd)
{
	static char b[4096];
	ssize_t n = recv(fd, b, sizeof(b) - 1, MSG_DONTWAIT);
	b[n > 0 ? n : 0] = '\0';
	return b;
}

/* The client's end was closed by the init: EOF after what it said (a
 * reset when the init left some of its input unread). */
static bool closed(int fd)
{
	char c;
	ssize_t r = recv(fd, &c, 1, MSG_DONTWAIT);
	return r == 0 || (r < 0 && errno == ECONNRESET);
}

static int wait1(int *con, size_t nc, struct askpass *a, char *buf, size_t size, size_t *n)
{
	*n = 0;
	return answer_wait(con, nc, NULL, a, buf, size, n);
}

static void test_console_answers_client_told(void)
{
	struct askpass a = { 0 };
	struct pair con = pair(), cl = pair();
	char buf[64];
	size_t n;

	CHECK(askpass_add(&a, cl.ours) == 0);
	askpass_ask(&a, "Passphrase for /dev/vda\n(x): ");
	CHECK_STR(heard(cl.theirs), "prompt Passphrase for /dev/vda?(x): \n"); /* one line */
	put(con.theirs, "secret\n");
	CHECK(wait1(&con.ours, 1, &a, buf, sizeof(buf), &n) == 1);
	CHECK(n == 6 && !memcmp(buf, "secret", 6));
	askpass_ask(&a, NULL);
	CHECK_STR(heard(cl.theirs), "done\n");
	askpass_tell(&a, "wrong passphrase");
	CHECK_STR(heard(cl.theirs), "say wrong passphrase\n");
	askpass_close(&a);
	CHECK(closed(cl.theirs));
	close(con.ours);
	close(con.theirs);
	close(cl.theirs);
}

static void test_client_answers_first(void)
{
	struct askpass a = { 0 };
	struct pair con = pair(), c1 = pair(), c2 = pair();
	char buf[64];
	size_t n;

	CHECK(askpass_add(&a, c1.ours) == 0);
	CHECK(askpass_add(&a, c2.ours) == 0);
	askpass_ask(&a, "P: ");
	heard(c1.theirs);
	heard(c2.theirs);
	put(con.theirs, "half"); /* a console begun, not ended */
	put(c2.theirs, "remote-pass\r\n");
	buf[0] = 'x';
	CHECK(wait1(&con.ours, 1, &a, buf, sizeof(buf), &n) == 1);
	CHECK(n == 11 && !strcmp(buf, "remote-pass"));
	askpass_ask(&a, NULL);
	CHECK_STR(heard(c1.theirs), "done\n");
	CHECK_STR(heard(c2.theirs), ""); /* it answered: no "done" for it */
	askpass_tell(&a, "wrong passphrase"); /* to every client */
	CHECK_STR(heard(c2.theirs), "say wrong passphrase\n");
	/* the next try: everyone hears the prompt again */
	askpass_ask(&a, "P: ");
	CHECK_STR(heard(c1.theirs), "say wrong passphrase\nprompt P: \n");
	CHECK_STR(heard(c2.theirs), "prompt P: \n");
	askpass_close(&a);
	close(con.ours);
	close(con.theirs);
	close(c1.theirs);
	close(c2.theirs);
}

static void test_hostile_clients_dropped(void)
{
	struct askpass a = { 0 };
	struct pair con = pair(), nul = pair(), big = pair(), gone = pair(), good = pair();
	char buf[64], *x = malloc(3000);
	size_t n;

	CHECK(askpass_add(&a, nul.ours) == 0);
	CHECK(askpass_add(&a, big.ours) == 0);
	CHECK(askpass_add(&a, gone.ours) == 0);
	CHECK(askpass_add(&a, good.ours) == 0);
	askpass_ask(&a, "P: ");
	heard(nul.theirs);
	heard(big.theirs);
	heard(good.theirs);
	CHECK(write(nul.theirs, "ab\0cd\n", 6) == 6);
	memset(x, 'x', 3000);
	CHECK(write(big.theirs, x, 3000) == 3000); /* and no newline ever */
	put(gone.theirs, "par");
	close(gone.theirs);
	/* the first round drops them; nobody has answered yet */
	put(good.theirs, "ok\n");
	CHECK(wait1(&con.ours, 1, &a, buf, sizeof(buf), &n) == 1);
	CHECK(n == 2 && !strcmp(buf, "ok"));
	CHECK_STR(heard(nul.theirs), "say a NUL byte in the answer: closing\n");
	CHECK(closed(nul.theirs));
	CHECK_STR(heard(big.theirs), "say answer too long: closing\n");
	CHECK(closed(big.theirs));
	CHECK(askpass_clients(&a) == 1);
	askpass_close(&a);
	free(x);
	close(con.ours);
	close(con.theirs);
	close(nul.theirs);
	close(big.theirs);
	close(good.theirs);
}

static void test_answer_cut_to_the_buffer(void)
{
	struct askpass a = { 0 };
	struct pair con = pair(), cl = pair();
	char buf[8];
	size_t n;

	CHECK(askpass_add(&a, cl.ours) == 0);
	askpass_ask(&a, "P: ");
	put(cl.theirs, "0123456789\n");
	CHECK(wait1(&con.ours, 1, &a, buf, sizeof(buf), &n) == 1);
	CHECK(n == 7 && !strcmp(buf, "0123456"));
	askpass_close(&a);
	close(con.ours);
	close(con.theirs);
	close(cl.theirs);
}

static void test_not_asked_and_too_many(void)
{
	struct askpass a = { 0 };
	struct pair con = pair(), cl[ASKPASS_MAX_CLIENTS + 1];
	char buf[16];
	size_t n;

	for (size_t i = 0; i < ASKPASS_MAX_CLIENTS; i++) {
		cl[i] = pair();
		CHECK(askpass_add(&a, cl[i].ours) == 0);
	}
	cl[ASKPASS_MAX_CLIENTS] = pair();
	CHECK(askpass_add(&a, cl[ASKPASS_MAX_CLIENTS].ours) == -ENOSPC);
	CHECK_STR(heard(cl[ASKPASS_MAX_CLIENTS].theirs), "say too many connections; try later\n");
	CHECK(closed(cl[ASKPASS_MAX_CLIENTS].theirs));
	/* no prompt: a line is not an answer */
	put(cl[0].theirs, "early\n");
	{
		struct pollfd pfd[1 + ASKPASS_MAX_CLIENTS];
		size_t np = askpass_pollfds(&a, pfd, 1 + ASKPASS_MAX_CLIENTS);
		CHECK(np == ASKPASS_MAX_CLIENTS);
		CHECK(poll(pfd, np, -1) == 1);
		CHECK(askpass_ready(&a, pfd, np, buf, sizeof(buf)) == -EAGAIN);
	}
	CHECK_STR(heard(cl[0].theirs), "say no passphrase is asked now\n");
	/* typed ahead of a prompt: dropped when it comes, not its answer */
	put(cl[1].theirs, "stale\n");
	askpass_ask(&a, "P: ");
	CHECK_STR(heard(cl[1].theirs), "prompt P: \n");
	{
		struct pollfd pfd[1 + ASKPASS_MAX_CLIENTS];
		size_t np = askpass_pollfds(&a, pfd, 1 + ASKPASS_MAX_CLIENTS);
		CHECK(poll(pfd, np, 0) == 0); /* nothing left to read */
	}
	put(con.theirs, "console\n");
	CHECK(wait1(&con.ours, 1, &a, buf, sizeof(buf), &n) == 1);
	CHECK(n == 7 && !memcmp(buf, "console", 7));
	askpass_close(&a);
	for (size_t i = 0; i <= ASKPASS_MAX_CLIENTS; i++)
		close(cl[i].theirs);
	close(con.ours);
	close(con.theirs);
}

static void test_consoles_ended_no_client(void)
{
	struct askpass a = { 0 };
	struct pair con = pair();
	char buf[16];
	size_t n;

	close(con.theirs);
	CHECK(wait1(&con.ours, 1, &a, buf, sizeof(buf), &n) == 0);
	close(con.ours);
}

/* The loop's source: readable once; its handler brings SSH up (as
 * netup's on_up does) and a client that connects and answers. */
struct world {
	struct askpass *a;
	int pipe[2];
	char path[108];
	int client;
	bool pumped;
};

static void source_ready(void *arg)
{
	struct world *w = arg;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char c;
	struct stat st;

	CHECK(read(w->pipe[0], &c, 1) == 1);
	w->pumped = true;
	CHECK(askpass_listen(w->a, w->path) == 0);
	CHECK(stat(w->path, &st) == 0 && (st.st_mode & 0777) == 0600);
	strcpy(sa.sun_path, w->path);
	w->client = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(connect(w->client, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	put(w->client, "late\n");
}

/* The loop's effects, for real but only these two. */
static int t_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	int r = poll(fds, n, timeout_ms);
	return r < 0 ? -errno : r;
}

static long long t_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const struct sysops t_ops = { .poll = t_poll, .now_ms = t_now };

static void test_loop_pumped_and_ssh_comes_up(void)
{
	struct askpass a = { 0 };
	struct world w = { .a = &a, .client = -1 };
	struct pair con = pair();
	struct loop l;
	char buf[16], dir[] = "/tmp/uniramfs-askpass-XXXXXX";
	size_t n = 0;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(w.path, sizeof(w.path), "%s/askpass.sock", dir);
	CHECK(pipe(w.pipe) == 0);
	loop_init(&l, &t_ops);
	CHECK(loop_add(&l, &(struct loop_source){ .fd = w.pipe[0], .ready = source_ready,
						  .arg = &w }) == 0);
	askpass_ask(&a, "P: ");
	put(w.pipe[1], "!");
	CHECK(answer_wait(&con.ours, 1, &l, &a, buf, sizeof(buf), &n) == 1);
	CHECK(w.pumped);
	CHECK(n == 4 && !strcmp(buf, "late"));
	CHECK_STR(heard(w.client), "prompt P: \n"); /* told on arrival */
	askpass_close(&a);
	CHECK(access(w.path, F_OK) < 0 && errno == ENOENT);
	CHECK(rmdir(dir) == 0);
	close(w.client);
	close(w.pipe[0]);
	close(w.pipe[1]);
	close(con.ours);
	close(con.theirs);
}

int main(void)
{
	RUN(test_console_answers_client_told);
	RUN(test_client_answers_first);
	RUN(test_hostile_clients_dropped);
	RUN(test_answer_cut_to_the_buffer);
	RUN(test_not_asked_and_too_many);
	RUN(test_consoles_ended_no_client);
	RUN(test_loop_pumped_and_ssh_comes_up);
	return test_done();
}
