// SPDX-License-Identifier: GPL-2.0-or-later
/* The PCR signature put where systemd's TPM2 token plugin reads it
 * (stack/luks_sig.c), against fake_ops: the stub's and tpm2-signature='s,
 * copied byte for byte; links, directories, oversized, missing and
 * malformed files refused by name with nothing left for the plugin; the
 * copy gone again. The JSON shape check (stack/luks_sig_json.c) on its
 * own: the grammar's edges, the depth bound, what systemd 252's plugin
 * refuses for its shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_ops.h"
#include "init/stack/luks_opts.h"
#include "init/stack/luks_sig.h"
#include "init/stack/luks_sig_json.h"
#include "log_capture.h"
#include "test.h"

#define SIG "{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"ab\",\"pol\":\"cd\",\"sig\":\"ef\"}]}"

static struct fake_ops *f;

static void start(void)
{
	f = fake_ops_new();
	fake_mkdir(f, "/run");
	msgs_capture(7);
}

static bool absent(const char *p)
{
	char *real = fake_path(f, p);
	struct stat st;
	bool gone = lstat(real, &st) < 0;

	free(real);
	return gone;
}

static void test_stub_copied(void)
{
	char *got;

	start();
	fake_write(f, LUKS_SIG_STUB, SIG);
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", NULL) == 1);
	got = fake_read(f, LUKS_SIG_RUN);
	CHECK_STR(got, SIG);
	free(got);
	luks_sig_unstage(&f->ops);
	CHECK(absent(LUKS_SIG_RUN));
	fake_ops_free(f);
}

static void test_no_stub_quiet(void)
{
	start();
	fake_write(f, LUKS_SIG_RUN, "stale");
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", NULL) == 0);
	CHECK(absent(LUKS_SIG_RUN));
	CHECK_STR(msgs.p, "");
	fake_ops_free(f);
}

static void test_option_path(void)
{
	char *got;

	start();
	fake_write(f, LUKS_SIG_STUB, "the stub's");
	fake_write(f, "/etc/sig.json", SIG);
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", "/etc/sig.json") == 1);
	got = fake_read(f, LUKS_SIG_RUN);
	CHECK_STR(got, SIG);
	free(got);
	CHECK(luks_sig_stage(&f->ops, "/dev/vda3", "/etc/none.json") == 0);
	CHECK(said("<4>/dev/vda3: tpm2-signature=/etc/none.json: no such file; the token's "
		   "signed PCR policy cannot be met\n"));
	CHECK(absent(LUKS_SIG_RUN));
	fake_ops_free(f);
}

static void test_not_regular(void)
{
	start();
	fake_write(f, "/etc/real.json", SIG);
	fake_symlink(f, "/etc/real.json", LUKS_SIG_STUB);
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", NULL) == 0);
	CHECK(said("<4>/dev/vda2: /.extra/tpm2-pcr-signature.json is not a regular file: not used "
		   "as a PCR signature\n"));
	CHECK(absent(LUKS_SIG_RUN));
	fake_mkdir(f, "/etc/dir.json");
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", "/etc/dir.json") == 0);
	CHECK(said("<4>/dev/vda2: /etc/dir.json is not a regular file: not used as a PCR "
		   "signature\n"));
	CHECK(absent(LUKS_SIG_RUN));
	fake_ops_free(f);
}

static void test_oversized(void)
{
	char *big = malloc(LUKS_SIG_MAX + 2);

	start();
	memset(big, '[', LUKS_SIG_MAX + 1);
	big[LUKS_SIG_MAX + 1] = 0;
	fake_write(f, LUKS_SIG_STUB, big);
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", NULL) == 0);
	CHECK(said("<4>/dev/vda2: /.extra/tpm2-pcr-signature.json is larger than 65536 bytes: not "
		   "used as a PCR signature\n"));
	CHECK(absent(LUKS_SIG_RUN));
	/* exactly the bound is taken, when it is a signature's JSON */
	memset(big, ' ', LUKS_SIG_MAX);
	memcpy(big, SIG, strlen(SIG));
	big[LUKS_SIG_MAX] = 0;
	fake_write(f, LUKS_SIG_STUB, big);
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", NULL) == 1);
	luks_sig_unstage(&f->ops);
	free(big);
	fake_ops_free(f);
}

/* text's verdict and where, as luks_sig_json_check gives them */
static bool judged(const char *text, enum luks_sig_json want, size_t want_at)
{
	size_t at = 9999;
	enum luks_sig_json got = luks_sig_json_check(text, strlen(text), &at);

	if (got != want || (want != LUKS_SIG_JSON_OK && at != want_at)) {
		fprintf(stderr, "  %s: got %d at %zu, want %d at %zu\n", text, got, at, want, want_at);
		return false;
	}
	return true;
}

/* a signature whose entry's member nests arrays: levels brackets in all */
static const char *nested(char *buf, int levels)
{
	int k = sprintf(buf, "{\"a\":[{\"b\":");

	for (int d = 3; d < levels; d++)
		buf[k++] = '[';
	buf[k++] = '1';
	for (int d = 3; d < levels; d++)
		buf[k++] = ']';
	strcpy(buf + k, "}]}");
	return buf;
}

static void test_json_shape(void)
{
	char deep[2 * LUKS_SIG_JSON_DEPTH + 32];
	size_t at = 9999;

	/* what systemd-measure writes, and what else the plugin reads */
	CHECK(judged(SIG, LUKS_SIG_JSON_OK, 0));
	CHECK(judged(" {}\n", LUKS_SIG_JSON_OK, 0));
	CHECK(judged("{\"sha256\":[],\"sha1\":[{}]}", LUKS_SIG_JSON_OK, 0));
	CHECK(judged("{\"sha256\":[{\"pcrs\":[11,-0.5e+3,1E2],\"x\":\"\\u00e9\\n\\/\","
		     "\"y\":[true,false,null,{}]}]}", LUKS_SIG_JSON_OK, 0));
	/* empty, cut short, more after it */
	CHECK(judged("", LUKS_SIG_JSON_EMPTY, 0));
	CHECK(judged(" \n\t", LUKS_SIG_JSON_EMPTY, 0));
	CHECK(judged("{\"sha256\":[{\"pcrs\":", LUKS_SIG_JSON_SYNTAX, 19));
	CHECK(judged("{\"sha256\":[{}]", LUKS_SIG_JSON_SYNTAX, 14));
	CHECK(judged("{\"sha256", LUKS_SIG_JSON_SYNTAX, 8));
	CHECK(judged("{} {}", LUKS_SIG_JSON_SYNTAX, 3));
	/* the grammar's edges */
	CHECK(judged("{\"a\":[01]}", LUKS_SIG_JSON_SYNTAX, 7));
	CHECK(judged("{\"a\":[1.]}", LUKS_SIG_JSON_SYNTAX, 8));
	CHECK(judged("{\"a\":[1e]}", LUKS_SIG_JSON_SYNTAX, 8));
	CHECK(judged("{\"a\":[-]}", LUKS_SIG_JSON_SYNTAX, 7));
	CHECK(judged("{\"a\":[tru]}", LUKS_SIG_JSON_SYNTAX, 6));
	CHECK(judged("{\"a\":[1,]}", LUKS_SIG_JSON_SYNTAX, 8));
	CHECK(judged("{\"a\":[],}", LUKS_SIG_JSON_SYNTAX, 8));
	CHECK(judged("{a:[]}", LUKS_SIG_JSON_SYNTAX, 1));
	CHECK(judged("{\"a\" []}", LUKS_SIG_JSON_SYNTAX, 5));
	CHECK(judged("{\"a\":[\"\\x\"]}", LUKS_SIG_JSON_SYNTAX, 8));
	CHECK(judged("{\"a\":[\"\\u12g4\"]}", LUKS_SIG_JSON_SYNTAX, 11));
	CHECK(judged("{\"a\":[\"\t\"]}", LUKS_SIG_JSON_SYNTAX, 7));
	CHECK(judged("{\"a\":[\"\\", LUKS_SIG_JSON_SYNTAX, 8));
	CHECK(judged("{'a':[]}", LUKS_SIG_JSON_SYNTAX, 1));
	/* a NUL is no JSON, wherever it is */
	CHECK(luks_sig_json_check("{}\0", 3, &at) == LUKS_SIG_JSON_SYNTAX && at == 2);
	CHECK(luks_sig_json_check("{\"a\0\":[]}", 9, &at) == LUKS_SIG_JSON_SYNTAX && at == 3);
	/* the shape: an object of arrays of objects */
	CHECK(judged("[{\"sha256\":[]}]", LUKS_SIG_JSON_NOT_OBJECT, 0));
	CHECK(judged("  \"sig\"", LUKS_SIG_JSON_NOT_OBJECT, 2));
	CHECK(judged("{\"sha256\":{\"pcrs\":[11]}}", LUKS_SIG_JSON_NOT_BANK, 10));
	CHECK(judged("{\"sha256\":[{}], \"sha1\": [{}, 11]}", LUKS_SIG_JSON_NOT_BANK, 29));
	/* a syntax error wins over a shape one seen before it */
	CHECK(judged("{\"sha256\":7,", LUKS_SIG_JSON_SYNTAX, 12));
	/* the depth bound: the entries' contents may nest, not without end */
	CHECK(judged(nested(deep, LUKS_SIG_JSON_DEPTH), LUKS_SIG_JSON_OK, 0));
	CHECK(judged(nested(deep, LUKS_SIG_JSON_DEPTH + 1), LUKS_SIG_JSON_DEEP,
		     11 + LUKS_SIG_JSON_DEPTH - 3));
}

static void test_malformed(void)
{
	start();
	fake_write(f, LUKS_SIG_STUB, "{\"sha256\":[{\"pcrs\":");
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", NULL) == 0);
	CHECK(said("<4>/dev/vda2: /.extra/tpm2-pcr-signature.json is not JSON (at byte 19): not "
		   "used as a PCR signature\n"));
	CHECK(absent(LUKS_SIG_RUN));
	fake_write(f, "/etc/sig.json", "{\"sha256\":{\"pcrs\":[11]}}");
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", "/etc/sig.json") == 0);
	CHECK(said("<4>/dev/vda2: /etc/sig.json has a bank that is not an array of objects (at "
		   "byte 10): not used as a PCR signature\n"));
	fake_write(f, "/etc/sig.json", "[]");
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", "/etc/sig.json") == 0);
	CHECK(said("<4>/dev/vda2: /etc/sig.json is not a JSON object of PCR banks: not used as a "
		   "PCR signature\n"));
	fake_write(f, "/etc/sig.json", "\n");
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", "/etc/sig.json") == 0);
	CHECK(said("<4>/dev/vda2: /etc/sig.json is empty: not used as a PCR signature\n"));
	CHECK(absent(LUKS_SIG_RUN));
	fake_ops_free(f);
}

static void test_cannot_create(void)
{
	start();
	fake_write(f, LUKS_SIG_STUB, SIG);
	fake_fail(f, "open", LUKS_SIG_RUN, 28 /* ENOSPC */);
	CHECK(luks_sig_stage(&f->ops, "/dev/vda2", NULL) == 0);
	CHECK(said("<4>/dev/vda2: cannot create /run/systemd/tpm2-pcr-signature.json: No space "
		   "left on device\n"));
	fake_ops_free(f);
}

static void test_option_words(void)
{
	struct luks_opts o, m, over;

	msgs_capture(7);
	luks_opts_init(&o);
	luks_opts_init(&over);
	luks_options_parse(&o, "tpm2-signature=sig.json,tpm2-signature=/a/../b", "/etc/crypttab r");
	CHECK(!o.tpm2_signature);
	CHECK(said("<4>/etc/crypttab r: ignoring tpm2-signature=sig.json: expected an absolute "
		   "path with no ..\n"));
	CHECK(said("<4>/etc/crypttab r: ignoring tpm2-signature=/a/../b: expected an absolute "
		   "path with no ..\n"));
	CHECK(!said("<4>/etc/crypttab r: tpm2-signature is not supported here; ignoring it\n"));
	luks_options_parse(&o, "tpm2-signature=/etc/a.json", "rd.luks.options");
	luks_options_parse(&over, "tpm2-signature=/etc/b.json", "/etc/crypttab r");
	luks_opts_merge(&m, &o, &over);
	CHECK_STR(m.tpm2_signature, "/etc/b.json");
	luks_opts_free(&m);
	luks_opts_merge(&m, &o, NULL);
	CHECK_STR(m.tpm2_signature, "/etc/a.json");
	luks_opts_free(&m);
	luks_opts_free(&o);
	luks_opts_free(&over);
}

int main(void)
{
	RUN(test_stub_copied);
	RUN(test_no_stub_quiet);
	RUN(test_option_path);
	RUN(test_not_regular);
	RUN(test_oversized);
	RUN(test_json_shape);
	RUN(test_malformed);
	RUN(test_cannot_create);
	RUN(test_option_words);
	return test_done();
}
