// SPDX-License-Identifier: GPL-2.0-or-later
/* Digests and HMACs computed by the kernel (khash.h). The kernel has
 * SHA-256 (it is built in, or the sha256 module, wherever dm-verity or
 * module signing are), and algif_hash lends it to user space: so the
 * init carries no hash code of its own to get wrong, and the digest is
 * the kernel's, with whatever acceleration it has. */
#include "init/core/khash.h"

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
#ifndef SOL_ALG
#define SOL_ALG 279
#endif

int khash_open(const char *alg, const void *key, size_t keylen)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash" };
	int tfm, op, e;

	if ((size_t)snprintf((char *)sa.salg_name, sizeof(sa.salg_name), key ? "hmac(%s)" : "%s", alg) >=
	    sizeof(sa.salg_name))
		return err_set("cannot compute %s: not a hash name", alg);
	tfm = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (tfm < 0)
		return err_errno(errno, "cannot compute %s: the kernel's AF_ALG socket (algif_hash)",
				 (char *)sa.salg_name);
	if (bind(tfm, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		close(tfm);
		return err_errno(e, "cannot compute %s: the kernel's %s", (char *)sa.salg_name,
				 (char *)sa.salg_name);
	}
	if (key && setsockopt(tfm, SOL_ALG, ALG_SET_KEY, key, (socklen_t)keylen) < 0) {
		e = errno;
		close(tfm);
		return err_errno(e, "cannot compute %s: the key", (char *)sa.salg_name);
	}
	/* the operation socket holds the transform: the parent may go */
	op = accept4(tfm, NULL, NULL, SOCK_CLOEXEC);
	e = errno;
	close(tfm);
	if (op < 0)
		return err_errno(e, "cannot compute %s", (char *)sa.salg_name);
	return op;
}

int khash_final(int op, unsigned char *out, size_t size)
{
	/* the read ends the hash: what MSG_MORE held back is final now */
	ssize_t n = read(op, out, size);
	int e = errno;

	close(op);
	if (n <= 0)
		return err_errno(n < 0 ? e : EIO, "cannot compute a digest");
	return (int)n;
}

int khash_buf(const char *alg, const void *key, size_t keylen, const void *data, size_t len,
	      unsigned char *out, size_t size)
{
	int op = khash_open(alg, key, keylen), e;

	if (op < 0)
		return op;
	if (send(op, data, len, 0) != (ssize_t)len) {
		e = errno;
		close(op);
		return err_errno(e, "cannot compute %s", alg);
	}
	return khash_final(op, out, size);
}
