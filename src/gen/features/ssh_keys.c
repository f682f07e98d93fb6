// SPDX-License-Identifier: GPL-2.0-or-later
/* authorized_keys for the image: each line checked (it is hostile
 * input: a key type dropbear knows, base64 that holds a key of that
 * type, options that only restrict) and written again with our own
 * options, so that whatever the source said, a login can do nothing but
 * answer the passphrase prompt. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "err.h"
#include "gen/features/ssh.h"
#include "layout.h"

#define MAX_LINE 8192

#define OUR_OPTIONS "no-port-forwarding,no-agent-forwarding,no-X11-forwarding"

static const char *const key_types[] = {
	"ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
	"ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
};

/* Options that only take something away: kept out (ours say the same
 * or more), but no-pty is carried over. */
static const char *const restrictions[] = {
	"no-port-forwarding", "no-agent-forwarding", "no-x11-forwarding", "no-pty", "no-user-rc",
	"restrict",
};

static bool is_key_type(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_types); i++)
		if (strlen(key_types[i]) == n && !memcmp(key_types[i], s, n))
			return true;
	return false;
}

static int b64_value(int c)
{
	const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(t, c) : NULL;
	return p ? (int)(p - t) : -1;
}

/* Decode base64 (padding allowed only at the end) into out (size max).
 * Its length, or -EINVAL when it is not base64. */
static long b64_decode(const char *s, size_t n, unsigned char *out, size_t max)
{
	uint32_t acc = 0;
	size_t bits = 0, len = 0, pad = 0;

	for (size_t i = 0; i < n; i++) {
		int v;
		if (s[i] == '=') {
			pad++;
			continue;
		}
		if (pad || (v = b64_value((unsigned char)s[i])) < 0)
			return -EINVAL;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (len == max)
				return -EINVAL;
			out[len++] = (unsigned char)(acc >> bits);
		}
	}
	if (pad > 2 || (n % 4 && pad))
		return -EINVAL;
	return (long)len;
}

/* The blob is the SSH wire form of a key: a string, its type, first. */
static bool blob_holds(const char *b64, size_t n, const char *type, size_t tlen)
{
	unsigned char raw[MAX_LINE];
	long len = b64_decode(b64, n, raw, sizeof(raw));
	uint32_t slen;

	if (len < 4)
		return false;
	slen = (uint32_t)raw[0] << 24 | (uint32_t)raw[1] << 16 | (uint32_t)raw[2] << 8 | raw[3];
	return slen == tlen && (size_t)len >= 4 + tlen + 4 && !memcmp(raw + 4, type, tlen);
}

/* End of the options field: the first blank outside double quotes
 * (where \" does not end the quote). NULL: a quote left open. */
static const char *options_end(const char *p)
{
	bool q = false;

	for (; *p && (q || (*p != ' ' && *p != '\t')); p++) {
		if (q && *p == '\\' && p[1])
			p++;
		else if (*p == '"')
			q = !q;
	}
	return q ? NULL : p;
}

/* Check the options (s, n bytes, ends at a blank): 0 and *no_pty, or an
 * error naming the one refused. */
static int check_options(const char *where, const char *s, size_t n, bool *no_pty)
{
	size_t i = 0;

	while (i < n) {
		size_t start = i, name_len;
		bool q = false, ok = false;
		for (; i < n && (q || s[i] != ','); i++) {
			if (q && s[i] == '\\' && i + 1 < n)
				i++;
			else if (s[i] == '"')
				q = !q;
		}
		name_len = strcspn(s + start, "=,");
		if (name_len > i - start)
			name_len = i - start;
		if (name_len == 7 && !strncasecmp(s + start, "command", 7) && s[start + 7] == '=') {
			ok = true; /* theirs (cryptroot-unlock, ...): ours replaces it */
		} else if (start + name_len == i) {
			for (size_t k = 0; k < ARRAY_SIZE(restrictions) && !ok; k++)
				ok = strlen(restrictions[k]) == name_len &&
				     !strncasecmp(restrictions[k], s + start, name_len);
			if (name_len == 6 && !strncasecmp(s + start, "no-pty", 6))
				*no_pty = true;
		}
		if (!ok)
			return err_set("%s: option \"%.*s\" refused: a login may only be restricted "
				       "(no-port-forwarding, no-agent-forwarding, no-X11-forwarding, "
				       "no-pty, no-user-rc, restrict) or given a command= (uniramfs "
				       "puts its own)",
				       where, (int)(i - start > 64 ? 64 : i - start), s + start);
		i++; /* the comma */
	}
	return 0;
}

static int bad_type(const char *where, const char *p, size_t n)
{
	return err_set("%s: \"%.*s\" is not a key type dropbear takes (ssh-ed25519, ssh-rsa, "
		       "ecdsa-sha2-nistp256/384/521, sk-ssh-ed25519@openssh.com, "
		       "sk-ecdsa-sha2-nistp256@openssh.com)",
		       where, (int)(n > 64 ? 64 : n), p);
}

/* A word that names a key type, not options: ssh-dss, ssh-foo. */
static bool looks_like_type(const char *p, size_t n)
{
	return (!strncmp(p, "ssh-", 4) || !strncmp(p, "ecdsa-", 6) || !strncmp(p, "sk-", 3)) &&
	       !memchr(p, '=', n) && !memchr(p, ',', n);
}

static int one_line(const char *where, const char *line, struct buf *out)
{
	const char *p = line, *type, *blob, *end;
	size_t tlen, blen;
	bool no_pty = false;

	end = p + strcspn(p, " \t");
	if (!is_key_type(p, (size_t)(end - p)) && looks_like_type(p, (size_t)(end - p)))
		return bad_type(where, p, (size_t)(end - p));
	if (!is_key_type(p, (size_t)(end - p))) {
		const char *oend = options_end(p);
		if (!oend)
			return err_set("%s: a double quote is left open", where);
		if (check_options(where, p, (size_t)(oend - p), &no_pty) < 0)
			return err_code();
		p = oend + strspn(oend, " \t");
		end = p + strcspn(p, " \t");
		if (!is_key_type(p, (size_t)(end - p)))
			return bad_type(where, p, (size_t)(end - p));
	}
	type = p;
	tlen = (size_t)(end - p);
	blob = end + strspn(end, " \t");
	blen = strcspn(blob, " \t");
	if (!blen)
		return err_set("%s: no key after \"%.*s\"", where, (int)tlen, type);
	if (!blob_holds(blob, blen, type, tlen))
		return err_set("%s: the key data is not the base64 of a %.*s key", where, (int)tlen,
			       type);
	p = blob + blen;
	p += strspn(p, " \t");
	buf_printf(out, "%s%s,command=\"%s\" %.*s %.*s", OUR_OPTIONS, no_pty ? ",no-pty" : "",
		   LAYOUT_ASKPASS, (int)tlen, type, (int)blen, blob);
	if (*p)
		buf_printf(out, " %s", p); /* the comment, checked printable */
	buf_append(out, "\n", 1);
	return 0;
}

int ssh_authorized_keys(const char *name, const char *data, size_t len, struct buf *out,
			size_t *nkeys)
{
	size_t lineno = 0, i = 0;

	*nkeys = 0;
	while (i < len) {
		size_t n = 0, k;
		char line[MAX_LINE + 1], where[4200];
		const char *nl = memchr(data + i, '\n', len - i);

		n = nl ? (size_t)(nl - (data + i)) : len - i;
		lineno++;
		snprintf(where, sizeof(where), "%s:%zu", name, lineno);
		if (n && data[i + n - 1] == '\r')
			n--; /* written on Windows */
		if (n > MAX_LINE)
			return err_set("%s: line longer than %d bytes", where, MAX_LINE);
		memcpy(line, data + i, n);
		line[n] = '\0';
		i += (nl ? (size_t)(nl - (data + i)) + 1 : len - i);
		for (k = 0; k < n; k++)
			if (((unsigned char)line[k] < 0x20 && line[k] != '\t') || line[k] == 0x7f)
				return err_set("%s: control character \\%03o in the line", where,
					       (unsigned char)line[k]);
		k = strspn(line, " \t");
		if (!line[k] || line[k] == '#')
			continue;
		if (one_line(where, line + k, out) < 0)
			return err_code();
		(*nkeys)++;
	}
	return 0;
}

int ssh_read_fd(int fd, size_t max, char **data, size_t *len)
{
	struct buf b = { 0 };
	char chunk[4096];

	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || b.len + (size_t)r > max) {
			int e = r < 0 ? errno : EFBIG;
			explicit_bzero(chunk, sizeof(chunk));
			if (b.p)
				explicit_bzero(b.p, b.len);
			buf_free(&b);
			return -e;
		}
		if (r == 0)
			break;
		buf_append(&b, chunk, (size_t)r);
	}
	explicit_bzero(chunk, sizeof(chunk));
	buf_append(&b, "", 1);
	*data = b.p;
	*len = b.len - 1;
	return 0;
}
