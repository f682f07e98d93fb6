// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS2 tokens in the init against fake ops: the LUKS2 header scan, the
 * cryptsetup open --token-only arguments for each token type, the
 * systemd-cryptsetup option spellings (and the warning for each one not
 * acted on), and the fall back to the passphrase when no token opens. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stack/luks_token.h"
#include "init/stack/stack.h"
#include "layout.h"
#include "log.h"
#include "luks2.h"
#include "stack_helpers.h"
#include "test.h"

#define U1 "0f5c1e3a-7b2d-4c8e-9a6f-1d2e3f4a5b6c"
#define TPM2_JSON                                                                           \
	"{\"keyslots\":{\"0\":{\"type\":\"luks2\"},\"1\":{\"type\":\"luks2\"}},"               \
	"\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],"                   \
	"\"tpm2-pcrs\":[]}},\"segments\":{\"0\":{\"type\":\"crypt\"}}}"
#define NO_TOKENS_JSON "{\"keyslots\":{\"0\":{\"type\":\"luks2\"}},\"tokens\":{},\"config\":{}}"


static struct fake_ops *setup(struct init *in, const char *cmdline, bool plugins)
{
	struct fake_ops *f = fake_ops_new();

	stack_script_start(f);
	stack_script.log_env = true;
	fake_tool(f, "/usr/sbin/cryptsetup");
	fake_mkdir(f, "/dev");
	if (plugins)
		fake_write(f, LAYOUT_TOKENS_FILE, "dir=/usr/lib/x86_64-linux-gnu/cryptsetup\n");
	stack_init_start(in, f, cmdline, &stack_script_ops);
	return f;
}

/* An image with the token plugins, /dev/vda2 a LUKS2 device with a
 * systemd-tpm2 token, the TPM2 device tpm (NULL: none), the stack set up. */
static struct fake_ops *setup_tpm2(struct init *in, const char *cmdline, const char *tpm)
{
	struct fake_ops *f = setup(in, cmdline, true);

	stack_luks2_header(f, "/dev/vda2", TPM2_JSON);
	if (tpm)
		fake_write(f, tpm, "");
	stack_setup(&in->stack_env);
	return f;
}


static void finish(struct fake_ops *f, struct init *in)
{
	stack_init_finish(f, in, test_cur_failed);
}

static void event(struct init *in, const char *name)
{
	stack_event(in, name, "crypto_LUKS", U1);
}

static void test_header_scan(void)
{
	unsigned char bin[LUKS2_BIN_HDR] = "LUKS\xba\xbe\0\2\0\0\0\0\0\0\x40\0";

	CHECK(luks2_hdr_size(bin, sizeof(bin)) == 16384);
	CHECK(luks2_hdr_size(bin, 100) == 0); /* cut short */
	bin[7] = 1;
	CHECK(luks2_hdr_size(bin, sizeof(bin)) == 0); /* LUKS1 */
	bin[7] = 2;
	bin[9] = 0xff; /* far past LUKS2_HDR_MAX */
	CHECK(luks2_hdr_size(bin, sizeof(bin)) == 0);

	CHECK(luks2_token_types(TPM2_JSON, strlen(TPM2_JSON)) ==
	      (LUKS2_TOKEN_TPM2 | LUKS2_TOKEN_TPM2_NOPIN));
	CHECK(luks2_token_types(NO_TOKENS_JSON, strlen(NO_TOKENS_JSON)) == 0);
	CHECK(luks2_token_types("{ \"tokens\" : { \"0\" : { \"type\" : \"systemd-fido2\" },"
				"\"1\":{\"type\":\"systemd-pkcs11\"},\"2\":{\"type\":\"luks2-keyring\"}}}",
				1000) == (LUKS2_TOKEN_FIDO2 | LUKS2_TOKEN_PKCS11 | LUKS2_TOKEN_OTHER));
	/* a "type" outside tokens, or deeper inside one, is no token's type */
	CHECK(luks2_token_types("{\"keyslots\":{\"0\":{\"type\":\"systemd-tpm2\"}},\"tokens\":"
				"{\"0\":{\"x\":{\"type\":\"systemd-tpm2\"},\"type\":\"t\"}}}", 200) ==
	      LUKS2_TOKEN_OTHER);
	/* an escaped quote does not end a string; cut short or unclosed: nothing */
	CHECK(luks2_token_types("{\"tokens\":{\"0\":{\"a\":\"\\\"}\",\"type\":\"systemd-tpm2\"}}}",
				200) == (LUKS2_TOKEN_TPM2 | LUKS2_TOKEN_TPM2_NOPIN));
	CHECK(luks2_token_types("{\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\"", 200) == 0);
	CHECK(luks2_token_types("{\"tokens\":{\"0\":{\"type\":\"systemd-tp", 200) == 0);
	CHECK(luks2_token_types("}}}{\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\"}}}", 200) == 0);
	CHECK(luks2_token_types(TPM2_JSON, 20) == 0);
}

static void test_argv(void)
{
	const char *argv[LUKS_TOKEN_ARGV];
	char scratch[LUKS_SCRATCH][LUKS_ARG_MAX];
	struct luks_opts o;
	struct buf b = { 0 };
	static const char *const types[] = { NULL, LUKS_TOKEN_TPM2, LUKS_TOKEN_FIDO2,
					     LUKS_TOKEN_PKCS11 };

	for (size_t t = 0; t < 4; t++) {
		for (int discard = 0; discard < 2; discard++) {
			size_t n;
			luks_opts_init(&o);
			o.type = types[t];
			o.discard = discard;
			n = luks_token_argv(argv, scratch, &o, "/dev/vda2", "root");
			CHECK(argv[n] == NULL);
			for (size_t i = 0; i < n; i++)
				buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
			buf_printf(&b, "\n");
		}
	}
	CHECK_STR(b.p, "cryptsetup open --token-only /dev/vda2 root\n"
		       "cryptsetup open --token-only --allow-discards /dev/vda2 root\n"
		       "cryptsetup open --token-only --token-type systemd-tpm2 /dev/vda2 root\n"
		       "cryptsetup open --token-only --token-type systemd-tpm2 --allow-discards "
		       "/dev/vda2 root\n"
		       "cryptsetup open --token-only --token-type systemd-fido2 /dev/vda2 root\n"
		       "cryptsetup open --token-only --token-type systemd-fido2 --allow-discards "
		       "/dev/vda2 root\n"
		       "cryptsetup open --token-only --token-type systemd-pkcs11 /dev/vda2 root\n"
		       "cryptsetup open --token-only --token-type systemd-pkcs11 --allow-discards "
		       "/dev/vda2 root\n");
	buf_free(&b);
	/* a detached header and the workqueue options reach the token open too */
	luks_opts_init(&o);
	luks_options_parse(&o, "header=/etc/uniramfs/keys/root.hdr,no-read-workqueue,"
			       "no-write-workqueue,keyfile-offset=4", "test");
	{
		size_t n = luks_token_argv(argv, scratch, &o, "/dev/vda2", "root");
		for (size_t i = 0; i < n; i++)
			buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
	}
	CHECK_STR(b.p, "cryptsetup open --token-only --perf-no_read_workqueue "
		       "--perf-no_write_workqueue --header=/etc/uniramfs/keys/root.hdr /dev/vda2 root");
	luks_opts_free(&o);
	buf_free(&b);
}

static void parse(struct luks_opts *o, bool *discard, const char *list)
{
	luks_opts_init(o);
	msgs_clear();
	luks_options_parse(o, list, "rd.luks.options");
	*discard = o->discard;
}

static void test_options(void)
{
	struct luks_opts o;
	bool d;

	msgs_capture(LOG_INFO);
	parse(&o, &d, "tpm2-device=auto,discard");
	CHECK(o.type && !strcmp(o.type, LUKS_TOKEN_TPM2) && o.tpm2_asked && !o.tpm2_device && d);
	CHECK_STR(msgs.p, "");
	parse(&o, &d, "tpm2-device=/dev/tpmrm1,token-timeout=10");
	CHECK(o.tpm2_device && !strcmp(o.tpm2_device, "/dev/tpmrm1") && o.timeout_s == 10 && !d);
	luks_opts_free(&o);
	parse(&o, &d, "tpm2-device=tpmrm0");
	CHECK(!o.type && !o.tpm2_asked);
	CHECK_STR(msgs.p, "<4>rd.luks.options: ignoring tpm2-device=tpmrm0: expected auto or a "
			  "/dev path\n");
	/* fuzz_crypttab: a last ".." slipped past a check for "/../" */
	parse(&o, &d, "tpm2-device=/dev/..,tpm2-device=/dev/../sda");
	CHECK(!o.tpm2_device && !o.tpm2_asked);
	CHECK_STR(msgs.p, "<4>rd.luks.options: ignoring tpm2-device=/dev/..: expected auto or a /dev path\n"
			  "<4>rd.luks.options: ignoring tpm2-device=/dev/../sda: expected auto or a /dev path\n");
	parse(&o, &d, "fido2-device=auto");
	CHECK(o.type && !strcmp(o.type, LUKS_TOKEN_FIDO2));
	CHECK_STR(msgs.p, "");
	parse(&o, &d, "fido2-device=/dev/hidraw0");
	CHECK(o.type && !strcmp(o.type, LUKS_TOKEN_FIDO2));
	CHECK_STR(msgs.p, "<4>rd.luks.options: fido2-device=/dev/hidraw0: cryptsetup's plugin "
			  "finds the key itself; trying any FIDO2 token\n");
	parse(&o, &d, "pkcs11-uri=auto");
	CHECK(o.type && !strcmp(o.type, LUKS_TOKEN_PKCS11));
	parse(&o, &d, "pkcs11-uri=pkcs11:token=yk");
	CHECK(o.type && !strcmp(o.type, LUKS_TOKEN_PKCS11));
	CHECK_STR(msgs.p, "<4>rd.luks.options: pkcs11-uri=pkcs11:token=yk: the token's own URI "
			  "is used; trying any PKCS#11 token\n");
	/* two kinds: cryptsetup takes one --token-type, so none: any token */
	parse(&o, &d, "tpm2-device=auto,fido2-device=auto,tpm2-device=auto");
	CHECK(!o.type && o.mixed && o.tpm2_asked);
	parse(&o, &d, "token-timeout=5s");
	CHECK(o.timeout_s == 5);
	parse(&o, &d, "token-timeout=1500ms");
	CHECK(o.timeout_s == 2);
	parse(&o, &d, "token-timeout=2min");
	CHECK(o.timeout_s == 120);
	parse(&o, &d, "token-timeout=0");
	CHECK(o.timeout_s == 0 && o.timeout_given);
	parse(&o, &d, "token-timeout=soon");
	CHECK(!o.timeout_given);
	CHECK_STR(msgs.p, "<4>rd.luks.options: ignoring token-timeout=soon: not a time in seconds\n");
	parse(&o, &d, "headless");
	CHECK(o.headless);
	parse(&o, &d, "headless=yes,headless=0");
	CHECK(!o.headless);
	parse(&o, &d, "headless=maybe");
	CHECK_STR(msgs.p, "<4>rd.luks.options: ignoring headless=maybe: not a boolean\n");
	parse(&o, &d, "tpm2-pcrs=7,try-empty-password=yes,luks,noauto");
	CHECK(!o.type);
	CHECK_STR(msgs.p, "<4>rd.luks.options: tpm2-pcrs is not supported here; ignoring it\n"
			  "<4>rd.luks.options: try-empty-password is not supported here; ignoring it\n"
			  "<4>rd.luks.options: noauto is not supported here; ignoring it\n");
	/* accepted means honoured: what is not acted on is named (issue 26),
	 * but for the options that ask for what happens anyway */
	parse(&o, &d, "readonly,cipher=aes-xts-plain64,same-cpu-crypt");
	CHECK_STR(msgs.p, "<4>rd.luks.options: readonly is not supported here; ignoring it\n"
			  "<4>rd.luks.options: cipher is not supported here; ignoring it\n"
			  "<4>rd.luks.options: same-cpu-crypt is not supported here; ignoring it\n");
	parse(&o, &d, "luks,initramfs,x-initrd.attach,noearly,_netdev,x-systemd.device-timeout=10s");
	CHECK_STR(msgs.p, "");
	/* cryptsetup open's own */
	parse(&o, &d, "header=/etc/keys/root.hdr,keyfile-offset=512,keyfile-size=64,tries=0,"
		      "no-read-workqueue,no-write-workqueue");
	CHECK(o.header && !strcmp(o.header, "/etc/keys/root.hdr") && o.keyfile_offset == 512 &&
	      o.keyfile_size == 64 && o.tries == 0 && o.no_read_wq && o.no_write_wq && !d);
	CHECK_STR(msgs.p, "");
	luks_opts_free(&o);
	/* key-slot= (keyslot=) and nofail are acted on (issue 26); timeout=0
	 * is what the prompt does anyway, another timeout is named */
	parse(&o, &d, "key-slot=1,nofail,timeout=0");
	CHECK(o.key_slot == 1 && o.nofail);
	CHECK_STR(msgs.p, "");
	parse(&o, &d, "keyslot=31,key-slot=32,timeout=30s");
	CHECK(o.key_slot == 31);
	CHECK_STR(msgs.p, "<4>rd.luks.options: ignoring key-slot=32: not a key slot number from 0 "
			  "to 31\n"
			  "<4>rd.luks.options: timeout=30s: the passphrase prompt waits with no time "
			  "limit here; ignoring it\n");
	{
		const char *argv[LUKS_OPEN_ARGV];
		char scratch[LUKS_SCRATCH][LUKS_ARG_MAX];
		/* a passphrase or a key names the slot; a token its own */
		CHECK(luks_opts_argv(&o, LUKS_ARGV_SECRET, argv, scratch) == 1);
		CHECK_STR(argv[0], "--key-slot=31");
		CHECK(luks_opts_argv(&o, 0, argv, scratch) == 0);
	}
	luks_opts_free(&o);
	/* a header on a device, or a file on a device's filesystem */
	parse(&o, &d, "header=/root.hdr:UUID=" U1);
	CHECK_STR(o.header, "/root.hdr:UUID=" U1);
	luks_opts_free(&o);
	parse(&o, &d, "header=/dev/disk/by-path/pci-0000:00:04.0");
	CHECK_STR(o.header, "/dev/disk/by-path/pci-0000:00:04.0");
	CHECK(luks_header_devpart(o.header) == NULL);
	CHECK_STR(msgs.p, "");
	luks_opts_free(&o);
	parse(&o, &d, "header=root.hdr,header=/x:UUID=/..,header=/etc/..,keyfile-size=0,keyfile-offset=-1,tries=101");
	CHECK(!o.header && o.keyfile_size == -1 && o.keyfile_offset == -1 && o.tries == -1);
	CHECK_STR(msgs.p, "<4>rd.luks.options: ignoring header=root.hdr: expected /FILE (in the image), "
			  "/dev/NODE or /FILE:DEVICE\n"
			  "<4>rd.luks.options: ignoring header=/x:UUID=/..: expected /FILE (in the image), "
			  "/dev/NODE or /FILE:DEVICE\n"
			  "<4>rd.luks.options: ignoring header=/etc/..: expected /FILE (in the image), "
			  "/dev/NODE or /FILE:DEVICE\n"
			  "<4>rd.luks.options: ignoring keyfile-size=0: not a number of bytes from 1 to 8388608\n"
			  "<4>rd.luks.options: ignoring keyfile-offset=-1: not a number of bytes\n"
			  "<4>rd.luks.options: ignoring tries=101: not a number from 0 to 100\n");
	/* rd.luks.options=UUID=OPTIONS: the options; a word with '=' is no UUID */
	{
		char *uuid;
		CHECK_STR(luks_options_split(U1 "=discard", &uuid), "discard");
		CHECK_STR(uuid, U1);
		free(uuid);
		CHECK_STR(luks_options_split("0F5C1E3A7B2D4C8E9A6F1D2E3F4A5B6C=headless", &uuid),
			  "headless");
		CHECK_STR(uuid, "0F5C1E3A7B2D4C8E9A6F1D2E3F4A5B6C");
		free(uuid);
		CHECK_STR(luks_options_split("tpm2-device=auto", &uuid), "tpm2-device=auto");
		CHECK(uuid == NULL);
		CHECK_STR(luks_options_split("abc=1", &uuid), "abc=1");
		CHECK(uuid == NULL);
	}
	log_set_sink(NULL, NULL);
}

static void test_token_unlocks_without_prompt(void)
{
	struct init in;
	struct fake_ops *f = setup_tpm2(&in, "root=/dev/mapper/luks-" U1, "/dev/tpmrm0");

	event(&in, "vda2");
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --token-only /dev/vda2 luks-" U1
			       " env SYSTEMD_IN_INITRD=0") >= 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(said("<6>/dev/vda2: opened with its LUKS2 token\n"));
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	CHECK(in.stack.auto_unlocked); /* a token without a PIN: docs/unlock.md */
	finish(f, &in);

	/* tpm2-device=PATH: --token-type, the device through the plugin's environment */
	f = setup_tpm2(&in, "root=/dev/mapper/luks-" U1 " rd.luks.options=tpm2-device=/dev/tpmrm1",
		       "/dev/tpmrm1");
	event(&in, "vda2");
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --token-only --token-type "
			       "systemd-tpm2 /dev/vda2 luks-" U1
			       " env SYSTEMD_TPM2_DEVICE=device:/dev/tpmrm1 env SYSTEMD_IN_INITRD=0") >= 0);
	CHECK(said("<6>/dev/vda2: opened with its LUKS2 token systemd-tpm2\n"));
	finish(f, &in);

	/* the stub's PCR signature where the plugin reads it, for that run only */
	f = setup_tpm2(&in, "root=/dev/mapper/luks-" U1, "/dev/tpmrm0");
	fake_write(f, "/.extra/tpm2-pcr-signature.json", "{}");
	fake_mkdir(f, "/run/systemd");
	event(&in, "vda2");
	{
		static const char *const order[] = {
			"open /run/systemd/tpm2-pcr-signature.json",
			"run /usr/sbin/cryptsetup cryptsetup open --token-only /dev/vda2 luks-" U1
			" env SYSTEMD_IN_INITRD=0",
			"unlink /run/systemd/tpm2-pcr-signature.json",
		};
		CHECK(fake_log_in_order(f, order, 3));
	}
	CHECK(said("<6>/dev/vda2: opened with its LUKS2 token\n"));
	finish(f, &in);
}

static void test_token_fails_then_passphrase(void)
{
	struct init in;
	struct fake_ops *f = setup_tpm2(&in, "root=/dev/mapper/luks-" U1, "/dev/tpmrm0");

	stack_script.statuses[0] = 1; /* the token open fails (a TPM that does not unseal) */
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: no LUKS2 token opened it (cryptsetup exit status 1); asking for "
		   "the passphrase\n"));
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda2 (" U1 "): ") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=- <pw>") >= 0);
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	CHECK(!in.stack.auto_unlocked); /* the token failed; the passphrase was typed */
	finish(f, &in);

	/* a malformed stub signature is said and not put where the plugin
	 * reads: the token is tried without one, then the passphrase */
	f = setup_tpm2(&in, "root=/dev/mapper/luks-" U1, "/dev/tpmrm0");
	fake_write(f, "/.extra/tpm2-pcr-signature.json", "{\"sha256\":[{\"pcrs\":");
	fake_mkdir(f, "/run/systemd");
	stack_script.statuses[0] = 1;
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: /.extra/tpm2-pcr-signature.json is not JSON (at byte 19): not used "
		   "as a PCR signature\n"));
	CHECK(said("<4>/dev/vda2: no LUKS2 token opened it (cryptsetup exit status 1); asking for "
		   "the passphrase\n"));
	CHECK(fake_log_count(f, "open /run/systemd/tpm2-pcr-signature.json") == 0);
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda2 (" U1 "): ") >= 0);
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	finish(f, &in);

	/* tpm2-signature= names one, and an oversized one is not put there */
	f = setup_tpm2(&in, "root=/dev/mapper/luks-" U1
		       " rd.luks.options=tpm2-signature=/etc/big.json", "/dev/tpmrm0");
	{
		char *big = malloc(70000);
		memset(big, ' ', 69999);
		big[69999] = 0;
		fake_write(f, "/etc/big.json", big);
		free(big);
	}
	stack_script.statuses[0] = 1;
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: /etc/big.json is larger than 65536 bytes: not used as a PCR "
		   "signature\n"));
	CHECK(said("<4>/dev/vda2: no LUKS2 token opened it (cryptsetup exit status 1); asking for "
		   "the passphrase\n"));
	CHECK(fake_log_count(f, "open /run/systemd/tpm2-pcr-signature.json") == 0);
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	finish(f, &in);
}

static void test_no_tpm_waits_then_passphrase(void)
{
	struct init in;
	struct fake_ops *f = setup_tpm2(&in, "root=/dev/mapper/luks-" U1 " rd.luks.options=token-timeout=2",
					NULL);

	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<6>/dev/vda2: waiting up to 2 s for the TPM2 device /dev/tpmrm0\n"
		   "<4>/dev/vda2: no TPM2 device /dev/tpmrm0; asking for the passphrase\n"));
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup cryptsetup open --token-only") == 0);
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda2 (" U1 "): ") >= 0);
	finish(f, &in);
}

static void test_when_tokens_are_not_tried(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1, true);

	/* a header with no tokens: straight to the prompt, nothing said */
	stack_luks2_header(f, "/dev/vda2", NO_TOKENS_JSON);
	stack_setup(&in.stack_env);
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup cryptsetup open --token-only") == 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	CHECK(!said("token"));
	finish(f, &in);

	/* rd.luks.tokens=0 */
	f = setup_tpm2(&in, "root=/dev/mapper/luks-" U1 " rd.luks.tokens=0", "/dev/tpmrm0");
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup cryptsetup open --token-only") == 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);

	/* an image without the plugins, asked for a TPM2 token: said, then the prompt */
	f = setup(&in, "root=/dev/mapper/luks-" U1 " rd.luks.options=tpm2-device=auto", false);
	stack_luks2_header(f, "/dev/vda2", TPM2_JSON);
	stack_setup(&in.stack_env);
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: systemd-tpm2 asked for, but this image has no LUKS2 token "
		   "plugins; asking for the passphrase\n"));
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup cryptsetup open --token-only") == 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);
}

static void test_crypttab_options_and_headless(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/cryptroot", true);

	fake_write(f, "/etc/crypttab",
		   "cryptroot UUID=" U1 " none luks,discard,fido2-device=auto,headless=true,tpm2-pcrs=7\n");
	stack_luks2_header(f, "/dev/vda2", "{\"tokens\":{\"0\":{\"type\":\"systemd-fido2\"}}}");
	stack_setup(&in.stack_env);
	stack_script.statuses[0] = 2;
	event(&in, "vda2");
	CHECK(said("<4>/etc/crypttab cryptroot: tpm2-pcrs is not supported here; ignoring it\n"));
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --token-only --token-type "
			       "systemd-fido2 --allow-discards /dev/vda2 cryptroot") >= 0);
	CHECK(said("<3>/dev/vda2: not asking for its passphrase: headless\n"));
	CHECK(fake_log_count(f, "prompt") == 0);
	finish(f, &in);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_header_scan);
	RUN(test_argv);
	RUN(test_options);
	RUN(test_token_unlocks_without_prompt);
	RUN(test_token_fails_then_passphrase);
	RUN(test_no_tpm_waits_then_passphrase);
	RUN(test_when_tokens_are_not_tried);
	RUN(test_crypttab_options_and_headless);
	buf_free(&msgs);
	return test_done();
}
