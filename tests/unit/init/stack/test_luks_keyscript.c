// SPDX-License-Identifier: GPL-2.0-or-later
/* crypttab keyscript= in the init against fake ops: the script's
 * argument and CRYPTTAB_* variables, its stdout handed to cryptsetup as
 * a key file, a failing script or a wrong key retried up to tries= and
 * then given up on with its exact line, oversize output refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stack/luks_keyscript.h"
#include "init/stack/stack.h"
#include "layout.h"
#include "log.h"
#include "stack_helpers.h"
#include "test.h"

#define U1 "0f5c1e3a-7b2d-4c8e-9a6f-1d2e3f4a5b6c"
#define OPEN "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 cryptroot --key-file=- "

static struct fake_ops *cur;
static int statuses[8];     /* cryptsetup's, in turn */
static int ks_statuses[8];  /* the script's, in turn */
static const char *ks_out[8]; /* its stdout, in turn (NULL: none) */
static size_t ks_big;       /* when set: this many bytes of output instead */
static int runs;

static int x_run(const char *path, char *const argv[], char *const envp[], const void *input,
		 size_t len)
{
	int st = statuses[0];

	(void)envp;
	stack_log_run(cur, path, argv, NULL, input, len);
	memmove(statuses, statuses + 1, sizeof(statuses) - sizeof(statuses[0]));
	return st;
}

static int x_run_output(const char *path, char *const argv[], char *const envp[], char *out,
			size_t size, size_t *len)
{
	struct buf b = { 0 };
	const char *o = ks_out[0];
	int st = ks_statuses[0];

	buf_printf(&b, "script %s", path);
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	for (size_t i = 0; envp[i]; i++)
		if (!strncmp(envp[i], "CRYPTTAB_", 9))
			buf_printf(&b, " %s", envp[i]);
	strv_push_owned(&cur->log, b.p);
	*len = ks_big ? ks_big : o ? strlen(o) : 0;
	if (o)
		memcpy(out, o, strlen(o) < size ? strlen(o) : size);
	memmove(ks_out, ks_out + 1, sizeof(ks_out) - sizeof(ks_out[0]));
	memmove(ks_statuses, ks_statuses + 1, sizeof(ks_statuses) - sizeof(ks_statuses[0]));
	runs++;
	return st;
}

static ssize_t x_read_secret(const char *prompt, char *buf, size_t size, struct loop *loop,
			     struct askpass *remote)
{
	(void)loop;
	(void)remote;
	(void)buf;
	(void)size;
	strv_push_owned(&cur->log, xasprintf("prompt %s", prompt));
	return err_set("end of input on /dev/console");
}

static const struct initops fake_initops = {
	.reboot = fake_reboot,
	.run = x_run,
	.run_output = x_run_output,
	.read_secret = x_read_secret,
};

/* An image with cryptsetup, the scripts and this crypttab; /dev/vda2 a
 * LUKS2 device without tokens. */
static struct fake_ops *setup(struct init *in, const char *crypttab)
{
	struct fake_ops *f = fake_ops_new();

	cur = f;
	memset(statuses, 0, sizeof(statuses));
	memset(ks_statuses, 0, sizeof(ks_statuses));
	memset(ks_out, 0, sizeof(ks_out));
	ks_big = 0;
	runs = 0;
	fake_tool(f, "/usr/sbin/cryptsetup");
	fake_tool(f, "/usr/local/sbin/ks");
	fake_tool(f, LUKS_KEYSCRIPT_DIR "/decrypt_keyctl");
	fake_mkdir(f, "/dev");
	fake_write(f, "/etc/crypttab", crypttab);
	stack_luks2_header(f, "/dev/vda2", "{\"keyslots\":{}}");
	stack_init_start(in, f, "root=/dev/mapper/cryptroot", &fake_initops);
	stack_setup(&in->stack_env);
	return f;
}

static void finish(struct fake_ops *f, struct init *in)
{
	stack_init_finish(f, in, test_cur_failed);
	cur = NULL;
}

static void event(struct init *in)
{
	stack_event(in, "vda2", "crypto_LUKS", U1);
}

static void test_output_is_the_key(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "cryptroot UUID=" U1 " none luks,keyscript=/usr/local/sbin/ks\n");

	ks_out[0] = "s3cret\n";
	event(&in);
	CHECK(fake_log_find(f, "script /usr/local/sbin/ks /usr/local/sbin/ks none CRYPTTAB_NAME=cryptroot "
			       "CRYPTTAB_SOURCE=/dev/vda2 CRYPTTAB_KEY=none "
			       "CRYPTTAB_OPTIONS=luks,keyscript=/usr/local/sbin/ks CRYPTTAB_TRIED=0") >= 0);
	/* as a key file: every byte, the newline too */
	CHECK(fake_log_find(f, OPEN "<s3cret\n>") >= 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(said("<6>/dev/vda2: opened with the key from keyscript /usr/local/sbin/ks\n"));
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/cryptroot\n"));
	CHECK(in.stack.auto_unlocked);
	finish(f, &in);
}

static void test_name_and_key_field(void)
{
	struct init in;
	/* a bare name is Debian's scripts directory; the key field is its
	 * argument, never a key file, and keyfile-offset applies */
	struct fake_ops *f = setup(&in, "cryptroot UUID=" U1
				   " mykey luks,keyscript=decrypt_keyctl,keyfile-offset=2\n");

	ks_out[0] = "k";
	event(&in);
	CHECK(fake_log_find(f, "script " LUKS_KEYSCRIPT_DIR "/decrypt_keyctl " LUKS_KEYSCRIPT_DIR
			       "/decrypt_keyctl mykey CRYPTTAB_NAME=cryptroot CRYPTTAB_SOURCE=/dev/vda2 "
			       "CRYPTTAB_KEY=mykey CRYPTTAB_OPTIONS=luks,keyscript=decrypt_keyctl,"
			       "keyfile-offset=2 CRYPTTAB_TRIED=0") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks "
			       "--keyfile-offset=2 /dev/vda2 cryptroot --key-file=- <k>") >= 0);
	CHECK(fake_log_count(f, "--key-file=mykey") == 0);
	finish(f, &in);
}

static void test_failing_script_retried_then_given_up(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "cryptroot UUID=" U1 " none luks,keyscript=/usr/local/sbin/ks,tries=3\n");

	ks_statuses[0] = 1;
	ks_out[1] = "wrong";
	statuses[0] = 2; /* cryptsetup: no key slot opened with it */
	ks_statuses[2] = 1;
	event(&in);
	CHECK(runs == 3);
	CHECK(fake_log_find(f, "script /usr/local/sbin/ks /usr/local/sbin/ks none CRYPTTAB_NAME=cryptroot "
			       "CRYPTTAB_SOURCE=/dev/vda2 CRYPTTAB_KEY=none "
			       "CRYPTTAB_OPTIONS=luks,keyscript=/usr/local/sbin/ks,tries=3 CRYPTTAB_TRIED=2") >= 0);
	CHECK(count_said("<3>keyscript /usr/local/sbin/ks for /dev/vda2 failed (exit status 1)\n") == 2);
	CHECK(said("<3>the key from keyscript /usr/local/sbin/ks does not open /dev/vda2\n"));
	CHECK(said("<3>giving up on /dev/vda2 after 3 tries of keyscript /usr/local/sbin/ks\n"));
	CHECK(!said("wrong passphrases"));
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup") == 1);
	CHECK(!in.stack.auto_unlocked);
	finish(f, &in);
}

static void test_oversize_output_refused(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "cryptroot UUID=" U1 " none luks,keyscript=/usr/local/sbin/ks,tries=1\n");

	ks_out[0] = "x";
	ks_big = LUKS_KEYSCRIPT_MAX + 1;
	event(&in);
	CHECK(said("<3>keyscript /usr/local/sbin/ks for /dev/vda2 printed 8193 bytes, more than the "
		   "8192 a key may have; not trying it\n"));
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup") == 0);
	CHECK(said("<3>giving up on /dev/vda2 after 1 tries of keyscript /usr/local/sbin/ks\n"));
	finish(f, &in);
}

static void test_script_not_in_image(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "cryptroot UUID=" U1 " none luks,keyscript=/sbin/gone\n");

	event(&in);
	CHECK(said("<3>cannot run /sbin/gone none: /sbin/gone is not in this image\n"));
	CHECK(runs == 0);
	CHECK(!said("giving up"));
	finish(f, &in);
}

static void test_bad_keyscript_option(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "cryptroot UUID=" U1 " none luks,keyscript=../x\n");

	event(&in); /* the line's options are read for its device */
	CHECK(said("<4>/etc/crypttab cryptroot: ignoring keyscript=../x: expected a program in the "
		   "image (/PATH or a name in /lib/cryptsetup/scripts)\n"));
	finish(f, &in);
}

/* The real run_output: stdout read whole, the count past the buffer
 * told (the child never blocks on a full pipe), the exit status, the
 * environment given. */
static void test_real_run_output(void)
{
	char *const env[] = { "CRYPTTAB_TRIED=2", NULL };
	char *const a1[] = { "sh", "-c", "printf 'ab\\n%s' \"$CRYPTTAB_TRIED\"; exit 3", NULL };
	char *const a2[] = { "sh", "-c", "i=0; while [ $i -lt 300 ]; do printf '%064d' 0; i=$((i+1)); done",
			     NULL };
	char out[16];
	size_t len;

	if (access("/bin/sh", X_OK) < 0)
		SKIP("no /bin/sh");
	CHECK(real_run_output("/bin/sh", a1, env, out, sizeof(out), &len) == 3);
	CHECK(len == 4 && !memcmp(out, "ab\n2", 4));
	CHECK(real_run_output("/bin/sh", a2, env, out, sizeof(out), &len) == 0);
	CHECK(len == 300 * 64 && !memcmp(out, "0000000000000000", 16));
	err_clear();
	CHECK(real_run_output("/nonexistent/ks", a1, env, out, sizeof(out), &len) < 0);
	CHECK(str_has_prefix(err_msg(), "cannot execute "));
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_output_is_the_key);
	RUN(test_name_and_key_field);
	RUN(test_failing_script_retried_then_given_up);
	RUN(test_oversize_output_refused);
	RUN(test_script_not_in_image);
	RUN(test_bad_keyscript_option);
	RUN(test_real_run_output);
	buf_free(&msgs);
	return test_done();
}
