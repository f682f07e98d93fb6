// SPDX-License-Identifier: GPL-2.0-or-later
/* Who gets the rescue shell (src/init/stages/rescue.c through
 * failure.c): the image's password, no unauthenticated shell after an
 * automatic unlock unless the owner opted in, rd.emergency, and the
 * same rules at rd.break points. Fake ops; the exact messages. */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "fake_ops.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "stack_helpers.h"
#include "test.h"

/* crypt("right", "$6$uniramfs$") */
#define HASH "$6$uniramfs$EPRaygVlYkdjCIaKzlnqUHaVJGlVHoP9LYPUdG1GuZ/U/hd.TM8rf9RfjwJ.SHmWO.UFss4DOEEr1M0jqZuI90"
#define NO_SHELL_AUTO                                                                            \
	"<3>not starting a shell: a volume was unlocked with no typed secret (TPM2, clevis, a key " \
	"file or a token) and the image has no rescue password; rd.shell=1 or rd.emergency=shell " \
	"on the command line allows one\n"

static struct fake_ops *cur;
static const char *answers[8];
static int nanswer;

static ssize_t x_read_secret(const char *prompt, char *buf, size_t size, struct loop *loop,
			     struct askpass *remote)
{
	(void)loop;
	strv_push_owned(&cur->log, xasprintf("prompt %s%s", prompt, remote ? " +remote" : ""));
	if (!nanswer)
		return err_set("end of input on /dev/console");
	snprintf(buf, size, "%s", answers[0]);
	memmove(answers, answers + 1, sizeof(answers) - sizeof(answers[0]));
	nanswer--;
	return (ssize_t)strlen(buf);
}

static pid_t x_spawn(const char *path, char *const argv[], char *const envp[])
{
	pid_t pid;

	(void)envp;
	strv_push_owned(&cur->log, xasprintf("spawn %s %s", path, argv[0]));
	pid = fork();
	if (pid == 0)
		_exit(0);
	return pid;
}

static const struct initops fake_initops = {
	.reboot = fake_reboot,
	.spawn = x_spawn,
	.read_secret = x_read_secret,
};

static void answer(const char *a)
{
	answers[nanswer++] = a;
}

/* An image with busybox (and hash: the rescue password); auto: a volume
 * was opened automatically in this boot. */
static struct fake_ops *setup(struct init *in, const char *cmdline, const char *hash, bool auto_)
{
	struct fake_ops *f = fake_ops_new();
	char *p;

	cur = f;
	nanswer = 0;
	fake_write(f, "/usr/bin/busybox", "");
	p = fake_path(f, "/usr/bin/busybox");
	chmod(p, 0755);
	free(p);
	if (hash)
		fake_write(f, LAYOUT_RESCUE_PASSWORD_FILE, hash);
	stack_init_start(in, f, cmdline, &fake_initops);
	in->stack.auto_unlocked = auto_;
	return f;
}

static void finish(struct fake_ops *f, struct init *in)
{
	stack_init_finish(f, in, test_cur_failed);
	cur = NULL;
}

static void test_password_check(void)
{
	CHECK(rescue_password_ok("right", HASH));
	CHECK(!rescue_password_ok("wrong", HASH));
	CHECK(!rescue_password_ok("right", "*"));
	CHECK(!rescue_password_ok("", "!"));
}

/* No automatic unlock, no password: the shell, as every initramfs gives. */
static void test_shell_by_default(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/sdz9 panic=-1", NULL, false);

	CHECK(failure(&in, false) == -EPERM);
	const char *order[] = { "spawn /usr/bin/busybox sh", "reboot 0x1234567" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(said("<3>starting /usr/bin/busybox (emergency shell); exit it to continue\n"));
	CHECK(fake_log_count(f, "prompt") == 0);
	finish(f, &in);
}

/* Issue 24, item 9: after a TPM2, clevis, key file or token unlock, a
 * failure reboots after the report; no shell. */
static void test_no_shell_after_automatic_unlock(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/sdz9 panic=-1", NULL, true);

	CHECK(failure(&in, true) == -EPERM);
	CHECK(fake_log_count(f, "spawn") == 0);
	CHECK(said(NO_SHELL_AUTO "<3>rebooting now\n"));
	CHECK(fake_log_find(f, "reboot 0x1234567") >= 0);
	finish(f, &in);

	/* the owner's opt-in on the command line: rd.shell=1 or rd.emergency=shell */
	static const char *const opt_in[] = { "rd.shell=1", "rd.shell", "rd.emergency=shell" };
	for (size_t i = 0; i < ARRAY_SIZE(opt_in); i++) {
		char *c = xasprintf("root=/dev/sdz9 panic=-1 %s", opt_in[i]);
		f = setup(&in, c, NULL, true);
		CHECK(failure(&in, false) == -EPERM);
		CHECK(fake_log_count(f, "spawn /usr/bin/busybox sh") == 1);
		CHECK(!said("not starting a shell"));
		finish(f, &in);
		free(c);
	}
	/* rd.shell=1 then rd.shell=0: the last word wins, no shell */
	f = setup(&in, "root=/dev/sdz9 panic=-1 rd.shell=1 rd.shell=0", NULL, true);
	CHECK(failure(&in, false) == -EPERM);
	CHECK(fake_log_count(f, "spawn") == 0);
	CHECK(said("<3>not starting a shell: rd.shell=0\n"));
	finish(f, &in);
}

/* A password shell authenticates: allowed after an automatic unlock. */
static void test_password(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/sdz9 panic=-1", HASH "\n", true);

	answer("wrong");
	answer("right");
	CHECK(failure(&in, false) == -EPERM);
	CHECK(fake_log_count(f, "prompt Password for the rescue shell: ") == 2);
	CHECK(said("<3>wrong password for the rescue shell\n"
		   "<3>starting /usr/bin/busybox (emergency shell); exit it to continue\n"));
	const char *order[] = { "prompt Password for the rescue shell: ",
				"prompt Password for the rescue shell: ", "spawn /usr/bin/busybox sh",
				"reboot 0x1234567" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	finish(f, &in);

	/* three wrong: the reboot path; the retry is not offered */
	f = setup(&in, "root=/dev/sdz9 panic=-1", HASH, false);
	answer("a");
	answer("b");
	answer("c");
	CHECK(failure(&in, true) == -EPERM);
	CHECK(fake_log_count(f, "spawn") == 0);
	CHECK(count_said("<3>wrong password for the rescue shell\n") == 3);
	CHECK(said("<3>no shell: 3 wrong passwords\n<3>rebooting now\n"));
	finish(f, &in);

	/* rd.shell=1 does not skip the password */
	f = setup(&in, "root=/dev/sdz9 panic=-1 rd.shell=1", HASH, false);
	CHECK(failure(&in, false) == -EPERM);
	CHECK(fake_log_count(f, "spawn") == 0);
	CHECK(said("<3>cannot read the rescue password: end of input on /dev/console\n"
		   "<3>rebooting now\n"));
	finish(f, &in);
}

static void test_emergency_actions(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/sdz9 rd.emergency=poweroff", NULL, false);

	/* no panic= wait: asked for at once */
	CHECK(failure(&in, true) == -EPERM);
	CHECK(fake_log_count(f, "spawn") == 0);
	CHECK(said("<3>not starting a shell: rd.emergency=poweroff\n<3>powering off now\n"));
	CHECK(fake_log_find(f, "reboot 0x4321fedc") >= 0);
	finish(f, &in);

	f = setup(&in, "root=/dev/sdz9 rd.emergency=halt", NULL, false);
	CHECK(failure(&in, true) == -EPERM);
	CHECK(said("<3>not starting a shell: rd.emergency=halt\n<3>halting now\n"));
	CHECK(fake_log_find(f, "reboot 0xcdef0123") >= 0);
	finish(f, &in);

	f = setup(&in, "root=/dev/sdz9 panic=-1 rd.emergency=reboot", NULL, false);
	CHECK(failure(&in, true) == -EPERM);
	CHECK(said("<3>not starting a shell: rd.emergency=reboot\n<3>rebooting now\n"));
	finish(f, &in);

	f = setup(&in, "root=/dev/sdz9 panic=-1 rd.emergency=sleep", NULL, false);
	CHECK(said("<4>ignoring rd.emergency=sleep: not reboot, poweroff, halt or shell\n"));
	CHECK(in.opt.emergency == EMERGENCY_UNSET);
	finish(f, &in);
}

/* rd.break= follows the same rule; refused, the boot goes on. */
static void test_break_points(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "rd.break=pre-mount", NULL, true);

	run_break(&in, BRK_PRE_MOUNT, "pre-mount");
	CHECK(fake_log_count(f, "spawn") == 0);
	CHECK(said(NO_SHELL_AUTO "<4>break point pre-mount: no shell, going on\n"));
	finish(f, &in);

	f = setup(&in, "rd.break=pre-mount rd.shell=1", NULL, true);
	run_break(&in, BRK_PRE_MOUNT, "pre-mount");
	CHECK(fake_log_count(f, "spawn /usr/bin/busybox sh") == 1);
	finish(f, &in);

	/* rd.emergency= is about failures: a break point still stops */
	f = setup(&in, "rd.break=pre-mount rd.emergency=reboot", NULL, false);
	run_break(&in, BRK_PRE_MOUNT, "pre-mount");
	CHECK(fake_log_count(f, "spawn /usr/bin/busybox sh") == 1);
	finish(f, &in);

	f = setup(&in, "rd.break=pre-mount", HASH, true);
	answer("right");
	run_break(&in, BRK_PRE_MOUNT, "pre-mount");
	CHECK(fake_log_count(f, "spawn /usr/bin/busybox sh") == 1);
	CHECK(said("<3>starting /usr/bin/busybox (pre-mount); exit it to continue\n"));
	finish(f, &in);
}

int main(void)
{
	RUN(test_password_check);
	RUN(test_shell_by_default);
	RUN(test_no_shell_after_automatic_unlock);
	RUN(test_password);
	RUN(test_emergency_actions);
	RUN(test_break_points);
	return test_done();
}
