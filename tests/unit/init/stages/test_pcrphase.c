// SPDX-License-Identifier: GPL-2.0-or-later
/* The boot phases into PCR 11 (src/init/stages/pcrphase.c): when they
 * are measured (rd.uniramfs.measure=, else systemd-stub's variable),
 * no TPM, and a TPM whose answer is nothing. The measurement that works
 * is the boot test pcr11-phases's, against swtpm. */
#include <stdio.h>
#include <string.h>

#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

static struct fake_ops *setup(struct init *in, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	stack_script_start(f);
	stack_init_start(in, f, cmdline, &stack_script_ops);
	msgs_capture(LOG_DEBUG);
	return f;
}

static void test_not_asked(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda");

	/* no systemd-stub (no UEFI here): nothing measured, nothing said */
	fake_write(f, "/dev/tpmrm0", "");
	pcrphase_enter(&in);
	pcrphase_leave(&in);
	CHECK(!in.measured);
	CHECK(msgs.p[0] == '\0');
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_off(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda rd.uniramfs.measure=1 rd.uniramfs.measure=0");

	fake_write(f, "/dev/tpmrm0", "");
	pcrphase_enter(&in);
	CHECK(!in.measured);
	CHECK(msgs.p[0] == '\0');
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_bad_word(void)
{
	struct init in;
	struct fake_ops *f = fake_ops_new();

	msgs_capture(LOG_INFO);
	stack_script_start(f);
	stack_init_start(&in, f, "root=/dev/vda rd.uniramfs.measure=yes-please", &stack_script_ops);
	CHECK(said("<4>ignoring rd.uniramfs.measure=yes-please: not a boolean (use 1 or 0)"));
	CHECK(in.opt.measure == -1);
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_no_tpm(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda rd.uniramfs.measure");

	pcrphase_enter(&in);
	pcrphase_leave(&in);
	CHECK(!in.measured);
	CHECK(said("<6>no TPM2 device: the boot phases are not measured into PCR 11"));
	CHECK(count_said("<6>no TPM2 device: the boot phases are not measured into PCR 11") == 1);
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_mute_tpm(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda rd.uniramfs.measure=1");

	/* a file where the device should be: the command is written, the
	 * answer read is empty */
	fake_write(f, "/dev/tpmrm0", "");
	pcrphase_enter(&in);
	CHECK(!in.measured);
	CHECK(said("<4>PCR 11: enter-initrd not measured: the TPM's answer to TPM2_GetCapability "
		   "ends at byte 0, before its header"));
	pcrphase_leave(&in);
	CHECK(count_said("<4>PCR 11: enter-initrd not measured: the TPM's answer to "
			 "TPM2_GetCapability ends at byte 0, before its header") == 1);
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	RUN(test_not_asked);
	RUN(test_off);
	RUN(test_bad_word);
	RUN(test_no_tpm);
	RUN(test_mute_tpm);
	return test_done();
}
