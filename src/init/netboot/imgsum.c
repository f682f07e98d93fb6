// SPDX-License-Identifier: GPL-2.0-or-later
/* A downloaded image's SHA-256 (imgsum.h). The kernel has SHA-256 (it is
 * built in, or the sha256 module, wherever dm-verity or module signing
 * are), and algif_hash lends it to user space: so the init carries no
 * hash code of its own to get wrong, and the digest is the kernel's,
 * with whatever acceleration it has. */
#include "init/netboot/imgsum.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"

#ifndef AF_ALG
#define AF_ALG 38
#endif

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
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash", .salg_name = "sha256" };
	static char buf[1 << 16];
	unsigned char md[32];
	int tfm, op = -1, r = 0;
	ssize_t n;

	tfm = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (tfm < 0)
		return err_errno(errno, "cannot compute SHA-256: the kernel's AF_ALG socket "
				 "(algif_hash)");
	if (bind(tfm, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (op = accept4(tfm, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		r = err_errno(errno, "cannot compute SHA-256: the kernel's sha256");
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = err_errno(errno, "cannot read the image");
			goto out;
		}
		if (send(op, buf, (size_t)n, MSG_MORE) != n) {
			r = err_errno(errno, "cannot compute SHA-256");
			goto out;
		}
	}
	/* the read ends the hash: what MSG_MORE held back is final now */
	if (read(op, md, sizeof(md)) != (ssize_t)sizeof(md)) {
		r = err_errno(errno, "cannot compute SHA-256");
		goto out;
	}
	for (size_t i = 0; i < sizeof(md); i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
out:
	if (op >= 0)
		close(op);
	close(tfm);
	return r;
}
