// SPDX-License-Identifier: GPL-2.0-or-later
/* LUKS, LVM and md in the init against fake ops: which tool runs with
 * which argv, what reaches its stdin, the exact messages of the prompt's
 * tries and failures, and dm names matching root=. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/remote/askpass.h"
#include "layout.h"
#include "log.h"
#include "luks2.h"
#include "init/stack/stack.h"
#include "stack_helpers.h"
#include "lvm_row.h"
#include "test.h"

#define U1 "0f5c1e3a-7b2d-4c8e-9a6f-1d2e3f4a5b6c"
#define U2 "a1b2c3d4-e5f6-4711-8899-aabbccddeeff"
#define U3 "3c2b1a00-9f8e-4d7c-b6a5-443322110000"

static struct fake_ops *cur;
static int statuses[8]; /* exit statuses the fake tools return, in turn; then 0 */
static const char *answers[8];
static int nanswer;

static void record_run(const char *path, char *const argv[], const void *input, size_t len)
{
	stack_log_run(cur, path, argv, NULL, input, len);
}

/* statuses are handed out front to back */
static int next_status(void)
{
	int st = statuses[0];
	memmove(statuses, statuses + 1, sizeof(statuses) - sizeof(statuses[0]));
	return st;
}

static int x_run_seq(const char *path, char *const argv[], char *const envp[],
		     const void *input, size_t len)
{
	(void)envp;
	record_run(path, argv, input, len);
	return next_status();
}

/* Devices that arrive while the prompt waits (handed to pump's world) */
static void (*at_prompt)(void *arg);

static ssize_t x_read_secret(const char *prompt, char *buf, size_t size, struct loop *loop,
			     struct askpass *remote)
{
	(void)remote;
	strv_push_owned(&cur->log, xasprintf("prompt %s", prompt));
	if (at_prompt) {
		void (*fn)(void *) = at_prompt;
		at_prompt = NULL;
		/* the init whose loop the prompt pumps */
		fn((char *)loop - offsetof(struct init, loop));
	}
	if (nanswer == 0 || !answers[0])
		return err_set("end of input on /dev/console");
	snprintf(buf, size, "%s", answers[0]);
	memmove(answers, answers + 1, sizeof(answers) - sizeof(answers[0]));
	nanswer--;
	return (ssize_t)strlen(buf);
}

static pid_t x_spawn(const char *path, char *const argv[], char *const envp[])
{
	(void)argv;
	(void)envp;
	strv_push_owned(&cur->log, xasprintf("spawn %s", path));
	return -ENOSYS;
}

/* The kernel's user keyring: one key, what was set last. */
static char keyring[512];
static size_t keyring_len;
static bool keyring_refuses;

static int x_key_set(const char *desc, const void *data, size_t len, unsigned timeout_s)
{
	strv_push_owned(&cur->log, xasprintf("key_set %s %zu bytes %us", desc, len, timeout_s));
	if (keyring_refuses || strcmp(desc, "cryptsetup") || len > sizeof(keyring))
		return -EDQUOT;
	memcpy(keyring, data, len);
	keyring_len = len;
	return 0;
}

static ssize_t x_key_get(const char *desc, void *buf, size_t size)
{
	if (strcmp(desc, "cryptsetup") || !keyring_len)
		return -ENOKEY;
	memcpy(buf, keyring, keyring_len < size ? keyring_len : size);
	return (ssize_t)keyring_len;
}

static const struct initops fake_initops = {
	.reboot = fake_reboot,
	.spawn = x_spawn,
	.run = x_run_seq,
	.read_secret = x_read_secret,
	.key_set = x_key_set,
	.key_get = x_key_get,
};

static struct fake_ops *setup(struct init *in, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	cur = f;
	memset(statuses, 0, sizeof(statuses));
	memset(answers, 0, sizeof(answers));
	nanswer = 0;
	keyring_len = 0;
	keyring_refuses = false;
	fake_tool(f, "/usr/sbin/cryptsetup");
	fake_tool(f, "/usr/sbin/lvm");
	fake_tool(f, "/sbin/mdadm");
	/* LVM is a plugin row of the image, uniramfs's own */
	fake_write(f, LAYOUT_PLUGIN_ROWS_FILE, LVM_ROW);
	stack_init_start(in, f, cmdline, &fake_initops);
	return f;
}

static void finish(struct fake_ops *f, struct init *in)
{
	stack_init_finish(f, in, test_cur_failed);
	cur = NULL;
}

static void dev(struct blockdev *bd, const char *name, const char *type, const char *uuid)
{
	memset(bd, 0, sizeof(*bd));
	bd->name = (char *)name;
	bd->devnode = xasprintf("/dev/%s", name);
	bd->type = (char *)type;
	bd->uuid = (char *)uuid;
}

static void event(struct init *in, const char *name, const char *type, const char *uuid)
{
	stack_event(in, name, type, uuid);
}

/* the prompt's one answer */
static void answer(const char *a)
{
	answers[0] = a;
	nanswer = 1;
}

/* the key's device of rd.luks.key=...:LABEL=keys arrives */
static void key_stick_arrives(struct init *in)
{
	struct blockdev stick;

	dev(&stick, "vdb", "ext4", U2);
	stick.label = (char *)"keys";
	stack_seen(&in->stack_env, DEV_ADDED, &stick);
	free(stick.devnode);
	run_jobs(in);
}

/* A tool that cannot start is a negative code up to the caller, with
 * the message said: not in the image (-ENOENT), or the real run's
 * child unable to execute it. */
static void test_run_that_cannot_start(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "");
	char *argv[] = { "nbd-client", NULL };
	char *none[] = { NULL };
	char *path;

	CHECK(tool_run(&in.stack_env, "nbd-client", argv, NULL, 0) == -ENOENT);
	CHECK(said("<3>cannot run nbd-client: nbd-client is not in this image\n"));
	path = fake_path(f, "/nonexistent/nbd-client");
	err_clear();
	CHECK(real_run(path, argv, none, NULL, 0) < 0);
	CHECK(str_has_prefix(err_msg(), "cannot execute "));
	CHECK(real_run(path, argv, none, "x", 1) < 0); /* through the stdin pipe */
	CHECK(str_has_prefix(err_msg(), "cannot execute "));
	free(path);
	finish(f, &in);
}

static void test_generic_luks_asks_and_pipes_passphrase(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1);

	stack_setup(&in.stack_env);
	answer("correct horse");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda2 (" U1 "): ") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=- <correct horse>") >= 0);
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	/* a change event for the same header: not asked again */
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_count(f, "prompt") == 1);
	CHECK(fake_log_count(f, "run") == 1);
	CHECK(!in.stack.auto_unlocked); /* typed: docs/unlock.md */
	finish(f, &in);
}

/* Issue 24: the prompt quotes the disk's own UUID, and goes to the
 * console without the log: escaped as the log is. */
static void test_prompt_escapes_the_disks_text(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x");

	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", "\x1b[2J\rUUID\xc2\x9b" "0m");
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda2 (\\x1b[2J\\x0dUUID\\xc2\\x9b0m): ") >= 0);
	finish(f, &in);
}

static void test_wrong_passphrase_three_times_then_failure(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.shell=0 panic=-1");

	stack_setup(&in.stack_env);
	answers[0] = "a";
	answers[1] = "b";
	answers[2] = "c";
	nanswer = 3;
	statuses[0] = statuses[1] = statuses[2] = 2;
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_count(f, "prompt Passphrase for /dev/vda2") == 3);
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup") == 3);
	CHECK(count_said("<3>wrong passphrase for /dev/vda2\n") == 3);
	CHECK(said("<3>wrong passphrase for /dev/vda2\n"
		   "<3>wrong passphrase for /dev/vda2\n"
		   "<3>wrong passphrase for /dev/vda2\n"
		   "<3>giving up on /dev/vda2 after 3 wrong passphrases\n"
		   "<3>not starting a shell: rd.shell=0\n"
		   "<3>rebooting now\n"));
	CHECK(fake_log_count(f, "reboot 0x1234567") == 1);
	CHECK(!said("unlocked"));
	finish(f, &in);
}

static void test_wrong_then_right_and_tries_option(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.tries=2");

	stack_setup(&in.stack_env);
	answers[0] = "wrong";
	answers[1] = "right";
	nanswer = 2;
	statuses[0] = 2;
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(count_said("wrong passphrase for /dev/vda2") == 1);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/cryptsetup", 0) >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=- <right>") >= 0);
	CHECK(said("unlocked /dev/vda2"));
	finish(f, &in);

	f = setup(&in, "root=/dev/mapper/x rd.luks.tries=2 rd.shell=0 panic=-1");
	stack_setup(&in.stack_env);
	answers[0] = "a";
	answers[1] = "b";
	nanswer = 2;
	statuses[0] = statuses[1] = 2;
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<3>giving up on /dev/vda2 after 2 wrong passphrases\n"));
	finish(f, &in);
}

/* A typed passphrase goes into the keyring as systemd-cryptsetup puts
 * it ("cryptsetup", NUL-terminated, 150 s), and opens the next volume
 * without a prompt; one that does not fit it is asked for, and its own
 * passphrase is added beside the first. */
static void test_passphrase_typed_once_for_several_volumes(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.uuid=" U1 " rd.luks.uuid=" U2
				   " rd.luks.uuid=" U3);

	stack_setup(&in.stack_env);
	answer("shared");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_find(f, "key_set cryptsetup 7 bytes 150s") >= 0);
	CHECK(keyring_len == 7 && !memcmp(keyring, "shared", 7));
	event(&in, "vdb", "crypto_LUKS", U2);
	CHECK(fake_log_count(f, "prompt") == 1);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vdb luks-" U2
			       " --key-file=- <shared>") >= 0);
	CHECK(said("<6>/dev/vdb: opened with a passphrase typed earlier in this boot\n"
		   "<6>unlocked /dev/vdb as /dev/mapper/luks-" U2 "\n"));
	/* the third has its own: the cached one fails (2), then it asks */
	statuses[0] = 2;
	answer("other");
	event(&in, "vdc", "crypto_LUKS", U3);
	CHECK(fake_log_count(f, "prompt") == 2);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vdc luks-" U3
			       " --key-file=- <other>") >= 0);
	CHECK(keyring_len == 13 && !memcmp(keyring, "shared\0other\0", 13));
	CHECK(!in.stack.auto_unlocked); /* reused from the keyring: still typed */
	finish(f, &in);
}

/* An SSH login that answered for one volume is told that its answer
 * opened the next one too (booster's "Unlocked:" for each device). */
static void test_cached_passphrase_told_to_ssh_login(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.uuid=" U1 " rd.luks.uuid=" U2);
	char got[512];
	ssize_t n;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	CHECK(askpass_add(&in.ssh.ask, sv[0]) == 0);
	stack_setup(&in.stack_env);
	answer("shared");
	event(&in, "vda2", "crypto_LUKS", U1);
	event(&in, "vdb", "crypto_LUKS", U2);
	CHECK(fake_log_count(f, "prompt") == 1);
	n = recv(sv[1], got, sizeof(got) - 1, MSG_DONTWAIT);
	got[n > 0 ? n : 0] = '\0';
	CHECK_STR(got, "say unlocked\n"
		       "say /dev/vdb: opened with a passphrase typed earlier in this boot\n");
	askpass_close(&in.ssh.ask);
	close(sv[1]);
	finish(f, &in);
}

/* A keyring that refuses (a kernel without CONFIG_KEYS) costs a
 * warning, never the unlock. */
static void test_keyring_refused_still_unlocks(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.uuid=" U1);

	stack_setup(&in.stack_env);
	answer("p");
	keyring_refuses = true;
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<4>cannot keep the passphrase in the kernel keyring: Disk quota exceeded; "
		   "the root's own crypttab volumes will ask again\n"));
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	finish(f, &in);
}

/* At the prompt an LVM PV appears: its event only queues a job, which
 * runs once the prompt is over, never inside it. */
static void arrive_at_prompt(void *arg)
{
	struct init *in = arg;
	struct blockdev bd;

	dev(&bd, "vdb1", "LVM2_member", "pv");
	stack_seen(&in->stack_env, DEV_ADDED, &bd);
	free(bd.devnode);
	CHECK(fake_log_count(cur, "run /usr/sbin/lvm") == 0);
}

static void test_devices_at_the_prompt_wait_for_it(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vg0/root");
	int crypt, lvm;

	stack_setup(&in.stack_env);
	answer("p");
	at_prompt = arrive_at_prompt;
	event(&in, "vda2", "crypto_LUKS", U1);
	crypt = fake_log_find_prefix(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2", 0);
	lvm = fake_log_find(f, "run /usr/sbin/lvm /usr/sbin/lvm vgchange -ay --sysinit");
	CHECK(crypt >= 0 && lvm > crypt);
	CHECK(fake_log_count(f, "prompt") == 1);
	CHECK(said("<6>unlocked /dev/vda2 as /dev/mapper/luks-" U1 "\n"));
	finish(f, &in);
}

static void test_passphrase_too_long(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.tries=2");
	char lng[700];

	memset(lng, 'x', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	stack_setup(&in.stack_env);
	answers[0] = lng;
	answers[1] = "right";
	nanswer = 2;
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<3>the passphrase for /dev/vda2 is longer than 512 characters, the most "
		   "cryptsetup takes typed; not trying it\n"));
	CHECK(fake_log_count(f, "prompt") == 2);
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup") == 1);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=- <right>") >= 0);
	finish(f, &in);
}

static void test_no_console_and_other_cryptsetup_error(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x");

	stack_setup(&in.stack_env);
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<3>cannot read a passphrase for /dev/vda2: end of input on /dev/console\n"));
	CHECK(fake_log_count(f, "run") == 0);
	finish(f, &in);

	f = setup(&in, "root=/dev/mapper/x");
	stack_setup(&in.stack_env);
	answer("p");
	statuses[0] = 5;
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<3>cryptsetup could not open /dev/vda2 (exit status 5)\n"));
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);
}

static void test_generic_leaves_luks_locked_once_root_is_there(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda1");

	stack_setup(&in.stack_env);
	in.root = xstrdup("vda1");
	event(&in, "vdb1", "crypto_LUKS", U2);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(said("<6>/dev/vdb1: LUKS UUID=" U2 " left locked: the root is already there\n"));
	finish(f, &in);

	/* named on the command line: unlocked anyway (a /usr, a swap) */
	f = setup(&in, "root=/dev/vda1 rd.luks.uuid=" U2);
	stack_setup(&in.stack_env);
	in.root = xstrdup("vda1");
	answer("p");
	event(&in, "vdb1", "crypto_LUKS", U2);
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup") == 1);
	finish(f, &in);
}

/* rd.overlay.crypt='s device of an earlier boot (stages/overlaycrypt.c):
 * its key is gone, so no prompt, even while the root is still to come
 * and even when rd.luks.uuid= names it. */
static void test_former_overlay_crypt_left_alone(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1 " rd.luks.uuid=" U2);
	char *p;
	FILE *fp;

	stack_setup(&in.stack_env);
	fake_mkdir(f, "/dev");
	stack_luks2_header(f, "/dev/vdb", "{}");
	p = fake_path(f, "/dev/vdb");
	fp = fopen(p, "r+b");
	CHECK(fp && fseek(fp, 208, SEEK_SET) == 0 && fputs(LUKS2_SUBSYSTEM_OVERLAY, fp) >= 0);
	if (fp)
		fclose(fp);
	free(p);
	event(&in, "vdb", "crypto_LUKS", U2);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(fake_log_count(f, "run") == 0);
	CHECK(said("<6>/dev/vdb: LUKS UUID=" U2 " is a former rd.overlay.crypt= upper layer (its key "
		   "is gone), not opened\n"));
	finish(f, &in);
}

static void test_rd_luks_0_skips(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda1 rd.luks=0");

	stack_setup(&in.stack_env);
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_count(f, "run") == 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	finish(f, &in);
}

static void test_rd_luks_uuid_restricts(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.uuid=luks-" U1);

	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vdb1", "crypto_LUKS", U2);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(said("<6>/dev/vdb1: LUKS UUID=" U2 " not asked for, left locked\n"));
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_count(f, "prompt Passphrase for /dev/vda2") == 1);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1, 0) >= 0);
	finish(f, &in);

	/* upper case, no prefix */
	f = setup(&in, "root=/dev/mapper/x rd.luks.uuid=0F5C1E3A-7B2D-4C8E-9A6F-1D2E3F4A5B6C");
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup") == 1);
	finish(f, &in);
}

static void test_rd_luks_name_names_mapping(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/cryptroot rd.luks.name=" U1 "=cryptroot "
					"rd.luks.options=discard");

	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vdb1", "crypto_LUKS", U2); /* named ones only */
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_count(f, "run") == 1);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --allow-discards "
			       "/dev/vda2 cryptroot --key-file=- <p>") >= 0);
	finish(f, &in);
}

/* systemd-cryptsetup: rd.luks.options=UUID=OPTS is that device's alone,
 * instead of the options for every device; rd.luks.allow-discards is
 * every device's. */
static void test_rd_luks_options_per_uuid(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.uuid=" U1 " rd.luks.uuid=" U2
					" rd.luks.options=" U1 "=no-read-workqueue rd.luks.options=discard");

	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	answer("q");
	statuses[0] = 2; /* vda2's passphrase, tried first, is not vdb1's */
	event(&in, "vdb1", "crypto_LUKS", U2);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks "
			       "--perf-no_read_workqueue /dev/vda2 luks-" U1 " --key-file=- <p>") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --allow-discards "
			       "/dev/vdb1 luks-" U2 " --key-file=- <q>") >= 0);
	finish(f, &in);

	f = setup(&in, "root=/dev/mapper/x rd.luks.uuid=" U1 " rd.luks.allow-discards "
		       "rd.luks.options=0F5C1E3A7B2D4C8E9A6F1D2E3F4A5B6C=no-write-workqueue");
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --allow-discards "
			       "--perf-no_write_workqueue /dev/vda2 luks-" U1 " --key-file=- <p>") >= 0);
	finish(f, &in);
}

static void test_keyfile_from_cmdline(void)
{
	struct init in;
	/* dracut's KEYPATH:KEYDEV:LUKSDEV with KEYDEV empty: in the image */
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.key=/etc/keys/root.key::UUID=" U1);

	fake_write(f, "/etc/keys/root.key", "sekrit");
	stack_setup(&in.stack_env);
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=/etc/keys/root.key") >= 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(in.stack.auto_unlocked); /* a key file in the image: automatic */
	finish(f, &in);

	/* systemd's UUID=KEYPATH; a key that does not open it: the passphrase is asked */
	f = setup(&in, "root=/dev/mapper/x rd.luks.key=" U1 "=/etc/keys/root.key");
	fake_write(f, "/etc/keys/root.key", "sekrit");
	stack_setup(&in.stack_env);
	statuses[0] = 2;
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<4>key file /etc/keys/root.key does not unlock /dev/vda2; asking for the passphrase\n"));
	CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup") == 2);
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);

	/* a key for another device is not used; a missing one says so */
	f = setup(&in, "root=/dev/mapper/x rd.luks.key=/k::luks-" U2 " rd.luks.key=/missing.key");
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<4>key file /missing.key for /dev/vda2 is not in this image; asking for the passphrase\n"));
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);
}

/* uniramfs once read rd.luks.key=PATH:UUID with the LUKS device second;
 * dracut and systemd put the key's device there. A bare UUID is no
 * device: said, and not silently taken for either. */
static void test_keyfile_old_form_refused(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.key=/etc/keys/root.key:" U1
				   " rd.luks.key=keys/root.key rd.luks.key=/k:PARTUUID=" U1 "/PARTNROFF=1");

	fake_write(f, "/etc/keys/root.key", "sekrit");
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<4>ignoring rd.luks.key=/etc/keys/root.key:" U1 ": \"" U1 "\" is not a device "
		   "(the second field names the device holding the key, as in dracut: UUID=, LABEL=, "
		   "/dev/...; for the LUKS device write rd.luks.key=/etc/keys/root.key::UUID=" U1 ")\n"));
	CHECK(said("<4>ignoring rd.luks.key=keys/root.key: the key file must be an absolute path\n"));
	/* the kernel's root= form is no key device: nothing answers it here */
	CHECK(strstr(msgs.p, "<4>ignoring rd.luks.key=/k:PARTUUID=" U1 "/PARTNROFF=1: \"PARTUUID="));
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);
}

/* dracut's KEYPATH:KEYDEV: the stick comes after the LUKS device; the
 * unlock waits for it, mounts it read-only, pipes the key, unmounts. */
static void test_keyfile_on_another_device(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.key=/keys/root.key:LABEL=keys");

	fake_write(f, "/run/uniramfs/keydev/keys/root.key", "sekrit\n");
	stack_setup(&in.stack_env);
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<6>/dev/vda2: waiting for the key's device LABEL=keys\n"));
	CHECK(fake_log_count(f, "run") == 0);
	key_stick_arrives(&in);
	CHECK(fake_log_find(f, "mount /dev/vdb /run/uniramfs/keydev ext4 0xf -") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=- <sekrit\n>") >= 0);
	CHECK(fake_log_find(f, "umount /run/uniramfs/keydev 0x0") >= 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(in.stack.auto_unlocked); /* a key on a stick: automatic */
	finish(f, &in);

	/* the stick never comes: half way through rd.timeout, the passphrase */
	f = setup(&in, "root=/dev/mapper/x rd.luks.key=/keys/root.key:LABEL=keys");
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(stack_half_time(&in.stack_env));
	run_jobs(&in);
	CHECK(said("<4>the key's device LABEL=keys for /dev/vda2 did not appear; asking for the "
		   "passphrase\n"));
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);

	/* a key path that climbs out of the stick is not read */
	f = setup(&in, "root=/dev/mapper/x rd.luks.key=/keys/../../etc/shadow:LABEL=keys");
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	key_stick_arrives(&in);
	CHECK(said("<4>key file /keys/../../etc/shadow on LABEL=keys: not a plain absolute path\n"));
	CHECK(fake_log_count(f, "mount") == 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);

	/* the stick holds no such file: said, then the passphrase */
	f = setup(&in, "root=/dev/mapper/x rd.luks.key=/nokey:LABEL=keys:UUID=" U1);
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	key_stick_arrives(&in);
	CHECK(said("<4>cannot read key file /nokey on LABEL=keys (/dev/vdb): No such file or directory\n"));
	CHECK(fake_log_find(f, "umount /run/uniramfs/keydev 0x0") >= 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);
}

/* Issue 24: the key device is a stranger's USB stick. Its key file is
 * opened beneath the mount point with no symlink anywhere in the path
 * and without blocking, and must be a regular file: a FIFO would hang
 * the unlock forever, a directory link would read a file of the
 * initramfs itself. Each refusal is said, then the passphrase asked;
 * the same through openat2 and through the walk that stands in for it
 * on kernels before 5.6. */
static void test_keydev_hostile(void)
{
	for (int walk = 0; walk < 2; walk++) {
		static const char *const cases[] = { "fifo", "dirlink", "abslink", "dir", "plain" };
		luks_key_force_walk(walk);
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			struct init in;
			struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.key=/keys/root.key:LABEL=keys");
			const char *c = cases[i];
			char *p, *line;

			/* what a directory link would reach: the initramfs's own key */
			fake_write(f, "/etc/keys/root.key", "initramfs\n");
			if (!strcmp(c, "fifo")) {
				fake_mkdir(f, "/run/uniramfs/keydev/keys");
				p = fake_path(f, "/run/uniramfs/keydev/keys/root.key");
				CHECK(mkfifo(p, 0600) == 0);
				free(p);
			} else if (!strcmp(c, "dirlink")) {
				fake_symlink(f, "../../../etc/keys", "/run/uniramfs/keydev/keys");
			} else if (!strcmp(c, "abslink")) {
				/* absolute: as the fake's tree lies on the host, the
				 * host's path of the initramfs's /etc/keys */
				p = fake_path(f, "/etc/keys");
				fake_symlink(f, p, "/run/uniramfs/keydev/keys");
				free(p);
			} else if (!strcmp(c, "dir")) {
				fake_mkdir(f, "/run/uniramfs/keydev/keys/root.key");
			} else {
				fake_write(f, "/run/uniramfs/keydev/keys/root.key", "sekrit\n");
			}
			stack_setup(&in.stack_env);
			answer("p");
			event(&in, "vda2", "crypto_LUKS", U1);
			key_stick_arrives(&in);
			CHECK(fake_log_find(f, "umount /run/uniramfs/keydev 0x0") >= 0);
			if (!strcmp(c, "plain")) {
				CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
						       " --key-file=- <sekrit\n>") >= 0);
				CHECK(fake_log_count(f, "prompt") == 0);
				finish(f, &in);
				continue;
			}
			/* nothing of the initramfs's own key reached cryptsetup */
			CHECK(fake_log_count(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
						" --key-file=- <initramfs") == 0);
			CHECK(fake_log_count(f, "prompt") == 1);
			if (!strcmp(c, "fifo") || !strcmp(c, "dir"))
				line = xasprintf("<4>key file /keys/root.key on LABEL=keys (/dev/vdb): refused: %s, not a "
						 "regular file\n", !strcmp(c, "fifo") ? "a FIFO" : "a directory");
			else
				line = xasprintf("<4>key file /keys/root.key on LABEL=keys (/dev/vdb): refused: a symbolic "
						 "link in its path (a key device's key file is read through plain "
						 "directories only)\n");
			if (!said(line))
				printf("# %s (walk %d): not said: %s%s", c, walk, line, msgs.p);
			CHECK(said(line));
			free(line);
			finish(f, &in);
		}
	}
	luks_key_force_walk(false);
}

/* crypttab's header=, keyfile-offset=, keyfile-size=, tries=, discard and
 * the workqueue options reach cryptsetup; a device whose header is
 * detached holds no LUKS signature, so its crypttab line finds it. */
static void test_crypttab_open_options(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x");
	char hdr[4096] = "LUKS\xba\xbe";

	memcpy(hdr + 168, U1, strlen(U1) + 1);
	fake_write(f, "/etc/crypttab",
		   "cryptroot /dev/vda none header=/etc/uniramfs/keys/root.hdr,no-read-workqueue,"
		   "no-write-workqueue,tries=1\n"
		   "cryptdata UUID=" U2 " /etc/keys/k keyfile-offset=512,keyfile-size=64,discard\n");
	{
		char *p = fake_path(f, "/etc/uniramfs/keys/root.hdr");
		FILE *fp;
		fake_write(f, "/etc/uniramfs/keys/root.hdr", "");
		fp = fopen(p, "w");
		fwrite(hdr, 1, sizeof(hdr), fp);
		fclose(fp);
		free(p);
	}
	fake_write(f, "/etc/keys/k", "key");
	stack_setup(&in.stack_env);
	answer("p");
	statuses[0] = 2; /* a wrong passphrase, and tries=1 */
	event(&in, "vda", NULL, NULL); /* random data: blkid sees nothing */
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda (" U1 "): ") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks "
			       "--perf-no_read_workqueue --perf-no_write_workqueue "
			       "--header=/etc/uniramfs/keys/root.hdr /dev/vda cryptroot --key-file=- <p>") >= 0);
	CHECK(said("<3>giving up on /dev/vda after 1 wrong passphrases\n"));
	CHECK(fake_log_count(f, "prompt") == 1);
	event(&in, "vdb", "crypto_LUKS", U2);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --allow-discards "
			       "--keyfile-offset=512 --keyfile-size=64 /dev/vdb cryptdata "
			       "--key-file=/etc/keys/k") >= 0);
	finish(f, &in);
}

static void test_crypttab_in_image(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x");

	fake_write(f, "/etc/crypttab", "# hostonly\n"
				       "cryptroot UUID=" U1 " /etc/keys/k luks,discard\n"
				       "cryptswap /dev/vdc1 none luks\n");
	fake_write(f, "/etc/keys/k", "key");
	stack_setup(&in.stack_env);
	event(&in, "vdb1", "crypto_LUKS", U2); /* not in crypttab */
	CHECK(fake_log_count(f, "run") == 0);
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --allow-discards "
			       "/dev/vda2 cryptroot --key-file=/etc/keys/k") >= 0);
	answer("p");
	event(&in, "vdc1", "crypto_LUKS", U2 "0");
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vdc1 "
			       "cryptswap --key-file=- <p>") >= 0);
	finish(f, &in);

	/* rd.luks.crypttab=0: crypttab ignored, every LUKS device wanted */
	f = setup(&in, "root=/dev/mapper/x rd.luks.crypttab=0");
	fake_write(f, "/etc/crypttab", "cryptroot UUID=" U1 " none\n");
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vdb1", "crypto_LUKS", U2);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vdb1 luks-" U2, 0) >= 0);
	finish(f, &in);
}

static void test_missing_tool(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x");
	char *p = fake_path(f, "/usr/sbin/cryptsetup");

	unlink(p);
	free(p);
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(said("<3>cannot run cryptsetup open --type luks /dev/vda2 luks-" U1
		   " --key-file=-: cryptsetup is not in this image\n"));
	finish(f, &in);
}

static void test_lvm_activation(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vg0/root");

	stack_setup(&in.stack_env);
	event(&in, "dm-0", "LVM2_member", "pv-uuid-1");
	CHECK(fake_log_find(f, "run /usr/sbin/lvm /usr/sbin/lvm vgchange -ay --sysinit") >= 0);
	event(&in, "dm-0", "LVM2_member", "pv-uuid-1"); /* change event: once per PV */
	CHECK(fake_log_count(f, "run") == 1);
	event(&in, "vdb", "LVM2_member", "pv-uuid-2"); /* another PV: again */
	CHECK(fake_log_count(f, "run /usr/sbin/lvm /usr/sbin/lvm vgchange -ay --sysinit") == 2);
	finish(f, &in);

	f = setup(&in, "root=/dev/vg0/root rd.lvm.vg=vg0 rd.lvm.lv=vg1/usr,vg1/var");
	stack_setup(&in.stack_env);
	event(&in, "vda3", "LVM2_member", "x");
	CHECK(fake_log_find(f, "run /usr/sbin/lvm /usr/sbin/lvm vgchange -ay --sysinit -- vg0") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/lvm /usr/sbin/lvm lvchange -ay --sysinit -- vg1/usr vg1/var") >= 0);
	CHECK(fake_log_count(f, "run") == 2);
	finish(f, &in);

	/* a name that looks like an option stays a name */
	f = setup(&in, "root=/dev/vg0/root rd.lvm.vg=--yes,-ffoo rd.lvm.lv=-x/y");
	stack_setup(&in.stack_env);
	event(&in, "vda3", "LVM2_member", "x");
	CHECK(fake_log_find(f, "run /usr/sbin/lvm /usr/sbin/lvm vgchange -ay --sysinit -- --yes -ffoo") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/lvm /usr/sbin/lvm lvchange -ay --sysinit -- -x/y") >= 0);
	finish(f, &in);

	f = setup(&in, "root=/dev/vda1 rd.lvm=0");
	stack_setup(&in.stack_env);
	event(&in, "vda3", "LVM2_member", "x");
	CHECK(fake_log_count(f, "run") == 0);
	finish(f, &in);
}

/* No modprobe in the image: the init loads the dm targets itself, and
 * dm_raid (raid456's slow benchmark) only after lvm failed without it. */
static void test_lvm_loads_modules_and_raid_on_failure(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vg0/root");
	const char *mods[] = { "dm-mod", "dm-snapshot", "dm-raid" };
	int first, raid, second;

	for (size_t i = 0; i < ARRAY_SIZE(mods); i++) {
		char *p = xasprintf("/lib/modules/T/kernel/drivers/md/%s.ko", mods[i]);
		fake_write(f, p, "");
		free(p);
	}
	fake_write(f, "/lib/modules/T/modules.dep", "kernel/drivers/md/dm-mod.ko:\n"
		   "kernel/drivers/md/dm-snapshot.ko: kernel/drivers/md/dm-mod.ko\n"
		   "kernel/drivers/md/dm-raid.ko: kernel/drivers/md/dm-mod.ko\n");
	fake_write(f, "/lib/modules/T/modules.alias", "");
	fake_write(f, "/lib/modules/T/modules.softdep", "");
	fake_write(f, "/lib/modules/T/modules.builtin", "");
	in.ml = in.stack_env.ml = modload_new(&f->ops, "/lib/modules/T");
	CHECK(in.ml != NULL);
	stack_setup(&in.stack_env);
	statuses[0] = 5;
	event(&in, "vda3", "LVM2_member", "x");
	first = fake_log_find(f, "run /usr/sbin/lvm /usr/sbin/lvm vgchange -ay --sysinit");
	raid = fake_log_find(f, "finit_module dm_raid params=''");
	second = fake_log_find_prefix(f, "run /usr/sbin/lvm", first + 1);
	CHECK(fake_log_find(f, "finit_module dm_mod params=''") >= 0 &&
	      fake_log_find(f, "finit_module dm_mod params=''") < first);
	CHECK(fake_log_find(f, "finit_module dm_snapshot params=''") < first);
	CHECK(first >= 0 && raid > first && second > raid);
	CHECK(fake_log_count(f, "run") == 2);
	/* a second PV: no more loading, one run */
	event(&in, "vdb3", "LVM2_member", "y");
	CHECK(fake_log_count(f, "run") == 3);
	CHECK(fake_log_count(f, "finit_module") == 3);
	modload_free(in.ml);
	in.ml = in.stack_env.ml = NULL;
	finish(f, &in);
}

static void test_md_incremental(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/md0");

	stack_setup(&in.stack_env);
	event(&in, "sda1", "linux_raid_member", "3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718");
	event(&in, "sdb1", "linux_raid_member", "3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718");
	event(&in, "sdb1", "linux_raid_member", "3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718");
	CHECK(fake_log_find(f, "run /sbin/mdadm mdadm -I /dev/sda1") >= 0);
	CHECK(fake_log_find(f, "run /sbin/mdadm mdadm -I /dev/sdb1") >= 0);
	CHECK(fake_log_count(f, "run") == 2);
	finish(f, &in);

	/* mdadm's spelling of the UUID restricts blkid's */
	f = setup(&in, "root=/dev/md0 rd.md.uuid=3f1a7c2e:9b8d4e5f:a1b2c3d4:e5f60718");
	stack_setup(&in.stack_env);
	event(&in, "sdc1", "linux_raid_member", "11111111-2222-3333-4444-555555555555");
	event(&in, "sda1", "linux_raid_member", "3F1A7C2E-9B8D-4E5F-A1B2-C3D4E5F60718");
	CHECK(fake_log_count(f, "run") == 1);
	CHECK(fake_log_find(f, "run /sbin/mdadm mdadm -I /dev/sda1") >= 0);
	CHECK(said("<6>/dev/sdc1: RAID member of UUID=11111111-2222-3333-4444-555555555555, not in rd.md.uuid, left alone\n"));
	finish(f, &in);

	f = setup(&in, "root=/dev/md0 rd.md=0");
	stack_setup(&in.stack_env);
	event(&in, "sda1", "linux_raid_member", "x");
	CHECK(fake_log_count(f, "run") == 0);
	finish(f, &in);

	/* firmware RAID members (Intel IMSM, SNIA DDF) go the same way */
	f = setup(&in, "root=/dev/md126");
	stack_setup(&in.stack_env);
	event(&in, "sda", "isw_raid_member", NULL);
	event(&in, "sdb", "ddf_raid_member", NULL);
	CHECK(fake_log_find(f, "run /sbin/mdadm mdadm -I /dev/sda") >= 0);
	CHECK(fake_log_find(f, "run /sbin/mdadm mdadm -I /dev/sdb") >= 0);
	finish(f, &in);
}

/* dracut's rd.auto: written out as 0, only what the command line names
 * (rd.md.uuid, rd.luks.uuid or crypttab, rd.lvm.vg/lv) is assembled;
 * "rd.auto" alone, =1, or no word at all: everything found. */
static void test_rd_auto(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vg0/root rd.auto=0");

	stack_setup(&in.stack_env);
	event(&in, "sda1", "linux_raid_member", "3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718");
	event(&in, "vda3", "LVM2_member", "x");
	event(&in, "vdb1", "crypto_LUKS", U2);
	CHECK(fake_log_count(f, "run") == 0);
	CHECK(fake_log_count(f, "prompt") == 0);
	CHECK(said("<6>rd.auto=0: md arrays left alone: no rd.md.uuid= names one\n"));
	CHECK(said("<6>plugin lvm: rd.auto=0: LVM2_member devices left alone: no option of the "
		   "plugin's names one\n"));
	CHECK(said("<6>/dev/vdb1: LUKS UUID=" U2 " left locked: rd.auto=0, and no rd.luks.uuid= or "
		   "crypttab line names it\n"));
	finish(f, &in);

	/* what is named is assembled; the last rd.auto counts */
	f = setup(&in, "root=/dev/vg0/root rd.auto rd.auto=0 rd.md.uuid=3f1a7c2e:9b8d4e5f:a1b2c3d4:e5f60718 "
		       "rd.lvm.vg=vg0 rd.luks.uuid=" U1);
	stack_setup(&in.stack_env);
	answer("p");
	event(&in, "sda1", "linux_raid_member", "3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718");
	event(&in, "vda3", "LVM2_member", "x");
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_find(f, "run /sbin/mdadm mdadm -I /dev/sda1") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/lvm /usr/sbin/lvm vgchange -ay --sysinit -- vg0") >= 0);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1, 0) >= 0);
	finish(f, &in);

	/* a crypttab line names its device */
	f = setup(&in, "root=/dev/mapper/x rd.auto=0");
	fake_write(f, "/etc/crypttab", "cryptroot UUID=" U1 " /etc/keys/k\n");
	fake_write(f, "/etc/keys/k", "key");
	stack_setup(&in.stack_env);
	event(&in, "vda2", "crypto_LUKS", U1);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 cryptroot "
			       "--key-file=/etc/keys/k") >= 0);
	finish(f, &in);

	/* rd.auto, rd.auto=1: everything, as without the word */
	f = setup(&in, "root=/dev/vg0/root rd.auto=0 rd.auto=1");
	stack_setup(&in.stack_env);
	event(&in, "sda1", "linux_raid_member", "3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718");
	event(&in, "vda3", "LVM2_member", "x");
	CHECK(fake_log_count(f, "run") == 2);
	finish(f, &in);

	f = setup(&in, "root=/dev/vg0/root rd.auto=maybe");
	stack_setup(&in.stack_env);
	CHECK(said("<4>ignoring rd.auto=maybe: not a boolean (use 1 or 0)\n"));
	event(&in, "vda3", "LVM2_member", "x");
	CHECK(fake_log_count(f, "run") == 1);
	finish(f, &in);
}

static void test_md_degraded_after_half_timeout(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/md0 rd.timeout=1");
	long long t0;

	fake_write(f, "/proc/mdstat", "Personalities : [raid1]\n"
				      "md127 : inactive sda1[0](S)\n      1047552 blocks super 1.2\n\n"
				      "unused devices: <none>\n");
	stack_setup(&in.stack_env);
	event(&in, "sda1", "linux_raid_member", "x");
	t0 = now_ms(&in);
	CHECK(init_wait_root(&in) == 0);
	CHECK(now_ms(&in) - t0 >= 1000); /* the fake clock: no real second */
	CHECK(said("<4>starting RAID array(s) degraded: some members did not appear\n"
		   "<3>root device root=/dev/md0 did not appear within 1 seconds\n"));
	CHECK(fake_log_find(f, "run /sbin/mdadm mdadm -IRs") >= 0);
	finish(f, &in);

	/* every array complete: nothing started, no warning */
	f = setup(&in, "root=/dev/md0 rd.timeout=1");
	fake_write(f, "/proc/mdstat", "Personalities : [raid1]\n"
				      "md127 : active raid1 sdb1[1] sda1[0]\n\nunused devices: <none>\n");
	stack_setup(&in.stack_env);
	event(&in, "sda1", "linux_raid_member", "x");
	CHECK(init_wait_root(&in) == 0);
	CHECK(!said("degraded"));
	CHECK(fake_log_count(f, "run /sbin/mdadm mdadm -IRs") == 0);
	finish(f, &in);
}

static void test_timeout_names_awaited_uuid(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/x rd.luks.uuid=luks-" U1
					" rd.md.uuid=3f1a7c2e:9b8d4e5f:a1b2c3d4:e5f60718 rd.luks.uuid=" U2);
	struct blockdev bd;

	stack_setup(&in.stack_env);
	dev(&bd, "vdb1", "crypto_LUKS", U2);
	in.devs.v = &bd;
	in.devs.n = 1;
	stack_report_missing(&in.stack_env);
	CHECK(said("<3>waited for LUKS device UUID=" U1 " (rd.luks.uuid) which never appeared\n"));
	CHECK(!said("UUID=" U2 " (rd.luks.uuid)"));
	CHECK(said("<3>waited for RAID array UUID=3f1a7c2e:9b8d4e5f:a1b2c3d4:e5f60718 (rd.md.uuid) "
		   "which never appeared\n"));
	in.devs.v = NULL;
	in.devs.n = 0;
	free(bd.devnode);
	finish(f, &in);
}

static void test_dm_names_match_root(void)
{
	struct blockdev bd = { 0 };
	struct fake_ops *f = fake_ops_new();
	char *t;

	bd.name = xstrdup("dm-1");
	bd.devnode = xstrdup("/dev/dm-1");
	fake_write(f, "/sys/class/block/dm-1/dm/name", "my--vg-root\n");
	fake_write(f, "/dev/dm-1", "");
	blockdev_probe(&f->ops, &bd);
	CHECK_STR(bd.dmname, "my--vg-root");
	CHECK(blockdev_matches(&bd, "/dev/mapper/my--vg-root"));
	CHECK(blockdev_matches(&bd, "/dev/my-vg/root"));
	CHECK(blockdev_matches(&bd, "/dev/dm-1"));
	CHECK(!blockdev_matches(&bd, "/dev/my--vg/root"));
	CHECK(!blockdev_matches(&bd, "/dev/my-vg/roo"));
	CHECK(!blockdev_matches(&bd, "/dev/my-vg/root/x"));
	CHECK(!blockdev_matches(&bd, "/dev/mapper/my-vg-root"));
	CHECK(blockdev_make_links(&f->ops, &bd) == 0);
	t = fake_readlink(f, "/dev/mapper/my--vg-root");
	CHECK_STR(t, "../dm-1");
	free(t);
	/* lvm made the node already: left alone, no error */
	CHECK(blockdev_make_links(&f->ops, &bd) == 0);
	free(bd.dmname);
	bd.dmname = xstrdup("vg0-lv--with--dashes");
	CHECK(blockdev_matches(&bd, "/dev/vg0/lv-with-dashes"));
	CHECK(!blockdev_matches(&bd, "/dev/vg0-lv/with-dashes"));
	free(bd.dmname);
	bd.dmname = xstrdup("luks-" U1);
	CHECK(blockdev_matches(&bd, "/dev/mapper/luks-" U1));
	blockdev_clear(&bd);

	/* not dm: no name read, /dev/VG/LV never matches */
	bd.name = xstrdup("vda1");
	bd.devnode = xstrdup("/dev/vda1");
	fake_write(f, "/dev/vda1", "");
	blockdev_probe(&f->ops, &bd);
	CHECK(bd.dmname == NULL);
	CHECK(!blockdev_matches(&bd, "/dev/mapper/vda1"));
	blockdev_clear(&bd);
	fake_ops_free(f);
}

/* mdadm's /dev/md/NAME (and any link a tool made in /dev) names root= */
static void test_link_made_by_tool_matches(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/md/root");
	struct blockdev bd;

	fake_write(f, "/dev/md127", "");
	fake_write(f, "/dev/md126", "");
	fake_symlink(f, "../md127", "/dev/md/root");
	dev(&bd, "md127", "ext4", U1);
	CHECK(blockdev_link_matches(in.ops, &bd, "/dev/md/root"));
	CHECK(!blockdev_link_matches(in.ops, &bd, "/dev/md/other"));
	CHECK(!blockdev_link_matches(in.ops, &bd, "UUID=" U1));
	free(bd.devnode);
	dev(&bd, "md126", "ext4", U2);
	CHECK(!blockdev_link_matches(in.ops, &bd, "/dev/md/root"));
	free(bd.devnode);
	finish(f, &in);
}

/* The whole path: a uevent for a device holding a LUKS1 header is
 * probed by libblkid and unlocked. */
static void test_uevent_to_unlock(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/mapper/luks-" U1);
	struct uevent ev = { .action = "add", .subsystem = "block", .devname = "vda2",
			     .major = 254, .minor = 2 };
	char hdr[65536] = { 0 }, *p;
	int fd;

	memcpy(hdr, "LUKS\xba\xbe\0\x01", 8);
	memcpy(hdr + 8, "aes", 3);
	memcpy(hdr + 40, "xts-plain64", 11);
	memcpy(hdr + 72, "sha256", 6);
	memcpy(hdr + 168, U1, strlen(U1));
	fake_write(f, "/dev/vda2", "");
	p = fake_path(f, "/dev/vda2");
	fd = open(p, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr));
	close(fd);
	free(p);
	stack_setup(&in.stack_env);
	answer("pw");
	devevents_handle(&in.events, &ev);
	run_jobs(&in);
	CHECK(in.devs.n == 1 && in.devs.v[0].type && !strcmp(in.devs.v[0].type, "crypto_LUKS"));
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks /dev/vda2 luks-" U1
			       " --key-file=- <pw>") >= 0);
	finish(f, &in);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_run_that_cannot_start);
	RUN(test_generic_luks_asks_and_pipes_passphrase);
	RUN(test_prompt_escapes_the_disks_text);
	RUN(test_wrong_passphrase_three_times_then_failure);
	RUN(test_wrong_then_right_and_tries_option);
	RUN(test_devices_at_the_prompt_wait_for_it);
	RUN(test_passphrase_too_long);
	RUN(test_passphrase_typed_once_for_several_volumes);
	RUN(test_cached_passphrase_told_to_ssh_login);
	RUN(test_keyring_refused_still_unlocks);
	RUN(test_no_console_and_other_cryptsetup_error);
	RUN(test_generic_leaves_luks_locked_once_root_is_there);
	RUN(test_rd_luks_0_skips);
	RUN(test_former_overlay_crypt_left_alone);
	RUN(test_rd_luks_uuid_restricts);
	RUN(test_rd_luks_name_names_mapping);
	RUN(test_rd_luks_options_per_uuid);
	RUN(test_keyfile_from_cmdline);
	RUN(test_keyfile_old_form_refused);
	RUN(test_keyfile_on_another_device);
	RUN(test_keydev_hostile);
	RUN(test_crypttab_in_image);
	RUN(test_crypttab_open_options);
	RUN(test_missing_tool);
	RUN(test_lvm_activation);
	RUN(test_lvm_loads_modules_and_raid_on_failure);
	RUN(test_md_incremental);
	RUN(test_rd_auto);
	RUN(test_md_degraded_after_half_timeout);
	RUN(test_timeout_names_awaited_uuid);
	RUN(test_dm_names_match_root);
	RUN(test_link_made_by_tool_matches);
	RUN(test_uevent_to_unlock);
	buf_free(&msgs);
	return test_done();
}
