// SPDX-License-Identifier: GPL-2.0-or-later
/* uniramfs-askpass: what an SSH login to the initramfs runs (dropbear's
 * forced command and root's shell), the init binary under another name.
 * It shows the init's prompt on its terminal, reads the answer there
 * with echo off and sends it; the init's messages ("wrong passphrase")
 * are shown too. It ends when the init closes the socket (the boot went
 * on) or its input ends. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "init/remote/askpass.h"
#include "layout.h"
#include "util.h"

struct term {
	bool tty, quiet;
	struct termios old;
};

static void echo_off(struct term *t)
{
	struct termios q;

	if (!t->tty || t->quiet)
		return;
	q = t->old;
	q.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
	q.c_lflag |= ICANON;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &q);
	t->quiet = true;
}

static void echo_on(struct term *t)
{
	if (t->tty && t->quiet)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &t->old);
	t->quiet = false;
}

static void out(const char *s)
{
	write_all(STDOUT_FILENO, s, strlen(s));
}

/* One line from the init. Returns whether a prompt is now open. */
static bool handle(struct term *t, char *line, bool prompting)
{
	if (!strncmp(line, "prompt ", 7)) {
		if (prompting)
			out("\n");
		/* before the prompt shows: what is typed once it does (the
		 * answer) must be neither echoed nor flushed */
		echo_off(t);
		out(line + 7);
		return true;
	}
	if (!strcmp(line, "done")) {
		if (prompting) {
			echo_on(t);
			out("\n(answered elsewhere)\n");
		}
		return false;
	}
	if (!strncmp(line, "say ", 4)) {
		if (prompting)
			out("\n");
		out(line + 4);
		out("\n");
		return false;
	}
	return prompting; /* a newer init's word: not ours */
}

static int connect_init(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", LAYOUT_ASKPASS_SOCKET);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

int askpass_main(int argc, char **argv)
{
	struct term t = { 0 };
	char in[ASKPASS_LINE_MAX + 1], msg[4096];
	size_t nin = 0, nmsg = 0;
	bool prompting = false;
	int fd = connect_init(), st = 1;

	(void)argc;
	(void)argv; /* "-c COMMAND" from dropbear: every login is this */
	if (fd < 0) {
		fprintf(stderr, "uniramfs-askpass: cannot reach the init at %s: %s (nothing is "
			"asked now)\n", LAYOUT_ASKPASS_SOCKET, strerror(-fd));
		return 1;
	}
	t.tty = tcgetattr(STDIN_FILENO, &t.old) == 0;
	out("uniramfs: waiting for a passphrase prompt\n");
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = STDIN_FILENO, .events = POLLIN } };
		if (poll(p, prompting ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents) {
			ssize_t r = read(fd, msg + nmsg, sizeof(msg) - 1 - nmsg);
			if (r <= 0) {
				st = 0; /* the init closed it: the boot went on */
				break;
			}
			nmsg += (size_t)r;
			for (char *nl; (nl = memchr(msg, '\n', nmsg));) {
				*nl = '\0';
				prompting = handle(&t, msg, prompting);
				nmsg -= (size_t)(nl + 1 - msg);
				memmove(msg, nl + 1, nmsg);
			}
			if (nmsg == sizeof(msg) - 1)
				nmsg = 0; /* no line that long comes from the init */
		}
		if (prompting && p[1].revents) {
			char ch;
			ssize_t r = read(STDIN_FILENO, &ch, 1);
			if (r <= 0)
				break;
			if (ch != '\n' && ch != '\r') {
				if (nin < ASKPASS_LINE_MAX)
					in[nin++] = ch;
				continue;
			}
			in[nin++] = '\n';
			write_all(fd, in, nin);
			explicit_bzero(in, sizeof(in));
			nin = 0;
			echo_on(&t);
			out("\n");
			prompting = false;
		}
	}
	explicit_bzero(in, sizeof(in));
	echo_on(&t);
	out(st == 0 ? "uniramfs: the boot goes on; closing\n" : "\n");
	close(fd);
	return st;
}
