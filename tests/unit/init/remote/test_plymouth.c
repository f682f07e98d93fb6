// SPDX-License-Identifier: GPL-2.0-or-later
/* The splash's client (remote/plymouth.c) against a fake `plymouth`: a
 * shell script that logs each ask-for-password's prompt and says what
 * the test writes into a FIFO, as plymouth ask-for-password says its
 * answer (nothing for a cancelled question); and a pty standing in for
 * the VT whose keyboard plymouthd reads. A question answered elsewhere
 * is withdrawn with a Ctrl+C on that VT, the next one is asked only
 * once the withdrawn client has ended (in its own words), and an empty
 * answer asks again. Without a VT (or a TIOCSTI the kernel refuses,
 * when not root) the dialog stays and answers the next question. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "init/remote/plymouth.h"
#include "log_capture.h"
#include "test.h"

static char dir[] = "/tmp/uniramfs-test-plymouth-XXXXXX";
static char logpath[128], fifo[128], client[128], daemon_[128], rundir[128];
static int vt = -1; /* the test's end of the pty: what plymouthd would read */
static char vtpath[64];

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static void setup(void)
{
	char script[1024];
	int m;

	if (!mkdtemp(dir))
		abort();
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	snprintf(fifo, sizeof(fifo), "%s/answer", dir);
	snprintf(client, sizeof(client), "%s/plymouth", dir);
	snprintf(daemon_, sizeof(daemon_), "%s/plymouthd", dir);
	snprintf(rundir, sizeof(rundir), "%s/run", dir);
	if (mkfifo(fifo, 0600) < 0)
		abort();
	/* ask-for-password --prompt=P: "ask P" in the log, then the FIFO's
	 * next line as its answer, none for "cancel" (plymouth's client
	 * exits 0 with no output for a Ctrl+C) */
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n"
		 "case \"$1\" in\n"
		 "ask-for-password)\n"
		 "\techo \"ask ${2#--prompt=}\" >> %s\n"
		 "\tread -r a < %s\n"
		 "\t[ \"$a\" = cancel ] && exit 0\n"
		 "\tprintf '%%s' \"$a\";;\n"
		 "esac\n"
		 "exit 0\n",
		 logpath, fifo);
	write_file(client, script, 0755);
	write_file(daemon_, "#!/bin/sh\nexit 0\n", 0755);
	write_file(logpath, "", 0644);
	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0 && ptsname_r(m, vtpath, sizeof(vtpath)) == 0) {
		struct termios t;
		vt = open(vtpath, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		/* raw, as plymouthd sets its VT: a Ctrl+C is a byte read, not a signal */
		if (vt >= 0 && tcgetattr(vt, &t) == 0) {
			cfmakeraw(&t);
			tcsetattr(vt, TCSANOW, &t);
		}
	}
}

/* The fake client's log: each prompt asked, in order. */
static char *asked(void)
{
	static char b[1024];
	int fd = open(logpath, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof(b) - 1) : -1;

	if (fd >= 0)
		close(fd);
	b[n > 0 ? n : 0] = '\0';
	return b;
}

/* The line the running client answers with: once it reads the FIFO,
 * so after it logged its prompt. */
static void answer(const char *line)
{
	int fd = open(fifo, O_WRONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, line, strlen(line)) == (ssize_t)strlen(line));
	CHECK(write(fd, "\n", 1) == 1);
	close(fd);
}

/* Poll the splash's fd as the prompt does until its client has ended:
 * the answer's length, or -EAGAIN when it gave none (its end handled:
 * a withdrawn client, an empty answer). */
static ssize_t wait_splash(char *buf, size_t size)
{
	for (int i = 0; i < 100; i++) {
		struct pollfd pfd[1];
		size_t n = plymouth_pollfd(pfd, 1);
		ssize_t got;
		if (n == 0)
			return -ENOENT;
		if (poll(pfd, n, 5000) <= 0)
			return -ETIMEDOUT;
		got = plymouth_ready(pfd, n, buf, size);
		if (got >= 0 || (pfd[0].revents & POLLHUP))
			return got;
	}
	return -ETIMEDOUT;
}

/* What reached the VT's input since the last call. */
static const char *vt_input(void)
{
	static char b[64];
	ssize_t n = vt >= 0 ? read(vt, b, sizeof(b) - 1) : -1;

	b[n > 0 ? n : 0] = '\0';
	return b;
}

static void start(const char *tty)
{
	struct plymouth_paths p = { daemon_, client, tty, rundir };

	plymouth_use(&p);
	plymouth_want(true);
	plymouth_start();
	CHECK(plymouth_owns_vts());
}

static void test_withdraw(void)
{
	char buf[64];

	if (vt < 0)
		SKIP("no pty");
	msgs_capture(7);
	start(vtpath);
	plymouth_ask("Passphrase for /dev/vda1:");
	CHECK_STR(vt_input(), "");
	plymouth_ask(NULL); /* a console answered it */
	if (said("<4>splash: cannot withdraw a question answered elsewhere")) {
		answer("cancel");
		SKIP("TIOCSTI refused here (not root)");
	}
	CHECK_STR(vt_input(), "\x03");
	/* the next question waits for the withdrawn client's end */
	plymouth_ask("Passphrase for /dev/vda2:");
	answer("cancel"); /* what plymouthd does with the Ctrl+C */
	CHECK_STR(asked(), "ask Passphrase for /dev/vda1:\n");
	CHECK(wait_splash(buf, sizeof(buf)) == -EAGAIN);
	answer("second-pass");
	CHECK_STR(asked(), "ask Passphrase for /dev/vda1:\nask Passphrase for /dev/vda2:\n");
	CHECK(wait_splash(buf, sizeof(buf)) == 11);
	CHECK_STR(buf, "second-pass");
	plymouth_ask(NULL); /* answered here: nothing to withdraw */
	CHECK_STR(vt_input(), "");
	/* an empty answer (Enter on an empty dialog) asks again */
	plymouth_ask("Passphrase for /dev/vda3:");
	answer("");
	CHECK(wait_splash(buf, sizeof(buf)) == -EAGAIN);
	answer("third");
	CHECK_STR(asked(), "ask Passphrase for /dev/vda1:\nask Passphrase for /dev/vda2:\n"
			   "ask Passphrase for /dev/vda3:\nask Passphrase for /dev/vda3:\n");
	CHECK(wait_splash(buf, sizeof(buf)) == 5);
	CHECK_STR(buf, "third");
	plymouth_ask(NULL);
	CHECK_STR(vt_input(), "");
	CHECK(!said("<4>splash: cannot withdraw a question answered elsewhere"));
}

static void cleanup(void)
{
	const char *names[] = { logpath, fifo, client, daemon_ };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(names[i]);
	rmdir(rundir);
	rmdir(dir);
}

int main(void)
{
	setup();
	RUN(test_withdraw);
	cleanup();
	return test_done();
}
