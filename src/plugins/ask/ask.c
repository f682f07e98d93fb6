// SPDX-License-Identifier: GPL-2.0-or-later
/* The client of the init's request channel (ask.h): one line out, one
 * line back, on the socket the init handed down. */
#include "ask.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int channel(void)
{
	const char *v = getenv("UNIRAMFS_ASK_FD");
	char *end;
	long fd;
	struct stat st;

	if (!v || !*v)
		return -ENOTCONN;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || *end || fd < 3 || fd > 1023 || fstat((int)fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return -ENOTCONN;
	return (int)fd;
}

static int send_line(int fd, const char *verb, const char *text)
{
	size_t len = strlen(verb) + 1 + strlen(text) + 1;
	char *line = malloc(len + 1);
	size_t off = 0;
	int r = 0;

	if (!line)
		return -ENOMEM;
	snprintf(line, len + 1, "%s %s\n", verb, text);
	while (off < len) {
		ssize_t w = send(fd, line + off, len - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = w < 0 ? -errno : -EPIPE;
			break;
		}
		off += (size_t)w;
	}
	free(line);
	return r;
}

/* One line of the answer, without its '\n', into buf; its length, or
 * -E2BIG (read to its end all the same), -EPIPE at the end. */
static ssize_t recv_line(int fd, char *buf, size_t size)
{
	size_t n = 0;
	bool over = false;

	for (;;) {
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EPIPE;
		if (c == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = c;
		else
			over = true;
	}
	buf[n] = '\0';
	return over ? -E2BIG : (ssize_t)n;
}

ssize_t ask_secret(const char *prompt, char *buf, size_t size, char *why, size_t n)
{
	int fd = channel(), r;
	char line[1100];
	ssize_t len;

	if (fd < 0)
		return fd;
	if ((r = send_line(fd, "ask-secret", prompt)) < 0)
		return r;
	len = recv_line(fd, line, sizeof(line));
	if (len < 0) {
		explicit_bzero(line, sizeof(line));
		return len;
	}
	if (!strncmp(line, "secret ", 7) && (size_t)len - 7 < size) {
		memcpy(buf, line + 7, (size_t)len - 7 + 1);
		explicit_bzero(line, sizeof(line));
		return len - 7;
	}
	if (!strncmp(line, "secret ", 7)) {
		explicit_bzero(line, sizeof(line));
		return -E2BIG;
	}
	snprintf(why, n, "%s", strncmp(line, "error ", 6) ? "an answer not understood" : line + 6);
	return -EIO;
}

int ask_tell(const char *msg)
{
	int fd = channel(), r;
	char line[256];

	if (fd < 0)
		return fd;
	if ((r = send_line(fd, "tell", msg)) < 0)
		return r;
	r = (int)recv_line(fd, line, sizeof(line));
	return r < 0 ? r : 0;
}
