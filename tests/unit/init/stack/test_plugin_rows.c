// SPDX-License-Identifier: GPL-2.0-or-later
/* The plugins' rows file as the init reads it (src/init/stack/plugin_rows.c):
 * the image is anyone's, so every field is checked, and each bad row is
 * named by its line, with why, and skipped while the good ones stay. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_ops.h"
#include "init/stack/plugin_rows.h"
#include "layout.h"
#include "log.h"
#include "log_capture.h"
#include "lvm_row.h"
#include "stack_helpers.h"
#include "test.h"

#define PROG "/usr/lib/bc/open"
#define W "<4>" LAYOUT_PLUGIN_ROWS_FILE ":"

static bool builtin(const char *type)
{
	return !strcmp(type, "crypto_LUKS") || !strcmp(type, "linux_raid_member");
}

static struct fake_ops *setup(void)
{
	struct fake_ops *f = fake_ops_new();

	msgs_capture(LOG_INFO);
	fake_tool(f, PROG);
	fake_tool(f, "/usr/lib/zfs/mount-root");
	return f;
}

static size_t parse(struct fake_ops *f, const char *text, struct plugin_rows *rows)
{
	return plugin_rows_parse(text, strlen(text), &f->ops, builtin, rows);
}

static void finish(struct fake_ops *f, struct plugin_rows *rows)
{
	if (test_cur_failed)
		printf("# messages:\n%s", msgs.p ? msgs.p : "");
	plugin_rows_free(rows);
	fake_ops_free(f);
}

static void test_good_rows(void)
{
	struct fake_ops *f = setup();
	struct plugin_rows rows = { 0 };

	CHECK(parse(f, "layer\tbc\tbcache\t" PROG "\tbcache,crc64\trd.bc,rd.bcache.x\n"
		       "\n"
		       "root\tzfs\tZFS=\t/usr/lib/zfs/mount-root\t-\t-\n"
		       "layer\tbc\tbcache2\t" PROG "\t-\t-", &rows) == 3);
	CHECK(rows.n == 3);
	CHECK(!rows.v[0].root && !strcmp(rows.v[0].plugin, "bc") && !strcmp(rows.v[0].key, "bcache"));
	CHECK(!strcmp(rows.v[0].program, PROG) && rows.v[0].line == 1);
	CHECK(rows.v[0].modules.n == 2 && !strcmp(rows.v[0].modules.v[1], "crc64"));
	CHECK(rows.v[0].options.n == 2 && !strcmp(rows.v[0].options.v[1], "rd.bcache.x"));
	CHECK(rows.v[1].root && !strcmp(rows.v[1].key, "ZFS=") && rows.v[1].line == 3);
	CHECK(rows.v[1].modules.n == 0 && rows.v[1].options.n == 0);
	CHECK(rows.v[2].line == 4 && !strcmp(rows.v[2].key, "bcache2"));
	CHECK(plugin_rows_layer(&rows, "bcache2") == &rows.v[2]);
	CHECK(plugin_rows_layer(&rows, "ZFS=") == NULL);
	CHECK(plugin_rows_layer(&rows, NULL) == NULL);
	CHECK(plugin_rows_root(&rows, "ZFS=pool/root") == &rows.v[1]);
	CHECK(plugin_rows_root(&rows, "ZFS") == NULL);
	CHECK(plugin_rows_root(&rows, "bcache") == NULL);
	CHECK(plugin_rows_root(&rows, NULL) == NULL);
	CHECK(msgs.len == 0);
	finish(f, &rows);
}

/* LVM's row (plugins/lvm.conf, as the generator writes it): its runs,
 * switch and retry modules kept; the default time limit. */
static void test_lvm_row(void)
{
	struct fake_ops *f = setup();
	struct plugin_rows rows = { 0 };
	const struct plugin_row *r;

	fake_tool(f, "/usr/sbin/lvm");
	CHECK(parse(f, LVM_ROW "layer\tbc\tbcache\t" PROG "\t-\t-\tlimit=7\n", &rows) == 2);
	r = plugin_rows_layer(&rows, "LVM2_member");
	CHECK(r && !strcmp(r->program, "/usr/sbin/lvm") && r->runs.n == 3);
	CHECK(r && !strcmp(r->runs.v[1], "vgchange -ay --sysinit -- {rd.lvm.vg}"));
	CHECK(r && r->switch_opt && !strcmp(r->switch_opt, "rd.lvm"));
	CHECK(r && r->retry_modules.n == 1 && !strcmp(r->retry_modules.v[0], "dm_raid"));
	CHECK(r && r->limit_ms == PLUGIN_LIMIT_MS);
	r = plugin_rows_layer(&rows, "bcache");
	CHECK(r && r->limit_ms == 7000 && r->runs.n == 0 && !r->switch_opt);
	CHECK(msgs.len == 0);
	finish(f, &rows);
}

/* A claim row (docs/plugins.md "Claim rows"): a kernel name pattern,
 * never a layer's blkid type nor a root prefix; two rows may name one
 * pattern (the first that matches asks). */
static void test_claim_rows(void)
{
	struct fake_ops *f = setup();
	struct plugin_rows rows = { 0 };

	CHECK(parse(f, "claim\tmultipath\tsd*\t" PROG "\tdm_multipath\trd.multipath\n"
		       "claim\tmultipath\tnvme?n*\t" PROG "\t-\t-\n"
		       "claim\tother\tsd*\t" PROG "\t-\t-\n", &rows) == 3);
	CHECK(rows.v[0].claim && !rows.v[0].root && !strcmp(rows.v[0].key, "sd*"));
	CHECK(rows.v[0].modules.n == 1 && rows.v[0].options.n == 1);
	CHECK(!strcmp(rows.v[1].key, "nvme?n*"));
	CHECK(plugin_rows_layer(&rows, "sd*") == NULL);
	CHECK(plugin_rows_root(&rows, "sd*x") == NULL);
	CHECK(plugin_row_reads(&rows.v[0], "rd.multipath=0"));
	CHECK(plugin_row_reads(&rows.v[0], "rd.multipath.debug"));
	CHECK(!plugin_row_reads(&rows.v[0], "rd.multipathx=1"));
	CHECK(msgs.len == 0);
	finish(f, &rows);
}

/* Each bad line, its exact message; the good row after them stays. */
static void test_bad_rows(void)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "layer\tbc\tbcache\t" PROG, "fewer than 6 tab-separated fields" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\t-", "a field past the six is not NAME=VALUE" },
		/* the fields past the six: LVM's runs, switch, retry modules, a limit */
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\tfoo=1",
		  "unknown field past the six (run=, switch=, retry-modules=, limit=)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\trun=",
		  "bad run (words of letters, digits, ._-+:=@/, or {device} or {OPTION} of its options)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\trun=a  b",
		  "bad run (words of letters, digits, ._-+:=@/, or {device} or {OPTION} of its options)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\trun=a;reboot",
		  "bad run (words of letters, digits, ._-+:=@/, or {device} or {OPTION} of its options)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\trd.bc\trun=-- {rd.other}",
		  "bad run (words of letters, digits, ._-+:=@/, or {device} or {OPTION} of its options)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\trun=$(reboot)",
		  "bad run (words of letters, digits, ._-+:=@/, or {device} or {OPTION} of its options)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\tswitch=rd.bc\tswitch=rd.x",
		  "bad switch (one command-line key such as rd.foo)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\tswitch=rd.bc=0",
		  "bad switch (one command-line key such as rd.foo)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\tretry-modules=a,,b",
		  "bad retry-modules (a comma list of module names, once)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\tlimit=0", "bad limit (seconds, 1 to 3600, once)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\tlimit=3601", "bad limit (seconds, 1 to 3600, once)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\tlimit=1x", "bad limit (seconds, 1 to 3600, once)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\tlimit=5\tlimit=5", "bad limit (seconds, 1 to 3600, once)" },
		{ "root\tzfs\tZFS=\t" PROG "\t-\t-\trun=x", "a root or claim row takes only limit= past the six" },
		{ "claim\tmp\tsd*\t" PROG "\t-\t-\tswitch=rd.mp",
		  "a root or claim row takes only limit= past the six" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\trun=a\trun=a\trun=a\trun=a\trun=a\trun=a\trun=a\trun=a"
		  "\trun=a\trun=a\trun=a\trun=a\trun=a\trun=a\trun=a\trun=a\trun=a",
		  "more than 16 fields past the six" },
		{ "disk\tbc\tbcache\t" PROG "\t-\t-", "unknown kind (layer, root or claim)" },
		{ "claim\tmp\tsd/a\t" PROG "\t-\t-",
		  "bad device pattern (letters, digits, _-*?; at most 32)" },
		{ "claim\tmp\tsd[ab]\t" PROG "\t-\t-",
		  "bad device pattern (letters, digits, _-*?; at most 32)" },
		{ "claim\tmp\t..\t" PROG "\t-\t-",
		  "bad device pattern (letters, digits, _-*?; at most 32)" },
		{ "claim\tmp\tsd*\t/usr/lib/none\t-\t-",
		  "its program is not an executable of this image" },
		{ "layer\tb c\tbcache\t" PROG "\t-\t-",
		  "bad plugin name (letters, digits, ._-+@; at most 64)" },
		{ "layer\t\tbcache\t" PROG "\t-\t-",
		  "bad plugin name (letters, digits, ._-+@; at most 64)" },
		{ "layer\tbc\tbc\x1b[2Jache\t" PROG "\t-\t-",
		  "bad blkid type (letters, digits, ._-; at most 64)" },
		{ "layer\tbc\tbc/cache\t" PROG "\t-\t-",
		  "bad blkid type (letters, digits, ._-; at most 64)" },
		{ "root\tzfs\tZFS =\t" PROG "\t-\t-",
		  "bad root= prefix (letters, digits, ._-+:=@/; at most 64)" },
		{ "layer\tbc\tbcache\tbin/sh\t-\t-",
		  "bad program (an absolute path of letters, digits, ._-+/, without '.' or '..')" },
		{ "layer\tbc\tbcache\t/usr/lib/../../bin/sh\t-\t-",
		  "bad program (an absolute path of letters, digits, ._-+/, without '.' or '..')" },
		{ "layer\tbc\tbcache\t/usr/lib/bc/\t-\t-",
		  "bad program (an absolute path of letters, digits, ._-+/, without '.' or '..')" },
		{ "layer\tbc\tbcache\t/usr/lib/bc/open;reboot\t-\t-",
		  "bad program (an absolute path of letters, digits, ._-+/, without '.' or '..')" },
		{ "layer\tbc\tbcache\t/usr/lib/bc/missing\t-\t-",
		  "its program is not an executable of this image" },
		{ "layer\tbc\tbcache\t" PROG "\tbcache,,crc\t-",
		  "bad modules (a comma list of module names, or -)" },
		{ "layer\tbc\tbcache\t" PROG "\t../bcache\t-",
		  "bad modules (a comma list of module names, or -)" },
		{ "layer\tbc\tbcache\t" PROG "\t\t-", "bad modules (a comma list of module names, or -)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\trd.bc=1",
		  "bad options (a comma list of command-line keys such as rd.foo, or -)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\trd.bc,",
		  "bad options (a comma list of command-line keys such as rd.foo, or -)" },
		{ "root\tzfs\tZFS=\t" PROG "\t-\trd.zfs", "a root row takes no options" },
		{ "layer\tbc\tcrypto_LUKS\t" PROG "\t-\t-", "blkid type crypto_LUKS is the init's own layer" },
		{ "root\tzfs\tUUID=\t" PROG "\t-\t-", "root= prefix UUID= is the init's own (UUID=)" },
		{ "root\tzfs\t/dev/zfs\t" PROG "\t-\t-", "root= prefix /dev/zfs is the init's own (/)" },
		{ "root\tzfs\tnfs\t" PROG "\t-\t-", "root= prefix nfs is the init's own (nfs:)" },
		{ "root\tzfs\tWWID=\t" PROG "\t-\t-", "root= prefix WWID= is the init's own (WWID=)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-\r",
		  "bad options (a comma list of command-line keys such as rd.foo, or -)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\trd.bc, rd.x",
		  "bad options (a comma list of command-line keys such as rd.foo, or -)" },
		{ "layer\tbc\tbcache\t" PROG "\t-\t-x",
		  "bad options (a comma list of command-line keys such as rd.foo, or -)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fake_ops *f = setup();
		struct plugin_rows rows = { 0 };
		char *text = xasprintf("%s\nlayer\tok\tok_type\t" PROG "\t-\t-\n", cases[i].line);
		char *want = xasprintf(W "1: %s; row skipped\n", cases[i].msg);
		CHECK(parse(f, text, &rows) == 1);
		CHECK(rows.n == 1 && !strcmp(rows.v[0].key, "ok_type") && rows.v[0].line == 2);
		CHECK(said(want));
		CHECK(count_said(LAYOUT_PLUGIN_ROWS_FILE) == 1);
		if (test_cur_failed)
			printf("# case %zu: %s\n", i, cases[i].line);
		free(text);
		free(want);
		finish(f, &rows);
	}
}

/* A second plugin cannot take what a first one has. */
static void test_conflicts(void)
{
	struct fake_ops *f = setup();
	struct plugin_rows rows = { 0 };

	CHECK(parse(f, "layer\ta\tbcache\t" PROG "\t-\t-\n"
		       "layer\tb\tbcache\t" PROG "\t-\t-\n"
		       "root\tzfs\tZFS=\t" PROG "\t-\t-\n"
		       "root\tother\tZFS=pool\t" PROG "\t-\t-\n"
		       "root\tthird\tZF\t" PROG "\t-\t-\n", &rows) == 2);
	CHECK(said(W "2: blkid type bcache is taken by plugin a (line 1); row skipped\n"));
	CHECK(said(W "4: root= prefix ZFS=pool overlaps ZFS= of plugin zfs (line 3); row skipped\n"));
	CHECK(said(W "5: root= prefix ZF overlaps ZFS= of plugin zfs (line 3); row skipped\n"));
	finish(f, &rows);
}

static void test_hostile_sizes(void)
{
	struct fake_ops *f = setup();
	struct plugin_rows rows = { 0 };
	struct buf b = { 0 };
	char nul[] = "layer\tbc\tbc\0ache\t" PROG "\t-\t-\nlayer\tok\tok\t" PROG "\t-\t-\n";

	/* a NUL in a row: that row only */
	CHECK(plugin_rows_parse(nul, sizeof(nul) - 1, &f->ops, builtin, &rows) == 1);
	CHECK(said(W "1: a NUL byte; row skipped\n"));
	plugin_rows_free(&rows);

	/* a line over 4096 bytes */
	msgs_clear();
	buf_printf(&b, "layer\tbc\tbcache\t/");
	for (int i = 0; i < 5000; i++)
		buf_printf(&b, "a");
	buf_printf(&b, "\t-\t-\nlayer\tok\tok\t" PROG "\t-\t-\n");
	CHECK(parse(f, b.p, &rows) == 1);
	CHECK(said(W "1: longer than 4096 bytes; row skipped\n"));
	plugin_rows_free(&rows);
	buf_free(&b);

	/* more than 256 rows: the first 256 kept */
	msgs_clear();
	for (int i = 0; i < 300; i++)
		buf_printf(&b, "layer\tbc\tt%d\t" PROG "\t-\t-\n", i);
	CHECK(parse(f, b.p, &rows) == 256);
	CHECK(said(W "257: more than 256 rows; the rest skipped\n"));
	plugin_rows_free(&rows);

	/* the whole file over 64 KiB: nothing */
	msgs_clear();
	while (b.len <= 64 * 1024)
		buf_printf(&b, "# padding\n");
	CHECK(parse(f, b.p, &rows) == 0);
	CHECK(said(LAYOUT_PLUGIN_ROWS_FILE ": "));
	CHECK(said(" bytes, more than 65536: no plugin row read\n"));
	buf_free(&b);
	finish(f, &rows);
}

/* No file: no rows and nothing said; one in the image is read from it. */
static void test_read_file(void)
{
	struct fake_ops *f = setup();
	struct plugin_rows rows = { 0 };

	plugin_rows_read(&f->ops, builtin, &rows);
	CHECK(rows.n == 0 && msgs.len == 0);
	fake_write(f, LAYOUT_PLUGIN_ROWS_FILE, "layer\tbc\tbcache\t" PROG "\tbcache\t-\n");
	plugin_rows_read(&f->ops, builtin, &rows);
	CHECK(rows.n == 1 && !strcmp(rows.v[0].modules.v[0], "bcache"));
	finish(f, &rows);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_good_rows);
	RUN(test_claim_rows);
	RUN(test_lvm_row);
	RUN(test_bad_rows);
	RUN(test_conflicts);
	RUN(test_hostile_sizes);
	RUN(test_read_file);
	buf_free(&msgs);
	return test_done();
}
