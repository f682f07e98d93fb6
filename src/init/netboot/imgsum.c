// SPDX-License-Identifier: GPL-2.0-or-later
/* A downloaded image's SHA-256 (imgsum.h), the kernel's (core/khash.c). */
#include "init/netboot/imgsum.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "init/core/khash.h"

int imgsum_parse(const char *text, char hex[SHA256_HEX])
{
	size_t i;

	for (i = 0; text[i] && i < SHA256_HEX - 1; i++) {
		char c = text[i];
		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			break;
		hex[i] = c;
	}
	if (i != SHA256_HEX - 1 || text[i])
		return err_set("rd.live.sha256=%s: not a SHA-256 (64 hexadecimal digits)", text);
	hex[i] = '\0';
	return 0;
}

int imgsum_fd(int fd, char hex[SHA256_HEX])
{
	static char buf[1 << 16];
	unsigned char md[KHASH_MAX];
	int op = khash_open("sha256", NULL, 0), r;
	ssize_t n;

	if (op < 0)
		return op;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || send(op, buf, (size_t)n, MSG_MORE) != n) {
			r = err_errno(errno, n < 0 ? "cannot read the image" : "cannot compute sha256");
			close(op);
			return r;
		}
	}
	if ((r = khash_final(op, md, sizeof(md))) < 0)
		return r;
	if (r != 32)
		return err_set("cannot compute sha256: the kernel gave %d bytes", r);
	for (size_t i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}
