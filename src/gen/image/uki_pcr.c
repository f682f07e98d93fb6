// SPDX-License-Identifier: GPL-2.0-or-later
/* The UKI's signed PCR 11 policies (uki_pcr.h). */
#include "gen/image/uki_pcr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "err.h"
#include "gen/host/run_tool.h"
#include "gen/image/uki_sha256.h"
#include "gen/image/uki_sign.h"

#define MEASURE "/usr/lib/systemd/systemd-measure"
#define PCR_LINE "11:sha256="
#define TPM2_CC_POLICY_PCR 0x0000017fu
#define TPM2_ALG_SHA256 0x000bu
/* a DER RSA public key or a signature of a 16384-bit key is far less */
#define KEY_OUT_MAX 8192

const char *const uki_pcr_phases[UKI_PCR_NPHASES] = {
	"enter-initrd",
	"enter-initrd:leave-initrd",
	"enter-initrd:leave-initrd:sysinit",
	"enter-initrd:leave-initrd:sysinit:ready",
};

int uki_pcr_check(const char *uki, const char *key, const char *pub)
{
	int r;

	if (!key && !pub)
		return 0;
	if (!uki)
		return err_set("--uki-pcr-%s goes with --uki FILE.efi", key ? "key" : "public-key");
	if (!key || !pub)
		return err_set("--uki-pcr-%s needs --uki-pcr-%s too", key ? "key" : "public-key",
			       key ? "public-key" : "key");
	r = uki_key_file_check("--uki-pcr-key", key);
	if (r == 0)
		r = uki_key_file_check("--uki-pcr-public-key", pub);
	return r;
}

static int unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int uki_pcr_parse_values(const char *text, size_t len, size_t n, uint8_t values[][32])
{
	size_t got = 0, plen = strlen(PCR_LINE);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		bool ok = l == plen + 64 && memcmp(p, PCR_LINE, plen) == 0 && got < n;

		for (size_t i = 0; ok && i < 32; i++) {
			int hi = unhex(p[plen + 2 * i]), lo = unhex(p[plen + 2 * i + 1]);
			if (hi < 0 || lo < 0)
				ok = false;
			else
				values[got][i] = (uint8_t)(hi << 4 | lo);
		}
		if (!ok && got >= n && l == plen + 64)
			return err_set("systemd-measure: more than %zu PCR values", n);
		if (!ok)
			return err_set("systemd-measure: unexpected line '%.*s' (expected %s and 64 hex digits)",
				       (int)(l > 100 ? 100 : l), p, PCR_LINE);
		got++;
		p += l + (nl ? 1 : 0);
	}
	if (got != n)
		return err_set("systemd-measure: %zu PCR values, expected %zu", got, n);
	return 0;
}

static void put_be(uint8_t *p, uint32_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

void uki_pcr_policy(const uint8_t value[32], uint8_t pol[32])
{
	/* PolicyUpdate: H(old policy || TPM_CC_PolicyPCR || TPML_PCR_SELECTION
	 * || H(selected PCR values)), the selection one sha256 bank with
	 * PCR 11 (bit 3 of its second byte) */
	uint8_t msg[32 + 4 + 10 + 32] = { 0 };
	uint8_t *p = msg + 32;

	put_be(p, TPM2_CC_POLICY_PCR, 4);
	put_be(p + 4, 1, 4);
	put_be(p + 8, TPM2_ALG_SHA256, 2);
	p[10] = 3;
	p[11] = 0, p[12] = 1 << 3, p[13] = 0;
	uki_sha256(value, 32, p + 14);
	uki_sha256(msg, sizeof(msg), pol);
}

static void hex(struct buf *out, const uint8_t *d, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		char two[2] = { digits[d[i] >> 4], digits[d[i] & 15] };
		buf_append(out, two, 2);
	}
}

static void base64(struct buf *out, const uint8_t *d, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) |
			     (i + 2 < n ? d[i + 2] : 0);
		char four[4] = { a[v >> 18], a[(v >> 12) & 63], i + 1 < n ? a[(v >> 6) & 63] : '=',
				 i + 2 < n ? a[v & 63] : '=' };
		buf_append(out, four, 4);
	}
}

static void str(struct buf *out, const char *s)
{
	buf_append(out, s, strlen(s));
}

void uki_pcr_json(struct buf *out, const uint8_t pkfp[32], const uint8_t pol[][32], const struct buf *sigs,
		  size_t n)
{
	str(out, "{\"sha256\":[");
	for (size_t i = 0; i < n; i++) {
		str(out, i ? ",{\"pcrs\":[11],\"pkfp\":\"" : "{\"pcrs\":[11],\"pkfp\":\"");
		hex(out, pkfp, 32);
		str(out, "\",\"pol\":\"");
		hex(out, pol[i], 32);
		str(out, "\",\"sig\":\"");
		base64(out, (const uint8_t *)sigs[i].p, sigs[i].len);
		str(out, "\"}");
	}
	str(out, "]}");
}

/* A memfd holding data, for a tool to read as /dev/fd/N. */
static int memfd_with(const char *name, const void *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC), r;

	if (fd < 0)
		return err_errno(errno, "memfd_create");
	r = write_all(fd, data, len);
	if (r < 0) {
		close(fd);
		return err_errno(r, "memfd %s", name);
	}
	return fd;
}

/* One DER header at d (n bytes on): its content's length and where it
 * starts; -1 unless the tag is tag and the content lies within n. */
static int der_header(const uint8_t *d, size_t n, uint8_t tag, size_t *hdr, size_t *clen)
{
	size_t k, v = 0;

	if (n < 2 || d[0] != tag)
		return -1;
	if (d[1] < 0x80) {
		*hdr = 2;
		*clen = d[1];
	} else {
		k = d[1] & 0x7f;
		if (k == 0 || k > 3 || n < 2 + k)
			return -1;
		for (size_t i = 0; i < k; i++)
			v = v << 8 | d[2 + i];
		*hdr = 2 + k;
		*clen = v;
	}
	return *clen <= n - *hdr ? 0 : -1;
}

int uki_pcr_spki_rsa(const uint8_t *spki, size_t len, const uint8_t **rsa, size_t *rsa_len)
{
	/* AlgorithmIdentifier { rsaEncryption, NULL } */
	static const uint8_t alg[] = { 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
				       0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00 };
	size_t hdr, clen, bhdr, blen, rhdr, rlen;
	const uint8_t *p;

	if (der_header(spki, len, 0x30, &hdr, &clen) < 0 || hdr + clen != len)
		return err_set("not a DER public key (SubjectPublicKeyInfo)");
	p = spki + hdr;
	if (clen < sizeof(alg) || memcmp(p, alg, sizeof(alg)) != 0)
		return err_set("not an RSA public key (systemd 252 signs PCR policies with RSA only)");
	p += sizeof(alg);
	clen -= sizeof(alg);
	/* BIT STRING { no unused bits, RSAPublicKey }, to the end */
	if (der_header(p, clen, 0x03, &bhdr, &blen) < 0 || bhdr + blen != clen || blen < 2 || p[bhdr] != 0 ||
	    der_header(p + bhdr + 1, blen - 1, 0x30, &rhdr, &rlen) < 0 || rhdr + rlen != blen - 1)
		return err_set("not a DER public key (SubjectPublicKeyInfo)");
	*rsa = p + bhdr + 1;
	*rsa_len = blen - 1;
	return 0;
}

/* The DER SubjectPublicKeyInfo of a public key file (pub) or of a
 * private key's public half (openssl pkey: nothing said on success). */
static int public_der(const char *opt, const char *path, bool pub, struct buf *der)
{
	const char *pubargv[] = { "openssl", "pkey", "-pubin", "-in", path, "-outform", "DER", NULL };
	const char *keyargv[] = { "openssl", "pkey", "-in", path, "-pubout", "-outform", "DER", NULL };
	const uint8_t *rsa;
	size_t rsa_len;
	int r = run_tool_capture(pub ? pubargv : keyargv, "openssl", KEY_OUT_MAX, der);

	if (r < 0)
		return err_wrap("%s %s: not a %s key in PEM", opt, path, pub ? "public" : "private");
	r = uki_pcr_spki_rsa((const uint8_t *)der->p, der->len, &rsa, &rsa_len);
	if (r < 0)
		return err_wrap("%s %s", opt, path);
	return 0;
}

/* The sections this systemd-measure knows, from its --help: 252's knows
 * neither .uname (measured by the stubs of 254 and later, ignored by
 * 252's) nor .ucode (256 and later). */
static int measure_knows(const struct buf *help, const char *opt)
{
	char *want = xasprintf("--%s=", opt);
	bool found = help->len && memmem(help->p, help->len, want, strlen(want)) != NULL;
	free(want);
	return found;
}

static int measure(const struct uki_measured *s, size_t n, uint8_t values[][32])
{
	char phase_opts[UKI_PCR_NPHASES][64], *opts[8] = { 0 };
	const char *argv[3 + UKI_PCR_NPHASES + ARRAY_SIZE(opts) + 1] = { MEASURE, "calculate", "--bank=sha256" };
	int fds[ARRAY_SIZE(opts)], r = 0;
	size_t argc = 3, nfds = 0;
	struct buf out = { 0 };

	if (n > ARRAY_SIZE(opts))
		return err_set("%zu measured sections, at most %zu", n, ARRAY_SIZE(opts));
	for (size_t i = 0; i < UKI_PCR_NPHASES; i++) {
		snprintf(phase_opts[i], sizeof(phase_opts[i]), "--phase=%s", uki_pcr_phases[i]);
		argv[argc++] = phase_opts[i];
	}
	{
		const char *hargv[] = { MEASURE, "--help", NULL };
		r = run_tool_capture(hargv, "systemd", 64 * 1024, &out);
	}
	for (size_t i = 0; r == 0 && i < n; i++) {
		int fd;
		if (!measure_knows(&out, s[i].opt)) {
			if (strcmp(s[i].opt, "uname") == 0)
				continue;
			r = err_set("%s cannot measure a .%s section, which the stub would: no signed PCR "
				    "policy for it", MEASURE, s[i].opt);
			break;
		}
		fd = memfd_with(s[i].opt, s[i].data, s[i].len);
		if (fd < 0) {
			r = fd;
			break;
		}
		fds[nfds++] = fd;
		opts[i] = xasprintf("--%s=/dev/fd/%d", s[i].opt, fd);
		argv[argc++] = opts[i];
	}
	argv[argc] = NULL;
	out.len = 0;
	if (r == 0)
		r = run_tool_fds(argv, "systemd", fds, nfds, 4096, &out);
	if (r == 0)
		r = uki_pcr_parse_values(out.p, out.len, UKI_PCR_NPHASES, values);
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	for (size_t i = 0; i < n; i++)
		free(opts[i]);
	buf_free(&out);
	return r;
}

static int sign_policy(const char *key, const uint8_t pol[32], struct buf *sig)
{
	char in[32];
	const char *argv[] = { "openssl", "dgst", "-sha256", "-sign", key, "-binary", in, NULL };
	int fd = memfd_with("pcr-policy", pol, 32), r;

	if (fd < 0)
		return fd;
	snprintf(in, sizeof(in), "/dev/fd/%d", fd);
	r = run_tool_fds(argv, "openssl", &fd, 1, KEY_OUT_MAX, sig);
	close(fd);
	if (r < 0)
		return err_wrap("--uki-pcr-key %s", key);
	if (sig->len == 0)
		return err_set("--uki-pcr-key %s: openssl made an empty signature", key);
	return 0;
}

int uki_pcr_sign(const struct uki_measured *s, size_t n, const char *key, const char *pub, struct buf *pcrsig)
{
	uint8_t values[UKI_PCR_NPHASES][32], pol[UKI_PCR_NPHASES][32], pkfp[32];
	struct buf pubder = { 0 }, keyder = { 0 }, sigs[UKI_PCR_NPHASES] = { { 0 } };
	int r;

	r = public_der("--uki-pcr-public-key", pub, true, &pubder);
	if (r == 0)
		r = public_der("--uki-pcr-key", key, false, &keyder);
	if (r == 0 && (pubder.len != keyder.len || memcmp(pubder.p, keyder.p, pubder.len) != 0))
		r = err_set("--uki-pcr-key %s is not the private half of --uki-pcr-public-key %s", key, pub);
	if (r == 0)
		r = measure(s, n, values);
	for (size_t i = 0; r == 0 && i < UKI_PCR_NPHASES; i++) {
		uki_pcr_policy(values[i], pol[i]);
		r = sign_policy(key, pol[i], &sigs[i]);
	}
	if (r == 0) {
		/* 252's fingerprint: of the DER RSAPublicKey inside */
		const uint8_t *rsa;
		size_t rsa_len;
		uki_pcr_spki_rsa((const uint8_t *)pubder.p, pubder.len, &rsa, &rsa_len);
		uki_sha256(rsa, rsa_len, pkfp);
		uki_pcr_json(pcrsig, pkfp, pol, sigs, UKI_PCR_NPHASES);
	}
	buf_free(&pubder);
	buf_free(&keyder);
	for (size_t i = 0; i < UKI_PCR_NPHASES; i++)
		buf_free(&sigs[i]);
	return r;
}
