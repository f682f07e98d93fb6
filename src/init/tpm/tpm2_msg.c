// SPDX-License-Identifier: GPL-2.0-or-later
/* TPM 2.0 commands and answers as bytes (tpm2_msg.h): big-endian
 * fields, a 10-byte header (tag, size, code) on each. Plain
 * marshalling, as the kernel's own trusted-keys code does it, so the
 * init needs no TSS library for the few commands a measurement takes. */
#include "init/tpm/tpm2_msg.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "err.h"

#define ST_NO_SESSIONS 0x8001
#define ST_SESSIONS 0x8002
#define CC_GET_CAPABILITY 0x0000017a
#define CC_PCR_READ 0x0000017e
#define CC_PCR_EXTEND 0x00000182
#define CAP_PCRS 0x00000005
#define RS_PW 0x40000009 /* the password session, here with the empty password */
#define PCR_SELECT_SIZE 3 /* PCRs 0-23, as every PC client TPM has */

const char *tpm2_alg_name(uint16_t alg)
{
	switch (alg) {
	case TPM2_ALG_SHA1: return "sha1";
	case TPM2_ALG_SHA256: return "sha256";
	case TPM2_ALG_SHA384: return "sha384";
	case TPM2_ALG_SHA512: return "sha512";
	default: return NULL;
	}
}

size_t tpm2_alg_size(uint16_t alg)
{
	switch (alg) {
	case TPM2_ALG_SHA1: return 20;
	case TPM2_ALG_SHA256: return 32;
	case TPM2_ALG_SHA384: return 48;
	case TPM2_ALG_SHA512: return 64;
	default: return 0;
	}
}

static size_t put16(uint8_t *b, size_t off, uint16_t v)
{
	b[off] = (uint8_t)(v >> 8);
	b[off + 1] = (uint8_t)v;
	return off + 2;
}

static size_t put32(uint8_t *b, size_t off, uint32_t v)
{
	put16(b, off, (uint16_t)(v >> 16));
	return put16(b, off + 2, (uint16_t)v);
}

/* The header, its size filled in once the body is there. */
static size_t header(uint8_t *b, uint16_t tag, uint32_t cc)
{
	put16(b, 0, tag);
	put32(b, 2, 0);
	return put32(b, 6, cc);
}

static size_t done(uint8_t *b, size_t len)
{
	put32(b, 2, (uint32_t)len);
	return len;
}

size_t tpm2_cmd_get_pcrs(uint8_t *buf)
{
	size_t o = header(buf, ST_NO_SESSIONS, CC_GET_CAPABILITY);

	o = put32(buf, o, CAP_PCRS);
	o = put32(buf, o, 0); /* property: none for this capability */
	o = put32(buf, o, 1); /* one TPML_PCR_SELECTION */
	return done(buf, o);
}

size_t tpm2_cmd_pcr_read(uint8_t *buf, uint16_t alg, unsigned pcr)
{
	size_t o = header(buf, ST_NO_SESSIONS, CC_PCR_READ);

	o = put32(buf, o, 1);
	o = put16(buf, o, alg);
	buf[o++] = PCR_SELECT_SIZE;
	memset(buf + o, 0, PCR_SELECT_SIZE);
	if (pcr < 8 * PCR_SELECT_SIZE)
		buf[o + pcr / 8] = (uint8_t)(1u << (pcr % 8));
	o += PCR_SELECT_SIZE;
	return done(buf, o);
}

size_t tpm2_cmd_pcr_extend(uint8_t *buf, unsigned pcr, const struct tpm2_digest *d, size_t n)
{
	size_t o = header(buf, ST_SESSIONS, CC_PCR_EXTEND);

	o = put32(buf, o, pcr); /* a PCR's handle is its number */
	o = put32(buf, o, 9);   /* the authorization area: */
	o = put32(buf, o, RS_PW);
	o = put16(buf, o, 0);   /* no nonce */
	buf[o++] = 0;           /* no attributes */
	o = put16(buf, o, 0);   /* the empty password */
	if (n > TPM2_BANKS_MAX)
		n = TPM2_BANKS_MAX;
	o = put32(buf, o, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		size_t len = d[i].len <= TPM2_DIGEST_MAX ? d[i].len : TPM2_DIGEST_MAX;

		o = put16(buf, o, d[i].alg);
		memcpy(buf + o, d[i].d, len);
		o += len;
	}
	return done(buf, o);
}

/* A reader over an answer: every get checks the room left. */
struct rd {
	const uint8_t *p;
	size_t len, off;
	const char *cmd;
};

static int short_answer(const struct rd *r, const char *what)
{
	return err_set_code(-EPROTO, "the TPM's answer to %s ends at byte %zu, before its %s", r->cmd,
			    r->len, what);
}

static int get8(struct rd *r, uint8_t *v, const char *what)
{
	if (r->len - r->off < 1)
		return short_answer(r, what);
	*v = r->p[r->off++];
	return 0;
}

static int get16(struct rd *r, uint16_t *v, const char *what)
{
	if (r->len - r->off < 2)
		return short_answer(r, what);
	*v = (uint16_t)(r->p[r->off] << 8 | r->p[r->off + 1]);
	r->off += 2;
	return 0;
}

static int get32(struct rd *r, uint32_t *v, const char *what)
{
	if (r->len - r->off < 4)
		return short_answer(r, what);
	*v = (uint32_t)r->p[r->off] << 24 | (uint32_t)r->p[r->off + 1] << 16 |
	     (uint32_t)r->p[r->off + 2] << 8 | r->p[r->off + 3];
	r->off += 4;
	return 0;
}

/* The header: its size the answer's length, its code success, its tag
 * the one asked for. */
static int head(struct rd *r, uint16_t want_tag)
{
	uint16_t tag = 0;
	uint32_t size = 0, rc = 0;
	int e;

	if ((e = get16(r, &tag, "header")) < 0 || (e = get32(r, &size, "header")) < 0 ||
	    (e = get32(r, &rc, "header")) < 0)
		return e;
	if (size != r->len)
		return err_set_code(-EPROTO, "the TPM's answer to %s says it is %u bytes long, but it "
				    "is %zu", r->cmd, size, r->len);
	if (rc)
		return err_set_code(-EIO, "the TPM refused %s: response code 0x%x", r->cmd, rc);
	if (tag != want_tag)
		return err_set_code(-EPROTO, "the TPM's answer to %s has the tag 0x%04x, not 0x%04x",
				    r->cmd, tag, want_tag);
	return 0;
}

static int end(const struct rd *r)
{
	if (r->off != r->len)
		return err_set_code(-EPROTO, "the TPM's answer to %s has %zu bytes after its end",
				    r->cmd, r->len - r->off);
	return 0;
}

/* A TPML_PCR_SELECTION into out (NULL: checked and skipped). */
static int selections(struct rd *r, struct tpm2_banks *out)
{
	uint32_t n = 0;
	int e;

	if ((e = get32(r, &n, "count of banks")) < 0)
		return e;
	if (n > TPM2_BANKS_MAX)
		return err_set_code(-EPROTO, "the TPM's answer to %s counts %u banks (at most %d)",
				    r->cmd, n, TPM2_BANKS_MAX);
	if (out)
		out->n = n;
	for (uint32_t i = 0; i < n; i++) {
		struct tpm2_bank b = { 0 };

		if ((e = get16(r, &b.alg, "bank's hash")) < 0 ||
		    (e = get8(r, &b.nselect, "bank's PCR selection")) < 0)
			return e;
		if (b.nselect > TPM2_SELECT_MAX)
			return err_set_code(-EPROTO, "the TPM's answer to %s selects %u bytes of PCRs "
					    "(at most %d)", r->cmd, b.nselect, TPM2_SELECT_MAX);
		if (r->len - r->off < b.nselect)
			return short_answer(r, "bank's PCR selection");
		memcpy(b.select, r->p + r->off, b.nselect);
		r->off += b.nselect;
		if (out)
			out->v[i] = b;
	}
	return 0;
}

int tpm2_rsp_get_pcrs(const uint8_t *rsp, size_t len, struct tpm2_banks *out)
{
	struct rd r = { rsp, len, 0, "TPM2_GetCapability" };
	uint8_t more = 0;
	uint32_t cap = 0;
	int e;

	memset(out, 0, sizeof(*out));
	if ((e = head(&r, ST_NO_SESSIONS)) < 0 || (e = get8(&r, &more, "moreData")) < 0 ||
	    (e = get32(&r, &cap, "capability")) < 0)
		return e;
	if (cap != CAP_PCRS)
		return err_set_code(-EPROTO, "the TPM's answer to TPM2_GetCapability is capability %u, "
				    "not the PCRs' (%u)", cap, CAP_PCRS);
	if ((e = selections(&r, out)) < 0 || (e = end(&r)) < 0)
		memset(out, 0, sizeof(*out)); /* a refused answer gives no bank */
	return e;
}

int tpm2_rsp_pcr_read(const uint8_t *rsp, size_t len, uint16_t alg, struct tpm2_digest *out)
{
	struct rd r = { rsp, len, 0, "TPM2_PCR_Read" };
	struct tpm2_banks sel;
	uint32_t counter = 0, n = 0;
	uint16_t size = 0;
	int e;

	memset(out, 0, sizeof(*out));
	out->alg = alg;
	if ((e = head(&r, ST_NO_SESSIONS)) < 0 || (e = get32(&r, &counter, "update counter")) < 0 ||
	    (e = selections(&r, &sel)) < 0 || (e = get32(&r, &n, "count of digests")) < 0)
		return e;
	if (n > 1)
		return err_set_code(-EPROTO, "the TPM's answer to TPM2_PCR_Read has %u digests for "
				    "the one PCR asked for", n);
	if (n == 0)
		return end(&r);
	if (sel.n != 1 || sel.v[0].alg != alg)
		return err_set_code(-EPROTO, "the TPM's answer to TPM2_PCR_Read is not of the bank "
				    "asked for (0x%04x)", alg);
	if ((e = get16(&r, &size, "digest's size")) < 0)
		return e;
	if (size != tpm2_alg_size(alg))
		return err_set_code(-EPROTO, "the TPM's answer to TPM2_PCR_Read has a %u-byte digest "
				    "for a %zu-byte hash", size, tpm2_alg_size(alg));
	if (r.len - r.off < size)
		return short_answer(&r, "digest");
	r.off += size;
	if ((e = end(&r)) < 0)
		return e;
	memcpy(out->d, r.p + r.off - size, size);
	out->len = size;
	return 0;
}

int tpm2_rsp_pcr_extend(const uint8_t *rsp, size_t len)
{
	struct rd r = { rsp, len, 0, "TPM2_PCR_Extend" };
	uint32_t params = 0;
	uint16_t nonce = 0, hmac = 0;
	uint8_t attrs = 0;
	int e;

	if ((e = head(&r, ST_SESSIONS)) < 0 || (e = get32(&r, &params, "parameter size")) < 0)
		return e;
	/* PCR_Extend answers no parameters; then the password session's
	 * empty acknowledgement */
	if (params)
		return err_set_code(-EPROTO, "the TPM's answer to TPM2_PCR_Extend has %u bytes of "
				    "parameters (it has none)", params);
	if ((e = get16(&r, &nonce, "session's nonce")) < 0)
		return e;
	if (nonce > r.len - r.off)
		return short_answer(&r, "session's nonce");
	r.off += nonce;
	if ((e = get8(&r, &attrs, "session's attributes")) < 0 ||
	    (e = get16(&r, &hmac, "session's HMAC")) < 0)
		return e;
	if (hmac > r.len - r.off)
		return short_answer(&r, "session's HMAC");
	r.off += hmac;
	return end(&r);
}

int tpm2_bank_has24(const struct tpm2_bank *b)
{
	if (b->nselect < 3)
		return 0;
	return b->select[0] == 0xff && b->select[1] == 0xff && b->select[2] == 0xff;
}

int tpm2_parse_banks(const char *text, struct tpm2_banks *out)
{
	static const uint16_t known[] = { TPM2_ALG_SHA1, TPM2_ALG_SHA256, TPM2_ALG_SHA384,
					  TPM2_ALG_SHA512 };
	const char *p = text;

	out->n = 0;
	for (;;) {
		size_t len = strcspn(p, ":");
		size_t k;

		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (strlen(tpm2_alg_name(known[k])) == len &&
			    !strncasecmp(p, tpm2_alg_name(known[k]), len))
				break;
		if (k == sizeof(known) / sizeof(known[0]))
			return err_set("tpm2-measure-bank=%s: \"%.*s\" is not a PCR bank (sha1, sha256, "
				       "sha384, sha512)", text, (int)len, p);
		if (out->n == TPM2_BANKS_MAX)
			return err_set("tpm2-measure-bank=%s: more than %d banks", text, TPM2_BANKS_MAX);
		out->v[out->n++].alg = known[k];
		if (!p[len])
			return (int)out->n;
		p += len + 1;
	}
}
