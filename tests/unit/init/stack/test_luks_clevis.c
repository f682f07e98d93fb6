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
	CHECK(said("<4>/dev/vda2: its LUKS2 header has a clevis token, but clevis is not in this "
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

/* /dev/vda2 a LUKS1 header (nothing past its magic matters here) */
static void luks1_header(struct fake_ops *f)
{
	static const unsigned char magic[8] = { 'L', 'U', 'K', 'S', 0xba, 0xbe, 0, 1 };
	unsigned char h[4096] = { 0 };
	char *p = fake_path(f, "/dev/vda2");
	FILE *fp = fopen(p, "wb");

	memcpy(h, magic, sizeof(magic));
	CHECK(fp && fwrite(h, 1, sizeof(h), fp) == sizeof(h));
	if (fp)
		fclose(fp);
	free(p);
}

#define LUKSMETA_RUN "run /usr/bin/luksmeta luksmeta test -d /dev/vda2"

/* LUKS1 keeps clevis's bindings in luksmeta's slots: the image's
 * luksmeta says whether the device has them; then as with a token. */
static void test_luks1_luksmeta(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1, true);

	fake_tool(f, "/usr/bin/luksmeta");
	luks1_header(f);
	event(&in, "vda2");
	CHECK(fake_log_find(f, LUKSMETA_RUN) >= 0);
	CHECK(said("<6>/dev/vda2: waiting for the network to reach its clevis server\n"));
	in.net.chosen = 0;
	luks_net_up(&in.stack_env);
	run_jobs(&in);
	CHECK(fake_log_find(f, CLEVIS_RUN) >= 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(said("<6>/dev/vda2: opened with clevis\n"));
	finish(f, &in);

	/* no luksmeta slots (luksmeta test fails): the passphrase, nothing said */
	f = setup(&in, "root=/dev/mapper/luks-" U1, true);
	fake_tool(f, "/usr/bin/luksmeta");
	luks1_header(f);
	in.net.chosen = 0;
	stack_script.statuses[0] = 1;
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(fake_log_find(f, LUKSMETA_RUN) >= 0);
	CHECK(fake_log_count(f, CLEVIS_RUN) == 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	CHECK(!said("clevis"));
	finish(f, &in);

	/* no luksmeta in the image: not asked */
	f = setup(&in, "root=/dev/mapper/luks-" U1, true);
	luks1_header(f);
	stack_script_answer("pw");
	event(&in, "vda2");
	CHECK(fake_log_count(f, "run /usr/bin/luksmeta") == 0);
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
