// SPDX-License-Identifier: GPL-2.0-or-later
/* clevis in the init against fake ops: where the network is for it, the
 * clevis luks unlock arguments, the unlock parked until the network is
 * up (the loop never blocks) or its bound passes, and each way back to
 * the passphrase with its exact line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stack/luks_clevis.h"
#include "init/stack/stack.h"
#include "layout.h"
#include "log.h"
#include "luks2.h"
#include "stack_helpers.h"
#include "test.h"

#define U1 "0f5c1e3a-7b2d-4c8e-9a6f-1d2e3f4a5b6c"
/* as clevis luks bind writes it (the jwe cut short) */
#define CLEVIS_JSON                                                                         \
	"{\"keyslots\":{\"0\":{\"type\":\"luks2\"},\"1\":{\"type\":\"luks2\"}},"               \
	"\"tokens\":{\"0\":{\"type\":\"clevis\",\"keyslots\":[\"1\"],"                         \
	"\"jwe\":{\"ciphertext\":\"\",\"protected\":\"eyJhbGciOiJFQ0RI\"}}},"                  \
	"\"segments\":{\"0\":{\"type\":\"crypt\"}}}"
#define CLEVIS_RUN "run /usr/bin/clevis clevis luks unlock -d /dev/vda2 -n luks-" U1
#define PROMPT "prompt Passphrase for /dev/vda2 (" U1 "): "


/* An image with cryptsetup, the token plugins and (with_clevis) clevis;
 * /dev/vda2 a LUKS2 device with a clevis token; the network wanted and
 * not up yet (tests move it on). */
static struct fake_ops *setup(struct init *in, const char *cmdline, bool with_clevis)
{
	struct fake_ops *f = fake_ops_new();

	stack_script_start(f);
	fake_tool(f, "/usr/sbin/cryptsetup");
	if (with_clevis)
		fake_tool(f, "/usr/bin/clevis");
	fake_mkdir(f, "/dev");
	fake_write(f, LAYOUT_TOKENS_FILE, "dir=/usr/lib/x86_64-linux-gnu/cryptsetup\n");
	stack_luks2_header(f, "/dev/vda2", CLEVIS_JSON);
	stack_init_start(in, f, cmdline, &stack_script_ops);
	in->net.wanted = true;
	in->net.chosen = -1;
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

static void test_net_states(void)
{
	/* the boot's answer, waited */
	CHECK(luks_clevis_net(STACK_NET_UNWANTED, false) == CLEVIS_NET_UNWANTED);
	CHECK(luks_clevis_net(STACK_NET_UNWANTED, true) == CLEVIS_NET_UNWANTED);
	CHECK(luks_clevis_net(STACK_NET_UP, false) == CLEVIS_NET_UP);
	CHECK(luks_clevis_net(STACK_NET_UP, true) == CLEVIS_NET_UP);
	CHECK(luks_clevis_net(STACK_NET_FAILED, false) == CLEVIS_NET_DOWN); /* every NIC failed */
	CHECK(luks_clevis_net(STACK_NET_COMING, false) == CLEVIS_NET_WAIT);
	CHECK(luks_clevis_net(STACK_NET_COMING, true) == CLEVIS_NET_DOWN); /* the bound passed */
}

static void test_argv(void)
{
	const char *argv[LUKS_CLEVIS_ARGV];
	struct buf b = { 0 };
	size_t n = luks_clevis_argv(argv, "/dev/vda2", "cryptroot");

	CHECK(n == 7 && !argv[n]);
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
	CHECK_STR(b.p, "clevis luks unlock -d /dev/vda2 -n cryptroot");
	buf_free(&b);
	/* the header scan knows clevis's token */
	CHECK(luks2_token_types(CLEVIS_JSON, strlen(CLEVIS_JSON)) == LUKS2_TOKEN_CLEVIS);
}

static void test_waits_for_the_network(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1, true);

	event(&in, "vda2");
	/* parked: nothing run, nothing asked, the loop free */
	CHECK(said("<6>/dev/vda2: waiting for the network to reach its clevis server\n"));
	CHECK(fake_log_count(f, "run ") == 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(in.stack.nnet_waiting == 1 && in.jobs.n == 0);
	/* the interface is configured (netup's on_up) */
	in.net.chosen = 0;
	luks_net_up(&in.stack_env);
	CHECK(in.stack.nnet_waiting == 0 && in.jobs.n == 1);
	run_jobs(&in);
	CHECK(fake_log_find(f, CLEVIS_RUN) >= 0);
	CHECK(fake_log_count(f, "run ") == 1); /* no --token-only: no plugin opens clevis's token */
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(said("<6>/dev/vda2: opened with clevis\n"));
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	CHECK(in.stack.auto_unlocked);
	finish(f, &in);
}

/* a tpm2 pin: no network, the TPM waited for, clevis run at once */
#define TPM2_CLEVIS_JSON                                                                    \
	"{\"tokens\":{\"0\":{\"type\":\"clevis\",\"keyslots\":[\"1\"],\"jwe\":{\"protected\":"       \
	"\"eyJhbGciOiJkaXIiLCJjbGV2aXMiOnsicGluIjoidHBtMiIsInRwbTIiOnsia2V5IjoiZWNjIn19fQ\"}}}}"

static void test_tpm2_pin(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1, true);

	stack_luks2_header(f, "/dev/vda2", TPM2_CLEVIS_JSON);
	fake_write(f, "/dev/tpmrm0", "");
	in.net.wanted = false;
	event(&in, "vda2");
	CHECK(fake_log_find(f, CLEVIS_RUN) >= 0);
	CHECK(!said("network"));
	CHECK(said("<6>/dev/vda2: opened with clevis\n"));
	CHECK(in.stack.nnet_waiting == 0);
	finish(f, &in);

	/* no TPM: said after the header's short wait, then the passphrase */
	f = setup(&in, "root=/dev/mapper/luks-" U1 " rd.luks.options=token-timeout=1", true);
	stack_luks2_header(f, "/dev/vda2", TPM2_CLEVIS_JSON);
	in.net.wanted = false;
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<6>/dev/vda2: waiting up to 1 s for the TPM2 device /dev/tpmrm0\n"
		   "<4>/dev/vda2: no TPM2 device /dev/tpmrm0 for its clevis tpm2 pin; asking for the "
		   "passphrase\n"));
	CHECK(fake_log_count(f, CLEVIS_RUN) == 0);
	CHECK(fake_log_find(f, PROMPT) >= 0);
	finish(f, &in);
}

static void test_tang_down_then_passphrase(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1, true);

	in.net.chosen = 0; /* up already: no wait */
	stack_script.statuses[0] = 1;   /* clevis luks unlock: Tang not reached */
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(!said("waiting for the network"));
	CHECK(fake_log_find(f, CLEVIS_RUN) >= 0);
	CHECK(said("<4>/dev/vda2: clevis could not unlock it (exit status 1); asking for the "
		   "passphrase\n"));
	CHECK(fake_log_find(f, PROMPT) >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=- <pw>") >= 0);
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	finish(f, &in);
}

static void test_network_bound_then_passphrase(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1, true);

	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(in.stack.nnet_waiting == 1);
	/* half the root timeout, no address yet */
	CHECK(stack_half_time(&in.stack_env));
	run_jobs(&in);
	CHECK(said("<4>/dev/vda2: the network is not up; not trying clevis, asking for the "
		   "passphrase\n"));
	CHECK(fake_log_count(f, CLEVIS_RUN) == 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);

	/* a device seen after the bound: no wait at all */
	f = setup(&in, "root=/dev/mapper/luks-" U1, true);
	CHECK(!stack_half_time(&in.stack_env));
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(!said("waiting for the network"));
	CHECK(said("<4>/dev/vda2: the network is not up; not trying clevis, asking for the "
		   "passphrase\n"));
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);

	/* every interface failed: settled, not up */
	f = setup(&in, "root=/dev/mapper/luks-" U1, true);
	in.net.failed = true;
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: the network is not up; not trying clevis, asking for the "
		   "passphrase\n"));
	CHECK(in.stack.nnet_waiting == 0);
	finish(f, &in);
}

static void test_when_clevis_is_not_tried(void)
{
	static const char *const off[] = { "rd.luks.clevis=0", "rd.luks.tokens=0" };
	struct init in;
	struct fake_ops *f;

	for (size_t i = 0; i < 2; i++) {
		char *cmdline = xasprintf("root=/dev/mapper/luks-" U1 " %s", off[i]);
		f = setup(&in, cmdline, true);
		stack_script_answer("pw");
		event(&in, "vda2");
		CHECK(fake_log_count(f, CLEVIS_RUN) == 0);
		CHECK(fake_log_count(f, "prompt") == 1);
		CHECK(!said("clevis"));
		finish(f, &in);
		free(cmdline);
	}

	/* the image has no clevis */
	f = setup(&in, "root=/dev/mapper/luks-" U1, false);
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: it has a clevis binding, but clevis is not in this "
		   "image (uniramfs build --clevis); asking for the passphrase\n"));
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);

	/* no ip= or rd.neednet=1 */
	f = setup(&in, "root=/dev/mapper/luks-" U1, true);
	in.net.wanted = false;
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: its clevis token needs the network: add rd.neednet=1 ip=dhcp to "
		   "the command line; asking for the passphrase\n"));
	CHECK(fake_log_count(f, CLEVIS_RUN) == 0);
	finish(f, &in);

	/* a header without a clevis token: nothing said */
	f = setup(&in, "root=/dev/mapper/luks-" U1, true);
	stack_luks2_header(f, "/dev/vda2", "{\"keyslots\":{},\"tokens\":{},\"config\":{}}");
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(!said("clevis"));
	CHECK(fake_log_count(f, "run /usr/bin/clevis") == 0);
	finish(f, &in);
}

/* /dev/vda2 a LUKS1 device as cryptsetup and luksmeta lay it out: one
 * key slot of a 32-byte key with 1 stripe at sector 8, the data at sector
 * 32: luksmeta's header at 8192, and (jwe) clevis's slot 1 at 4096 past
 * it, off bytes further when given. */
static void luks1_device(struct fake_ops *f, const char *jwe, unsigned off)
{
	static const unsigned char magic[8] = { 'L', 'U', 'K', 'S', 0xba, 0xbe, 0, 1 };
	static const unsigned char clevis[16] = { 0xcb, 0x6e, 0x89, 0x04, 0x81, 0xff, 0x40, 0xda,
						  0xa8, 0x4a, 0x07, 0xab, 0x9a, 0xb5, 0x71, 0x5e };
	unsigned char d[16384] = { 0 };
	char *p = fake_path(f, "/dev/vda2");
	FILE *fp = fopen(p, "wb");

	memcpy(d, magic, sizeof(magic));
	d[107] = 32;             /* payload offset, sectors */
	d[111] = 32;             /* key bytes */
	d[208 + 43] = 8;         /* slot 0: key material at sector 8 */
	d[208 + 47] = 1;         /* one stripe */
	memcpy(d + 8192, "LUKSMETA", 8);
	d[8192 + 11] = 1;        /* version */
	if (jwe) {
		unsigned char *s = d + 8192 + 16 + 32;
		size_t n = strlen(jwe);
		memcpy(s, clevis, sizeof(clevis));
		s[16 + 2] = (unsigned char)((4096 + off) >> 8);
		s[16 + 3] = (unsigned char)(4096 + off);
		s[20 + 3] = (unsigned char)n;
		s[20 + 2] = (unsigned char)(n >> 8);
		if (8192 + 4096 + n <= sizeof(d))
			memcpy(d + 8192 + 4096, jwe, n);
	}
	CHECK(fp && fwrite(d, 1, sizeof(d), fp) == sizeof(d));
	if (fp)
		fclose(fp);
	free(p);
}

/* clevis 19's compact JWEs, cut after the header (the rest is not read) */
#define TANG_JWE "eyJhbGciOiJFQ0RILUVTIiwiY2xldmlzIjp7InBpbiI6InRhbmcifX0.x.y.z.w"
#define TPM2_JWE "eyJhbGciOiJkaXIiLCJjbGV2aXMiOnsicGluIjoidHBtMiIsInRwbTIiOnsia2V5IjoiZWNjIn19fQ.a.b.c.d"

/* LUKS1 keeps clevis's bindings in luksmeta's slots: read for their pins,
 * then as with a token. */
static void test_luks1_luksmeta(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1, true);

	/* tang: the network waited for */
	luks1_device(f, TANG_JWE, 0);
	event(&in, "vda2");
	CHECK(said("<6>/dev/vda2: waiting for the network to reach its clevis server\n"));
	in.net.chosen = 0;
	luks_net_up(&in.stack_env);
	run_jobs(&in);
	CHECK(fake_log_find(f, CLEVIS_RUN) >= 0);
	CHECK(fake_log_count(f, "run /usr/bin/luksmeta") == 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(said("<6>/dev/vda2: opened with clevis\n"));
	finish(f, &in);

	/* tpm2 (booster's TestLUKS1ClevisTpm2): the TPM, no network */
	f = setup(&in, "root=/dev/mapper/luks-" U1, true);
	luks1_device(f, TPM2_JWE, 0);
	fake_write(f, "/dev/tpmrm0", "");
	in.net.wanted = false;
	event(&in, "vda2");
	CHECK(fake_log_find(f, CLEVIS_RUN) >= 0);
	CHECK(!said("network"));
	CHECK(said("<6>/dev/vda2: opened with clevis\n"));
	finish(f, &in);

	/* luksmeta's header with no clevis slot: the passphrase, nothing said */
	f = setup(&in, "root=/dev/mapper/luks-" U1, true);
	luks1_device(f, NULL, 0);
	in.net.chosen = 0;
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(fake_log_count(f, CLEVIS_RUN) == 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	CHECK(!said("clevis"));
	finish(f, &in);

	/* a slot past the gap, which luksmeta would refuse: said, the passphrase */
	f = setup(&in, "root=/dev/mapper/luks-" U1, true);
	luks1_device(f, TPM2_JWE, 4096);
	in.net.chosen = 0;
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: luksmeta slot 1: 86 bytes at 8192, outside its gap of 8192; "
		   "not trying clevis\n"));
	CHECK(fake_log_count(f, CLEVIS_RUN) == 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);
}

static void test_options_not_applied(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1 " rd.luks.allow-discards", true);

	in.net.chosen = 0;
	event(&in, "vda2");
	CHECK(said("<4>/dev/vda2: clevis luks unlock opens it without --allow-discards\n"));
	CHECK(fake_log_find(f, CLEVIS_RUN) >= 0);
	finish(f, &in);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_net_states);
	RUN(test_argv);
	RUN(test_waits_for_the_network);
	RUN(test_tpm2_pin);
	RUN(test_tang_down_then_passphrase);
	RUN(test_network_bound_then_passphrase);
	RUN(test_when_clevis_is_not_tried);
	RUN(test_options_not_applied);
	RUN(test_luks1_luksmeta);
	buf_free(&msgs);
	return test_done();
}
