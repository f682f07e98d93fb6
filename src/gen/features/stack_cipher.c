// SPDX-License-Identifier: GPL-2.0-or-later
/* Hostonly: the ciphers the root's LUKS headers name (camellia, serpent,
 * twofish, ...), as module aliases "crypto-NAME". The kernel asks for
 * the cipher's module when the volume is opened; an image without it
 * has nothing to answer with. The headers are the host's own, read
 * through sysroot: still, nothing in them is trusted to be a name. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luks2.h"
#include "gen/features/stack.h"
#include "log.h"

#define LUKS1_CIPHER_NAME 8 /* char[32], then cipher_mode char[32] at 40 */

/* "camellia" out of "camellia-xts-plain64" (or a LUKS1 cipher_name):
 * lower-case letters, digits and '_' only, else nothing. */
static void push_cipher(struct strv *out, const char *spec, size_t len)
{
	size_t n = 0;
	char *alias;

	while (n < len && spec[n] && spec[n] != '-')
		n++;
	if (!n || n > 32)
		return;
	for (size_t i = 0; i < n; i++)
		if (!((spec[i] >= 'a' && spec[i] <= 'z') || (spec[i] >= '0' && spec[i] <= '9') ||
		      spec[i] == '_'))
			return;
	alias = xasprintf("crypto-%.*s", (int)n, spec);
	if (strv_contains(out, alias))
		free(alias);
	else
		strv_push_owned(out, alias);
}

void stack_ciphers_json(const char *json, size_t len, struct strv *out)
{
	static const char key[] = "\"encryption\"";

	for (const char *p = json, *end = json + len;
	     (p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1)); ) {
		p += sizeof(key) - 1;
		while (p < end && (*p == ' ' || *p == ':'))
			p++;
		if (p < end && *p == '"') {
			const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
			if (q)
				push_cipher(out, p + 1, (size_t)(q - p - 1));
		}
	}
}

/* The ciphers of the LUKS header at fd: 0, or -errno (-EINVAL: none). */
static int fd_ciphers(int fd, struct strv *out)
{
	unsigned char bin[LUKS2_BIN_HDR];
	ssize_t got = pread(fd, bin, sizeof(bin), 0);
	size_t size;
	char *json;

	if (got < 0)
		return -errno;
	if (got < 72 || memcmp(bin, "LUKS\xba\xbe", 6))
		return -EINVAL;
	if (bin[6] == 0 && bin[7] == 1) {
		push_cipher(out, (const char *)bin + LUKS1_CIPHER_NAME, 32);
		return 0;
	}
	size = luks2_hdr_size(bin, (size_t)got);
	if (!size)
		return -EINVAL;
	json = xmalloc(size - LUKS2_BIN_HDR);
	got = pread(fd, json, size - LUKS2_BIN_HDR, LUKS2_BIN_HDR);
	if (got > 0)
		stack_ciphers_json(json, (size_t)got, out);
	free(json);
	return got < 0 ? -errno : 0;
}

void stack_plan_ciphers(struct stack_plan *sp, const char *sysroot)
{
	for (size_t i = 0; i < sp->luks_devs.n; i++) {
		char *p = xasprintf("%s/dev/%s", sysroot, sp->luks_devs.v[i]);
		int fd = open(p, O_RDONLY | O_CLOEXEC), r = fd < 0 ? -errno : fd_ciphers(fd, &sp->ciphers);
		if (fd >= 0)
			close(fd);
		/* a detached header's data shows none: its cipher is in the
		 * header file, and the generic set's modules are the fallback */
		if (r < 0 && r != -EINVAL)
			log_notice("cannot read the LUKS header of /dev/%s (%s): its cipher's module "
				   "may be missing", sp->luks_devs.v[i], strerror(-r));
		free(p);
	}
}
