// SPDX-License-Identifier: GPL-2.0-or-later
/* The passphrase prompt: on /dev/console, echo off, one line. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "err.h"
#include "stack.h"

ssize_t real_read_secret(const char *prompt, char *buf, size_t size)
{
	struct termios old, quiet;
	bool tty;
	size_t n = 0;
	int fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return err_errno(errno, "cannot open /dev/console");
	tty = tcgetattr(fd, &old) == 0;
	if (tty) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
		quiet.c_lflag |= ICANON;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	write_all(fd, prompt, strlen(prompt));
	for (;;) {
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (n == 0) {
				if (tty)
					tcsetattr(fd, TCSAFLUSH, &old);
				close(fd);
				return err_set("end of input on /dev/console");
			}
			break;
		}
		if (c == '\n' || c == '\r')
			break;
		if (n + 1 < size)
			buf[n++] = c;
	}
	buf[n] = '\0';
	if (tty)
		tcsetattr(fd, TCSAFLUSH, &old);
	write_all(fd, "\n", 1);
	close(fd);
	return (ssize_t)n;
}
