// SPDX-License-Identifier: GPL-2.0-or-later
/* The dm-verity root (src/init/stack/verity.c, verity_opts.c): systemd's
 * roothash=, systemd.verity_root_data=/_hash=/_options= and
 * systemd.verity= read and checked (hostile text), the devices derived
 * from the root hash as systemd does, veritysetup run once both devices
 * are there, a root hash that does not match reported and the mapping
 * closed, the devices never seen named after a timeout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "fake_ops.h"
#include "init/stack/stack.h"
#include "init/stack/verity.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

#define H "c269d3c4231aaf911c5cfcf3508e576d51b7edd59e84edc8037b103520473121"
#define DATA_PU "/dev/disk/by-partuuid/c269d3c4-231a-af91-1c5c-fcf3508e576d"
#define HASH_PU "/dev/disk/by-partuuid/51b7edd5-9e84-edc8-037b-103520473121"

static struct fake_ops *cur;
static int run_status;

static int x_run(const char *path, char *const argv[], char *const envp[], const void *input,
		 size_t len)
{
	stack_log_run(cur, path, argv, envp, input, len);
	return run_status;
}

static const struct initops xops = { .run = x_run };

static struct fake_ops *setup(struct stack_world *w, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	cur = f;
	run_status = 0;
	msgs_capture(LOG_INFO);
	fake_tool(f, "/usr/sbin/veritysetup");
	stack_world_init(w, f, &xops, cmdline);
	stack_setup(&w->env);
	return f;
}

static void finish(struct fake_ops *f, struct stack_world *w)
{
	stack_world_finish(f, w, test_cur_failed);
	cur = NULL;
}

static void appear(struct stack_world *w, const char *name, const char *partuuid,
		   const char *partlabel)
{
	struct blockdev bd;

	memset(&bd, 0, sizeof(bd));
	bd.name = (char *)name;
	bd.devnode = xasprintf("/dev/%s", name);
	bd.partuuid = (char *)partuuid;
	bd.partlabel = (char *)partlabel;
	stack_seen(&w->env, DEV_ADDED, &bd);
	free(bd.devnode);
}

static int run_queued(struct stack_world *w)
{
	struct job j;
	int failed = 0;

	while (jobq_pop(&w->jobs, &j)) {
		failed += j.run(j.ctx, j.data) == JOB_FAILED;
		job_free(&j);
	}
	return failed;
}

static void test_hash_check(void)
{
	CHECK(verity_hash_check(H) == 0);
	CHECK(verity_hash_check("ab") == 0);
	CHECK(verity_hash_check("") < 0);
	CHECK(verity_hash_check("abc") < 0);           /* odd */
	CHECK(verity_hash_check("zz") < 0);
	CHECK(verity_hash_check("ab cd") < 0);
	CHECK(verity_hash_check(H H) == 0);            /* SHA-512: 128 digits */
	CHECK(verity_hash_check(H H "00") < 0);
}

static void test_partuuid_path(void)
{
	char *d = verity_partuuid_path(H, false), *h = verity_partuuid_path(H, true);

	CHECK_STR(d, DATA_PU);
	CHECK_STR(h, HASH_PU);
	free(d);
	free(h);
	CHECK(verity_partuuid_path("0123456789abcdef0123456789abcd", false) == NULL);
}

static void test_options(void)
{
	struct strv a = { 0 };

	msgs_capture(LOG_INFO);
	verity_options_argv("ignore-corruption,hash=sha512,superblock=no,data-block-size=4096,"
			    "salt=-,fec-device=/dev/vdc,fec-roots=2",
			    &a);
	CHECK(a.n == 7);
	if (a.n == 7) {
		CHECK_STR(a.v[0], "--ignore-corruption");
		CHECK_STR(a.v[1], "--hash=sha512");
		CHECK_STR(a.v[2], "--no-superblock");
		CHECK_STR(a.v[3], "--data-block-size=4096");
		CHECK_STR(a.v[4], "--salt=-");
		CHECK_STR(a.v[5], "--fec-device=/dev/vdc");
		CHECK_STR(a.v[6], "--fec-roots=2");
	}
	CHECK_STR(msgs.p, "");
	strv_free(&a);

	verity_options_argv("superblock=yes,hash=-x,data-blocks=1e3,ignore-corruption=1,"
			    "fec-device=../x,bogus,root-hash-signature=/s.p7s,salt=xyz",
			    &a);
	CHECK(a.n == 0);
	CHECK(said("<4>systemd.verity_root_options: ignoring hash=-x: not a name\n"));
	CHECK(said("<4>systemd.verity_root_options: ignoring data-blocks=1e3: not a number\n"));
	CHECK(said("<4>systemd.verity_root_options: ignoring ignore-corruption=1: takes no value\n"));
	CHECK(said("<4>systemd.verity_root_options: ignoring fec-device=../x: not an absolute "
		   "device path\n"));
	CHECK(said("<4>systemd.verity_root_options: ignoring bogus: not a dm-verity option\n"));
	CHECK(said("<4>systemd.verity_root_options: ignoring root-hash-signature=/s.p7s: uniramfs "
		   "does not check root hash signatures\n"));
	CHECK(said("<4>systemd.verity_root_options: ignoring salt=xyz: not a hexadecimal salt\n"));
	strv_free(&a);
}

static void test_parse(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, "roothash=" "C269D3C4231AAF911C5CFCF3508E576D51B7EDD59E84EDC8037B103520473121"
				       " rd.systemd.verity_root_data=UUID=5f0c1a4e-1b2d-4c3e-9f10-0000000001e1"
				       " systemd.verity_root_options=check-at-most-once");
	const struct verity *v = &w.stack.verity;

	CHECK_STR(v->roothash, H);
	CHECK_STR(v->data, "UUID=5f0c1a4e-1b2d-4c3e-9f10-0000000001e1");
	CHECK(v->data_given && !v->hash_given);
	CHECK_STR(v->hash, HASH_PU); /* derived */
	CHECK_STR(v->options, "check-at-most-once");
	CHECK_STR(verity_default_root(&w.stack), "/dev/mapper/root");
	finish(f, &w);

	f = setup(&w, "roothash=xyz systemd.verity_root_hash=nonsense systemd.verity_root_data");
	CHECK(said("<4>ignoring roothash=xyz: not a root hash (an even number of hexadecimal "
		   "digits, at most 128)\n"));
	CHECK(said("<4>ignoring systemd.verity_root_hash=nonsense: not a device uniramfs "
		   "understands\n"));
	CHECK(said("<4>ignoring systemd.verity_root_data: expected systemd.verity_root_data=VALUE\n"));
	CHECK(verity_default_root(&w.stack) == NULL);
	finish(f, &w);

	f = setup(&w, "systemd.verity_root_data=/dev/vda1");
	CHECK(said("<4>ignoring systemd.verity_root_data=/dev/vda1: no roothash= on the command "
		   "line\n"));
	CHECK(verity_default_root(&w.stack) == NULL);
	finish(f, &w);

	f = setup(&w, "roothash=" H " systemd.verity=0");
	CHECK(said("<5>systemd.verity=0: not opening the dm-verity root of roothash=" H "\n"));
	CHECK(verity_default_root(&w.stack) == NULL);
	appear(&w, "vda1", DATA_PU + 22, NULL);
	appear(&w, "vda2", HASH_PU + 22, NULL);
	CHECK(w.jobs.n == 0);
	finish(f, &w);

	f = setup(&w, "roothash=0123456789abcdef systemd.verity_root_data=/dev/vda1 "
		      "systemd.verity_root_hash=/dev/vda2");
	CHECK_STR(verity_default_root(&w.stack), "/dev/mapper/root"); /* short, but named */
	finish(f, &w);

	f = setup(&w, "roothash=0123456789abcdef");
	CHECK(said("<4>roothash=0123456789abcdef is shorter than 128 bits: name its devices with "
		   "systemd.verity_root_data= and systemd.verity_root_hash=\n"));
	CHECK(verity_default_root(&w.stack) == NULL);
	finish(f, &w);
}

/* roothash= alone: the partitions by the hash's halves, whichever
 * comes first; veritysetup once; the first block read through it. */
static void test_open(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, "roothash=" H " systemd.verity_root_options=ignore-zero-blocks");
	struct blockdev other = { .name = "vdb", .devnode = "/dev/vdb", .partuuid = "x" };

	fake_write(f, "/dev/mapper/root", "a filesystem");
	appear(&w, "vda2", HASH_PU + 22, NULL);
	CHECK(w.jobs.n == 0);
	CHECK(verity_member(&w.stack, &f->ops, &other) == false);
	appear(&w, "vdb", "x", NULL);
	appear(&w, "vda1", "C269D3C4-231A-AF91-1C5C-FCF3508E576D", NULL);
	CHECK(w.jobs.n == 1);
	appear(&w, "vda1", "C269D3C4-231A-AF91-1C5C-FCF3508E576D", NULL); /* a change event */
	CHECK(w.jobs.n == 1);
	CHECK(run_queued(&w) == 0);
	CHECK(fake_log_find(f, "run /usr/sbin/veritysetup veritysetup open --ignore-zero-blocks "
			       "/dev/vda1 root /dev/vda2 " H) >= 0);
	CHECK(fake_log_count(f, "run ") == 1);
	CHECK(said("<6>dm-verity: hash device " HASH_PU " is /dev/vda2\n"));
	CHECK(said("<6>dm-verity: data device " DATA_PU " is /dev/vda1\n"));
	CHECK(said("<6>dm-verity: /dev/mapper/root is /dev/vda1, checked against roothash=" H "\n"));
	{
		struct blockdev data = { .name = "vda1", .devnode = "/dev/vda1",
					 .partuuid = "c269d3c4-231a-af91-1c5c-fcf3508e576d" };
		CHECK(verity_member(&w.stack, &f->ops, &data));
	}
	finish(f, &w);
}

static void test_wrong_hash(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, "roothash=" H " systemd.verity_root_data=PARTLABEL=root-x86-64"
				       " systemd.verity_root_hash=/dev/vda2");

	fake_mkdir(f, "/dev/mapper/root"); /* reads fail (EISDIR), as a mismatch's EIO would */
	appear(&w, "vda1", "p1", "root-x86-64");
	appear(&w, "vda2", "p2", "root-x86-64-verity");
	CHECK(run_queued(&w) == 1);
	CHECK(said("<3>dm-verity: cannot read /dev/mapper/root (/dev/vda1, hashes on /dev/vda2): "
		   "Is a directory: roothash=" H " is not their root hash, or the first block is "
		   "corrupted\n"));
	CHECK(fake_log_find(f, "run /usr/sbin/veritysetup veritysetup close root") >= 0);
	finish(f, &w);

	f = setup(&w, "roothash=" H " systemd.verity_root_data=/dev/vda1 systemd.verity_root_hash=/dev/vda2");
	run_status = 1;
	appear(&w, "vda1", NULL, NULL);
	appear(&w, "vda2", NULL, NULL);
	CHECK(run_queued(&w) == 1);
	CHECK(said("<3>veritysetup could not open /dev/vda1 with hashes on /dev/vda2 (exit status "
		   "1)\n"));
	finish(f, &w);
}

static void test_report_missing(void)
{
	struct stack_world w;
	struct fake_ops *f = setup(&w, "roothash=" H " systemd.verity_root_hash=/dev/vdb");

	appear(&w, "vdb", NULL, NULL);
	stack_report_missing(&w.env);
	CHECK(said("<3>waited for the dm-verity data device " DATA_PU " (roothash) which never "
		   "appeared\n"));
	CHECK(!strstr(msgs.p, "hash device /dev/vdb (systemd.verity_root_hash) which never"));
	finish(f, &w);

	f = setup(&w, "roothash=" H " systemd.verity_root_hash=/dev/vdb");
	stack_report_missing(&w.env);
	CHECK(said("<3>waited for the dm-verity hash device /dev/vdb (systemd.verity_root_hash) "
		   "which never appeared\n"));
	finish(f, &w);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_hash_check);
	RUN(test_partuuid_path);
	RUN(test_options);
	RUN(test_parse);
	RUN(test_open);
	RUN(test_wrong_hash);
	RUN(test_report_missing);
	return test_done();
}
