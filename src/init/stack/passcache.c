// SPDX-License-Identifier: GPL-2.0-or-later
/* The typed passphrases of this boot in the kernel keyring, in
 * systemd-cryptsetup's format (see passcache.h for why). */
#include <errno.h>
#include <string.h>

#include "err.h"
#include "init/stack/passcache.h"

/* The key's payload into buf: its length (0: none), never more than
 * size; a key too long for us (someone else's) counts as none. */
static size_t load(const struct initops *x, char *buf, size_t size)
{
	ssize_t n = x->key_get ? x->key_get(PASSCACHE_KEY, buf, size) : -ENOKEY;

	return n > 0 && (size_t)n <= size ? (size_t)n : 0;
}

static bool has(const char *buf, size_t n, const char *pass, size_t len)
{
	for (size_t at = 0; at < n;) {
		size_t l = strnlen(buf + at, n - at);
		if (l == len && memcmp(buf + at, pass, len) == 0)
			return true;
		at += l + 1;
	}
	return false;
}

int passcache_add(const struct initops *x, const char *pass, size_t len)
{
	char buf[PASSCACHE_MAX];
	size_t n;
	int r = 0;

	/* a NUL inside would split it in two for every reader */
	if (!x->key_set || len == 0 || memchr(pass, '\0', len))
		return 0;
	n = load(x, buf, sizeof(buf));
	if (!has(buf, n, pass, len)) {
		if (n + len + 1 > sizeof(buf)) {
			r = err_set_code(-ENOSPC, "too many passphrases to keep");
			goto out;
		}
		memcpy(buf + n, pass, len);
		buf[n + len] = '\0';
		n += len + 1;
	}
	/* set again even when present: the timeout starts anew */
	if ((r = x->key_set(PASSCACHE_KEY, buf, n, PASSCACHE_TIMEOUT_S)) < 0)
		r = err_errno(r, "cannot keep the passphrase in the kernel keyring");
out:
	explicit_bzero(buf, sizeof(buf));
	return r;
}

bool passcache_each(const struct initops *x, bool (*fn)(void *ctx, const char *pass, size_t len),
		    void *ctx)
{
	char buf[PASSCACHE_MAX];
	size_t n = load(x, buf, sizeof(buf));
	bool done = false;

	for (size_t at = 0; at < n && !done;) {
		size_t l = strnlen(buf + at, n - at);
		if (l)
			done = fn(ctx, buf + at, l);
		at += l + 1;
	}
	explicit_bzero(buf, sizeof(buf));
	return done;
}
