// SPDX-License-Identifier: GPL-2.0-or-later
/* Detached LUKS headers (luks_header.c) and the crypttab options acted
 * on since issue 26, against fake ops: rd.luks.header= as a file in the
 * image, a device, a file on a device's filesystem; rd.luks.data= and
 * the first device with no signature; crypttab's header= with a UUID=
 * source; key-slot=, nofail, and each line's warnings said once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stack/stack.h"
#include "log.h"
#include "stack_helpers.h"
#include "test.h"

#define HU "cbd49694-81de-41bd-a850-0d934aff8328" /* booster's header UUIDs */
#define HU2 "4d4d4d4d-4444-4444-8444-444444444444"
#define FSU "e2d8f1a3-7b4c-4e9d-a1b2-3c4d5e6f7a8b"

static int x_key_set(const char *desc, const void *data, size_t len, unsigned timeout_s)
{
	(void)desc;
	(void)data;
	(void)len;
	(void)timeout_s;
	return -EDQUOT;
}

static ssize_t x_key_get(const char *desc, void *buf, size_t size)
{
	(void)desc;
	(void)buf;
	(void)size;
	return -ENOKEY;
}

static struct initops xops;

static struct fake_ops *setup(struct init *in, const char *cmdline, const char *crypttab)
{
	struct fake_ops *f = fake_ops_new();

	/* the script's run and prompt, and no kernel keyring */
	xops = stack_script_ops;
	xops.key_set = x_key_set;
	xops.key_get = x_key_get;
	stack_script_start(f);
	fake_tool(f, "/usr/sbin/cryptsetup");
	if (crypttab)
		fake_write(f, "/etc/crypttab", crypttab);
	stack_init_start(in, f, cmdline, &xops);
	return f;
}

static void finish(struct fake_ops *f, struct init *in)
{
	stack_init_finish(f, in, test_cur_failed);
}

static size_t said_count(const char *line)
{
	size_t n = 0;

	for (const char *p = msgs.p ? msgs.p : ""; (p = strstr(p, line)); p++)
		n++;
	return n;
}

/* A LUKS header file in f's tree: its UUID where LUKS1 and LUKS2 keep it. */
static void header_file(struct fake_ops *f, const char *path, const char *uuid)
{
	char hdr[4096] = "LUKS\xba\xbe";
	char *p = fake_path(f, path);
	FILE *fp;

	memcpy(hdr + 168, uuid, strlen(uuid) + 1);
	fake_write(f, path, "");
	fp = fopen(p, "w");
	fwrite(hdr, 1, sizeof(hdr), fp);
	fclose(fp);
	free(p);
}

/* booster's TestLUKS2DetachedHeaderCmdline: the header a file in the
 * image, the data the first device with no signature */
static void test_header_in_image(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "rd.luks.name=" HU "=cryptroot rd.luks.header=" HU
				   "=/assets/root.hdr root=/dev/mapper/cryptroot", NULL);

	header_file(f, "/assets/root.hdr", HU);
	fake_write(f, "/sys/class/block/sdb/sdb1/partition", "1");
	stack_setup(&in.stack_env);
	stack_script_answer("1234");
	stack_event(&in, "sdb", NULL, NULL); /* a partitioned disk: not the data */
	stack_event(&in, "loop1", NULL, NULL); /* nor the init's own loop device */
	CHECK(fake_log_count(f, "prompt") == 0);
	stack_event(&in, "sda", NULL, NULL);
	CHECK(said("<6>/dev/sda: no signature: the data of LUKS UUID=" HU ", its header "
		   "/assets/root.hdr\n"));
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/sda (" HU "): ") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks "
			       "--header=/assets/root.hdr /dev/sda cryptroot --key-file=- <1234>") >= 0);
	CHECK(said("<6>unlocked /dev/sda as /dev/mapper/cryptroot\n"));
	stack_event(&in, "sdc", NULL, NULL); /* another: the header has its data */
	CHECK(fake_log_count(f, "run") == 1);
	finish(f, &in);

	/* not in the image: said, nothing run, the root's wait names it */
	f = setup(&in, "rd.luks.header=" HU "=/assets/root.hdr root=/dev/mapper/luks-" HU, NULL);
	stack_setup(&in.stack_env);
	stack_event(&in, "sda", NULL, NULL);
	CHECK(said("<3>the LUKS header /assets/root.hdr for /dev/sda is not in this image\n"));
	CHECK(fake_log_count(f, "run") == 0);
	finish(f, &in);
}

/* TestLUKS2DetachedHeaderMultiDeviceCmdline: rd.luks.data= pins each
 * data device, whichever comes first; the decoy opens with its key */
static void test_data_pinned(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "rd.luks.name=" HU2 "=cryptdecoy rd.luks.header=" HU2
				   "=/h2.hdr rd.luks.data=" HU2 "=/dev/vda rd.luks.key=" HU2
				   "=/h2.key rd.luks.name=" HU "=cryptroot rd.luks.header=" HU
				   "=/h.hdr rd.luks.data=" HU "=/dev/vdb root=/dev/mapper/cryptroot",
				   NULL);

	header_file(f, "/h.hdr", HU);
	header_file(f, "/h2.hdr", HU2);
	fake_write(f, "/h2.key", "k");
	stack_setup(&in.stack_env);
	stack_script_answer("1234");
	stack_event(&in, "vdb", NULL, NULL);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --header=/h.hdr "
			       "/dev/vdb cryptroot --key-file=- <1234>") >= 0);
	stack_event(&in, "vda", NULL, NULL);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --header=/h2.hdr "
			       "/dev/vda cryptdecoy --key-file=/h2.key") >= 0);
	CHECK(fake_log_count(f, "prompt") == 1);
	finish(f, &in);
}

/* TestLUKS2DetachedHeaderCmdlineRawDevice: the header is a device,
 * which shows the header's LUKS UUID and is not opened by itself */
static void test_header_device(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "rd.luks.name=" HU "=cryptroot rd.luks.header=" HU
				   "=/dev/vda root=UUID=x", NULL);

	stack_setup(&in.stack_env);
	stack_script_answer("1234");
	stack_event(&in, "sda", NULL, NULL);
	CHECK(said("<6>/dev/sda: waiting for the LUKS header's device /dev/vda\n"));
	CHECK(fake_log_count(f, "run") == 0);
	stack_event(&in, "vda", "crypto_LUKS", HU);
	CHECK(said("<6>/dev/vda: LUKS UUID=" HU " is a detached header, not opened by itself\n"));
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --header=/dev/vda "
			       "/dev/sda cryptroot --key-file=- <1234>") >= 0);
	CHECK(fake_log_count(f, "run") == 1);
	finish(f, &in);

	/* the header's device never comes: half time does not ask, the
	 * timeout's report names it */
	f = setup(&in, "rd.luks.header=" HU "=/dev/vda root=UUID=x", NULL);
	stack_setup(&in.stack_env);
	stack_event(&in, "sda", NULL, NULL);
	stack_half_time(&in.stack_env);
	run_jobs(&in);
	CHECK(fake_log_count(f, "prompt") == 0);
	stack_report_missing(&in.stack_env);
	CHECK(said("<3>waited for the LUKS header's device /dev/vda of /dev/sda which never "
		   "appeared\n"));
	finish(f, &in);
}

/* TestLUKS2DetachedHeaderCmdlineOnDevice: a file on another device's
 * filesystem, mounted read-only while it is copied into /run */
static void test_header_on_device(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "rd.luks.name=" HU "=cryptroot rd.luks.header=" HU
				   "=/root.hdr:UUID=" FSU " root=UUID=x", NULL);
	struct blockdev hd = { 0 };
	char *copy;

	header_file(f, "/run/uniramfs/keydev/root.hdr", HU);
	stack_setup(&in.stack_env);
	stack_script_answer("1234");
	stack_event(&in, "sda", NULL, NULL);
	CHECK(said("<6>/dev/sda: waiting for the LUKS header's device UUID=" FSU "\n"));
	hd.name = (char *)"vda";
	hd.devnode = (char *)"/dev/vda";
	hd.type = (char *)"ext4";
	hd.uuid = (char *)FSU;
	stack_seen(&in.stack_env, DEV_ADDED, &hd);
	run_jobs(&in);
	CHECK(fake_log_find(f, "mount /dev/vda /run/uniramfs/keydev ext4 0xf -") >= 0);
	CHECK(fake_log_find(f, "umount /run/uniramfs/keydev 0x0") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks "
			       "--header=/run/uniramfs/luks-header.0 /dev/sda cryptroot "
			       "--key-file=- <1234>") >= 0);
	/* the copy is gone once the unlock is over */
	copy = fake_path(f, "/run/uniramfs/luks-header.0");
	CHECK(access(copy, F_OK) < 0);
	free(copy);
	finish(f, &in);
}

/* booster's TestCrypttabHeader: the line's UUID= is the header's, the
 * data disk has no signature; a line whose header holds another UUID is
 * refused by name */
static void test_crypttab_header_uuid(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=UUID=x", "cryptroot UUID=" HU " none header=/h.hdr,"
				   "x-initrd.attach\n"
				   "other UUID=" HU2 " none header=/h.hdr\n");

	header_file(f, "/h.hdr", HU);
	stack_setup(&in.stack_env);
	CHECK(said("<4>/etc/crypttab other: its header /h.hdr holds LUKS UUID=" HU ", not " HU2
		   "; not opening it\n"));
	stack_script_answer("1234");
	stack_event(&in, "vda", NULL, NULL);
	CHECK(fake_log_find(f, "prompt Passphrase for /dev/vda (" HU "): ") >= 0);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --header=/h.hdr "
			       "/dev/vda cryptroot --key-file=- <1234>") >= 0);
	finish(f, &in);

	/* the command line's name and header win over the line's */
	f = setup(&in, "rd.luks.name=" HU "=cmdroot rd.luks.header=" HU "=/c.hdr root=UUID=x",
		  "cryptroot UUID=" HU " none header=/h.hdr\n");
	header_file(f, "/h.hdr", HU);
	header_file(f, "/c.hdr", HU);
	stack_setup(&in.stack_env);
	stack_script_answer("1234");
	stack_event(&in, "vda", NULL, NULL);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --header=/c.hdr "
			       "/dev/vda cmdroot --key-file=- <1234>") >= 0);
	finish(f, &in);
}

/* key-slot= reaches cryptsetup; nofail: giving up does not stop the
 * boot; a line's unsupported option is said once however many devices
 * are looked at */
static void test_crypttab_slot_nofail_once(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=UUID=x", "data UUID=" HU " none key-slot=1,nofail,tries=1,"
				   "readonly\n");

	stack_setup(&in.stack_env);
	stack_script.statuses[0] = 2; /* no key slot opened with it */
	stack_script_answer("1234");
	stack_event(&in, "vda", "crypto_LUKS", HU);
	stack_event(&in, "vdb", NULL, NULL);
	stack_event(&in, "vdc", "ext4", FSU);
	CHECK(fake_log_find(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks --key-slot=1 "
			       "/dev/vda data --key-file=- <1234>") >= 0);
	CHECK(said("<3>giving up on /dev/vda after 1 wrong passphrases\n"));
	CHECK(said("<4>/dev/vda: nofail: the boot goes on without /dev/mapper/data\n"));
	CHECK(fake_log_count(f, "reboot") == 0);
	CHECK(said_count("/etc/crypttab data: readonly is not supported here; ignoring it") == 1);
	finish(f, &in);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_header_in_image);
	RUN(test_data_pinned);
	RUN(test_header_device);
	RUN(test_header_on_device);
	RUN(test_crypttab_header_uuid);
	RUN(test_crypttab_slot_nofail_once);
	buf_free(&msgs);
	return test_done();
}
