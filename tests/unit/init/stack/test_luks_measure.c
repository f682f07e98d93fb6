// SPDX-License-Identifier: GPL-2.0-or-later
/* The volume key into PCR 15 (src/init/stack/luks_measure.c): the
 * options tpm2-measure-pcr= and tpm2-measure-bank=, the keyring kept out
 * of cryptsetup's way, the string measured, the key read from a dm-crypt
 * table line and every line that holds none, and a measurement with no
 * TPM or with a dm table that is no crypt target. The measurement that
 * works is the boot test pcr15-volume-key's, against swtpm. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stack/luks_measure.h"
#include "init/stack/luks_opts.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

static void parse(struct luks_opts *o, const char *list)
{
	luks_opts_init(o);
	msgs_clear();
	luks_options_parse(o, list, "rd.luks.options");
}

static void test_options(void)
{
	struct luks_opts o, line, merged;
	const char *argv[LUKS_OPEN_ARGV + 1];
	char scratch[LUKS_SCRATCH][LUKS_ARG_MAX];

	msgs_capture(LOG_INFO);
	parse(&o, "tpm2-measure-pcr=yes");
	CHECK(o.measure_pcr == 15 && !o.measure_bank);
	CHECK_STR(msgs.p, "");
	CHECK(luks_opts_argv(&o, LUKS_ARGV_SECRET, argv, scratch) == 1);
	CHECK_STR(argv[0], "--disable-keyring");
	parse(&o, "tpm2-measure-pcr=7,tpm2-measure-bank=sha256:SHA1");
	CHECK(o.measure_pcr == 7);
	CHECK_STR(o.measure_bank, "sha256:SHA1");
	luks_opts_free(&o);
	/* a number first, as systemd-cryptsetup reads it: 1 is PCR 1 */
	parse(&o, "tpm2-measure-pcr=1");
	CHECK(o.measure_pcr == 1);
	parse(&o, "tpm2-measure-pcr=no");
	CHECK(o.measure_pcr == LUKS_MEASURE_NO);
	CHECK(luks_opts_argv(&o, LUKS_ARGV_SECRET, argv, scratch) == 0);
	parse(&o, "tpm2-measure-pcr=24");
	CHECK(o.measure_pcr == LUKS_MEASURE_UNSET);
	CHECK_STR(msgs.p, "<4>rd.luks.options: ignoring tpm2-measure-pcr=24: not a boolean or a PCR "
			  "number 0-23\n");
	parse(&o, "tpm2-measure-pcr");
	CHECK_STR(msgs.p, "<4>rd.luks.options: ignoring tpm2-measure-pcr=: not a boolean or a PCR "
			  "number 0-23\n");
	parse(&o, "tpm2-measure-bank=sha256:md5");
	CHECK(!o.measure_bank);
	CHECK_STR(msgs.p, "<4>rd.luks.options: ignoring tpm2-measure-bank=sha256:md5: \"md5\" is not "
			  "a PCR bank (sha1, sha256, sha384, sha512)\n");
	/* a crypttab line's on top of the command line's, "no" too */
	parse(&o, "tpm2-measure-pcr=yes,tpm2-measure-bank=sha1");
	luks_opts_init(&line);
	luks_options_parse(&line, "tpm2-measure-pcr=no", "/etc/crypttab root");
	luks_opts_merge(&merged, &o, &line);
	CHECK(merged.measure_pcr == LUKS_MEASURE_NO);
	CHECK_STR(merged.measure_bank, "sha1");
	luks_opts_free(&merged);
	luks_opts_merge(&merged, &o, NULL);
	CHECK(merged.measure_pcr == 15);
	luks_opts_free(&merged);
	luks_opts_free(&line);
	luks_opts_free(&o);
}

static void test_string(void)
{
	char *s = luks_measure_string("luks-5f0c", "5f0c1a4e-1b2d-4c3e-9f10-0000000001f5");

	CHECK_STR(s, "cryptsetup:luks-5f0c:5f0c1a4e-1b2d-4c3e-9f10-0000000001f5");
	free(s);
	/* the name's ':' cannot pass for the separator; '\' and control
	 * bytes escaped as systemd's xescape() does */
	s = luks_measure_string("a:b\\c\nd\xff", "u");
	CHECK_STR(s, "cryptsetup:a\\x3ab\\x5cc\\x0ad\\xff:u");
	free(s);
	s = luks_measure_string("root", NULL);
	CHECK_STR(s, "cryptsetup:root:");
	free(s);
}

static void test_table_key(void)
{
	unsigned char key[64];

	CHECK(luks_table_key("aes-xts-plain64 00ff10Ab 0 252:0 32768", key, sizeof(key)) == 4);
	CHECK(key[0] == 0x00 && key[1] == 0xff && key[2] == 0x10 && key[3] == 0xab);
	CHECK(luks_table_key("aes-xts-plain64 :64:logon:cryptsetup:5f0c-d0 0 252:0 32768", key,
			     sizeof(key)) == -EINVAL);
	CHECK_STR(err_msg(), "its key is in the kernel keyring, not in its dm-crypt table");
	CHECK(luks_table_key("cipher_null-ecb - 0 252:0 0", key, sizeof(key)) == -EINVAL);
	CHECK_STR(err_msg(), "its dm-crypt table's key is not a key (1 hexadecimal digits)");
	CHECK(luks_table_key("aes-xts-plain64 0g 0 252:0 0", key, sizeof(key)) == -EINVAL);
	CHECK_STR(err_msg(), "its dm-crypt table's key is not hexadecimal");
	CHECK(luks_table_key("aes-xts-plain64", key, sizeof(key)) == -EINVAL);
	CHECK_STR(err_msg(), "its dm-crypt table has no key");
	CHECK(luks_table_key("aes 001", key, sizeof(key)) == -EINVAL);
	CHECK(luks_table_key("aes 0011", key, 1) == -EINVAL);
	CHECK_STR(err_msg(), "its dm-crypt table's key is not a key (4 hexadecimal digits)");
}

static void test_measure_fails_softly(void)
{
	struct init in;
	struct fake_ops *f = fake_ops_new();
	struct luks_opts o;

	stack_script_start(f);
	stack_init_start(&in, f, "root=/dev/mapper/luks-1", &stack_script_ops);
	parse(&o, "tpm2-measure-pcr=yes");
	/* no TPM: said, nothing else tried */
	luks_measure(&in.stack_env, &o, "luks-1", "1");
	CHECK_STR(msgs.p, "<6>luks-1: no TPM2 device: its volume key is not measured into PCR 15\n");
	/* a TPM, and a dm table that is no crypt target */
	fake_write(f, "/dev/tpmrm0", "");
	fake_write(f, "/dev/mapper/control", "");
	msgs_clear();
	luks_measure(&in.stack_env, &o, "luks-1", "1");
	CHECK_STR(msgs.p, "<4>luks-1: the volume key was not measured into PCR 15: its dm table is not "
			  "one crypt target\n");
	/* not asked: nothing */
	msgs_clear();
	o.measure_pcr = LUKS_MEASURE_NO;
	luks_measure(&in.stack_env, &o, "luks-1", "1");
	CHECK_STR(msgs.p, "");
	luks_opts_free(&o);
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	RUN(test_options);
	RUN(test_string);
	RUN(test_table_key);
	RUN(test_measure_fails_softly);
	return test_done();
}
