// SPDX-License-Identifier: GPL-2.0-or-later
/* A TPM2 token that needs a PIN (luks_pin.c, luks_token.c) against fake
 * ops: the header scan's "tpm2-pin", the PIN asked at the prompt and
 * given on cryptsetup's stdin, a wrong one said and asked again up to
 * the tries, a lockout or another failure straight to the passphrase,
 * an empty answer, headless, and a token that opens alone tried first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stack/luks_pin.h"
#include "init/stack/stack.h"
#include "layout.h"
#include "log.h"
#include "luks2.h"
#include "stack_helpers.h"
#include "test.h"

#define U1 "0f5c1e3a-7b2d-4c8e-9a6f-1d2e3f4a5b6c"
/* systemd-cryptenroll --tpm2-with-pin=yes's token (systemd 252) */
#define PIN_JSON                                                                            \
	"{\"keyslots\":{\"0\":{\"type\":\"luks2\"},\"1\":{\"type\":\"luks2\"}},"               \
	"\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],"                   \
	"\"tpm2-pcrs\":[],\"tpm2-primary-alg\":\"ecc\",\"tpm2-pin\":true}},"                     \
	"\"segments\":{\"0\":{\"type\":\"crypt\"}}}"

static struct fake_ops *setup(struct init *in, const char *cmdline, bool plugins)
{
	struct fake_ops *f = fake_ops_new();

	stack_script_start(f);
	fake_tool(f, "/usr/sbin/cryptsetup");
	fake_mkdir(f, "/dev");
	if (plugins)
		fake_write(f, LAYOUT_TOKENS_FILE, "dir=/usr/lib/x86_64-linux-gnu/cryptsetup\n");
	stack_init_start(in, f, cmdline, &stack_script_ops);
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

/* "tpm2-pin": the literal true of a TPM2 token's own member, nothing else */
static void test_header_scan_pin(void)
{
#define T(members) "{\"tokens\":{\"0\":{" members "}}}"
	const unsigned pin = LUKS2_TOKEN_TPM2 | LUKS2_TOKEN_TPM2_PIN,
		       nopin = LUKS2_TOKEN_TPM2 | LUKS2_TOKEN_TPM2_NOPIN;

	CHECK(luks2_token_types(PIN_JSON, strlen(PIN_JSON)) == pin);
	/* before the type, spaced out, or false */
	CHECK(luks2_token_types(T("\"tpm2-pin\" :\n true ,\"type\":\"systemd-tpm2\""), 200) == pin);
	CHECK(luks2_token_types(T("\"type\":\"systemd-tpm2\",\"tpm2-pin\":false"), 200) == nopin);
	/* a string, a longer word, an array, a number: not the literal */
	CHECK(luks2_token_types(T("\"type\":\"systemd-tpm2\",\"tpm2-pin\":\"true\""), 200) == nopin);
	CHECK(luks2_token_types(T("\"type\":\"systemd-tpm2\",\"tpm2-pin\":trueish"), 200) == nopin);
	CHECK(luks2_token_types(T("\"type\":\"systemd-tpm2\",\"tpm2-pin\":[true]"), 200) == nopin);
	CHECK(luks2_token_types(T("\"type\":\"systemd-tpm2\",\"tpm2-pin\":1"), 200) == nopin);
	/* another key's true, a deeper object's tpm2-pin, another type's */
	CHECK(luks2_token_types(T("\"type\":\"systemd-tpm2\",\"tpm2-pcrs\":true"), 200) == nopin);
	CHECK(luks2_token_types(T("\"type\":\"systemd-tpm2\",\"x\":{\"tpm2-pin\":true}"), 200) ==
	      nopin);
	CHECK(luks2_token_types(T("\"type\":\"systemd-fido2\",\"tpm2-pin\":true"), 200) ==
	      LUKS2_TOKEN_FIDO2);
	/* one token's PIN is not the next one's */
	CHECK(luks2_token_types("{\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\",\"tpm2-pin\":true},"
				"\"1\":{\"type\":\"systemd-tpm2\"}}}", 200) ==
	      (pin | LUKS2_TOKEN_TPM2_NOPIN));
	/* cut short at the literal, or the token never closed: nothing */
	CHECK(luks2_token_types(T("\"type\":\"systemd-tpm2\",\"tpm2-pin\":true"), 40) == 0);
	CHECK(luks2_token_types("{\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\",\"tpm2-pin\":tr", 200) ==
	      0);
#undef T
}

static void test_pin_judge(void)
{
	CHECK(luks_pin_judge(0, "") == LUKS_PIN_OPENED);
	CHECK(luks_pin_judge(-5, "") == LUKS_PIN_FAILED);
	CHECK(luks_pin_judge(1, "Failed to unseal HMAC key in TPM: tpm:session(1):the authorization "
				"HMAC check failed and DA counter incremented\n") == LUKS_PIN_WRONG);
	CHECK(luks_pin_judge(1, "TPM2 device is in dictionary attack lockout mode.\n") ==
	      LUKS_PIN_LOCKOUT);
	/* tss2's text when the session is refused in lockout: not a wrong PIN */
	CHECK(luks_pin_judge(1, "Failed to open session in TPM: tpm:warn(2.0): authorizations for "
				"objects subject to DA protection are not allowed at this time because "
				"the TPM is in DA lockout mode\n") == LUKS_PIN_LOCKOUT);
	CHECK(luks_pin_judge(1, "Bad PIN.\n") == LUKS_PIN_WRONG);
	/* a policy that does not match, nothing said: no PIN would help */
	CHECK(luks_pin_judge(1, "Current policy digest does not match stored policy digest\n") ==
	      LUKS_PIN_FAILED);
	CHECK(luks_pin_judge(1, "") == LUKS_PIN_FAILED);
}

/* what systemd 252's plugin and tss2 wrote for a wrong PIN under swtpm */
#define WRONG_ERR                                                                           \
	"WARNING:esys:src/tss2-esys/api/Esys_StartAuthSession.c:390:Esys_StartAuthSession_"      \
	"Finish() Received TPM Error \n"                                                         \
	"Failed to open session in TPM: tpm:session(1):the authorization HMAC check failed and "  \
	"DA counter incremented\n"
#define PIN_RUN "run /usr/sbin/cryptsetup cryptsetup open --token-only /dev/vda2 luks-" U1

static struct fake_ops *setup_pin(struct init *in, const char *cmdline)
{
	struct fake_ops *f = setup(in, cmdline, true);

	stack_luks2_header(f, "/dev/vda2", PIN_JSON);
	fake_write(f, "/dev/tpmrm0", "");
	stack_setup(&in->stack_env);
	return f;
}

static void test_pin_right(void)
{
	struct init in;
	struct fake_ops *f = setup_pin(&in, "root=/dev/mapper/luks-" U1);

	stack_script_answer("4711");
	event(&in, "vda2");
	/* no run without the PIN first: only a PIN can open this header */
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup") == 1);
	CHECK(fake_log_find(f, "prompt Enter TPM2 PIN for /dev/vda2: ") >= 0);
	CHECK(fake_log_find(f, PIN_RUN " <4711>") >= 0);
	CHECK(said("<6>/dev/vda2: opened with its LUKS2 token and a PIN\n"));
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	CHECK(fake_log_count(f, "prompt Passphrase") == 0);
	CHECK(!in.stack.auto_unlocked); /* the PIN was typed: docs/unlock.md */
	finish(f, &in);
}

static void test_pin_wrong_then_right(void)
{
	struct init in;
	struct fake_ops *f = setup_pin(&in, "root=/dev/mapper/luks-" U1);

	stack_script.statuses[0] = 1;
	stack_script.errs[0] = WRONG_ERR;
	stack_script_answer("1234");
	stack_script_answer("4711");
	event(&in, "vda2");
	CHECK(fake_log_find(f, PIN_RUN " <1234>") >= 0);
	CHECK(fake_log_find(f, PIN_RUN " <4711>") >= 0);
	CHECK(said("<6>/dev/vda2: cryptsetup: WARNING:esys:src/tss2-esys/api/Esys_StartAuthSession.c:"
		   "390:Esys_StartAuthSession_Finish() Received TPM Error \n"
		   "<6>/dev/vda2: cryptsetup: Failed to open session in TPM: tpm:session(1):the "
		   "authorization HMAC check failed and DA counter incremented\n"
		   "<3>wrong TPM2 PIN for /dev/vda2\n"));
	CHECK(said("<6>/dev/vda2: opened with its LUKS2 token and a PIN\n"));
	CHECK(fake_log_count(f, "prompt Passphrase") == 0);
	finish(f, &in);
}

static void test_pin_exhausted_lockout_empty_headless(void)
{
	struct init in;
	struct fake_ops *f = setup_pin(&in, "root=/dev/mapper/luks-" U1);

	/* rd.luks.tries (3) wrong PINs, then the passphrase */
	for (int i = 0; i < 3; i++) {
		stack_script.statuses[i] = 1;
		stack_script.errs[i] = WRONG_ERR;
		stack_script_answer("0000");
	}
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(count_said("<3>wrong TPM2 PIN for /dev/vda2\n") == 3);
	CHECK(said("<4>/dev/vda2: no right TPM2 PIN in 3 tries; asking for the passphrase\n"));
	CHECK(fake_log_count(f, "prompt Enter TPM2 PIN") == 3);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=- <pw>") >= 0);
	finish(f, &in);

	/* crypttab's tries= counts PINs too */
	f = setup_pin(&in, "root=/dev/mapper/luks-" U1 " rd.luks.options=tries=1");
	stack_script.statuses[0] = 1;
	stack_script.errs[0] = WRONG_ERR;
	stack_script_answer("0000");
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: no right TPM2 PIN in 1 tries; asking for the passphrase\n"));
	finish(f, &in);

	/* a TPM in lockout: said, straight to the passphrase */
	f = setup_pin(&in, "root=/dev/mapper/luks-" U1);
	stack_script.statuses[0] = 1;
	stack_script.errs[0] = "TPM2 device is in dictionary attack lockout mode.\n";
	stack_script_answer("4711");
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<3>/dev/vda2: the TPM2 is in dictionary-attack lockout and takes no PIN now; "
		   "asking for the passphrase\n"));
	CHECK(fake_log_count(f, "prompt Enter TPM2 PIN") == 1);
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda2 (" U1 "): ") >= 0);
	finish(f, &in);

	/* another failure: its status, no second PIN */
	f = setup_pin(&in, "root=/dev/mapper/luks-" U1);
	stack_script.statuses[0] = 1;
	stack_script.errs[0] = "Current policy digest does not match stored policy digest\n";
	stack_script_answer("4711");
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: its TPM2 token did not open with the PIN (cryptsetup exit status "
		   "1); asking for the passphrase\n"));
	CHECK(fake_log_count(f, "prompt Enter TPM2 PIN") == 1);
	finish(f, &in);

	/* an empty answer: the passphrase, the token not run */
	f = setup_pin(&in, "root=/dev/mapper/luks-" U1);
	stack_script_answer("");
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<6>/dev/vda2: no TPM2 PIN given; asking for the passphrase\n"));
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup cryptsetup open --token-only") == 0);
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda2 (" U1 "): ") >= 0);
	finish(f, &in);

	/* headless: no PIN asked, and no passphrase either */
	f = setup_pin(&in, "root=/dev/mapper/luks-" U1 " rd.luks.options=headless");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: its TPM2 token needs a PIN; not asking for it: headless\n"));
	CHECK(fake_log_count(f, "prompt") == 0);
	finish(f, &in);
}

/* A PIN token beside one that opens alone: that one first, unasked */
static void test_pin_after_nopin(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1, true);

	stack_luks2_header(f, "/dev/vda2",
			   "{\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\",\"tpm2-pin\":true},"
			   "\"1\":{\"type\":\"systemd-tpm2\",\"tpm2-pin\":false}}}");
	fake_write(f, "/dev/tpmrm0", "");
	stack_setup(&in.stack_env);
	stack_script.statuses[0] = 1; /* the one without a PIN fails (PCRs changed) */
	stack_script_answer("4711");
	event(&in, "vda2");
	CHECK(fake_log_find(f, PIN_RUN) >= 0);
	CHECK(fake_log_find(f, PIN_RUN " <4711>") > fake_log_find(f, PIN_RUN));
	CHECK(!said("no LUKS2 token opened it"));
	CHECK(said("<6>/dev/vda2: opened with its LUKS2 token and a PIN\n"));
	finish(f, &in);
}

/* The real runner: the input on stdin, stderr kept (cut at size) */
static void test_real_run_stderr(void)
{
	char *const sh[] = { "sh", "-c", "cat >&2; exit 3", NULL };
	char *const env[] = { "PATH=/bin:/usr/bin", NULL };
	char err[8];

	CHECK(real_run_stderr("/bin/sh", sh, env, "4711", 4, err, sizeof(err)) == 3);
	CHECK_STR(err, "4711");
	CHECK(real_run_stderr("/bin/sh", sh, env, "0123456789", 10, err, sizeof(err)) == 3);
	CHECK_STR(err, "0123456");
	CHECK(real_run_stderr("/nonexistent", sh, env, "x", 1, err, sizeof(err)) < 0);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_header_scan_pin);
	RUN(test_pin_judge);
	RUN(test_pin_right);
	RUN(test_pin_wrong_then_right);
	RUN(test_pin_exhausted_lockout_empty_headless);
	RUN(test_pin_after_nopin);
	RUN(test_real_run_stderr);
	buf_free(&msgs);
	return test_done();
}
