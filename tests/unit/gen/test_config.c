// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/compress/compress.h"
#include "gen/config.h"
#include "err.h"
#include "test.h"

static char *write_tmp(const char *text)
{
	char *path = xstrdup("/tmp/uniramfs-test-conf-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write_all(fd, text, strlen(text)) < 0)
		abort();
	close(fd);
	return path;
}

static void test_keys_and_comments(void)
{
	if (!compression_built_in(COMP_XZ))
		SKIP("these values need xz built in");
	struct build_opts o;
	char *p = write_tmp("# a comment\n\ncompress = xz\nadd_modules = a, b\nadd-modules = c\n"
			    "mode=hostonly\ncmdline = \"quiet rd.debug\"\nmicrocode = none\n");
	build_opts_init(&o);
	CHECK(config_load_file(&o, p, true) == 0);
	CHECK(o.compress == COMP_XZ);
	CHECK(o.mode == MODE_HOSTONLY);
	CHECK(o.microcode == MICROCODE_NONE);
	CHECK(o.add_modules.n == 3);
	CHECK_STR(o.add_modules.v[2], "c");
	CHECK_STR(o.cmdline, "quiet rd.debug");
	build_opts_free(&o);
	unlink(p);
	free(p);
}

/* # after a blank starts a comment; inside a word or quotes it is text */
static void test_trailing_comments(void)
{
	if (!compression_built_in(COMP_XZ))
		SKIP("these values need xz built in");
	struct build_opts o;
	char *p = write_tmp("compress = xz # smaller\nadd-modules = a#b,c\t# two\n"
			    "cmdline = \"quiet # not a comment\"   # but this is\nkver = # nothing\n");
	char *want = xasprintf("%s:4: empty value for kver", p);
	build_opts_init(&o);
	CHECK(config_load_file(&o, p, true) < 0);
	CHECK_STR(err_msg(), want);
	CHECK(o.compress == COMP_XZ);
	CHECK(o.add_modules.n == 2);
	if (o.add_modules.n == 2) {
		CHECK_STR(o.add_modules.v[0], "a#b");
		CHECK_STR(o.add_modules.v[1], "c");
	}
	CHECK_STR(o.cmdline, "quiet # not a comment");
	build_opts_free(&o);
	unlink(p);
	free(p);
	free(want);
}

/* a NUL would end the text the parser sees: the lines after it lost */
static void test_nul_byte_names_line(void)
{
	if (!compression_built_in(COMP_XZ))
		SKIP("these values need xz built in");
	struct build_opts o;
	char *p = write_tmp("compress = xz\n\n");
	char *want = xasprintf("%s:3: NUL byte (is this a text file?)", p);
	FILE *f = fopen(p, "a");
	fwrite("kver = 1\0\nmode = hostonly\n", 1, 26, f);
	fclose(f);
	build_opts_init(&o);
	CHECK(config_load_file(&o, p, true) < 0);
	CHECK_STR(err_msg(), want);
	CHECK(o.mode == MODE_GENERIC);
	build_opts_free(&o);
	unlink(p);
	free(p);
	free(want);
}

static void test_unknown_key_names_file_and_line(void)
{
	struct build_opts o;
	char *p = write_tmp("compress = zstd\n\n# x\ncompres = xz\n");
	char *want = xasprintf("%s:4: unknown key 'compres'", p);
	build_opts_init(&o);
	CHECK(config_load_file(&o, p, true) < 0);
	CHECK_STR(err_msg(), want);
	build_opts_free(&o);
	unlink(p);
	free(p);
	free(want);
}

static void test_bad_value_names_text(void)
{
	struct build_opts o;
	char *p = write_tmp("compress = brotli\n");
	char *want = xasprintf("%s:1: bad value 'brotli' for compress (expected zstd, xz, lz4, gzip or none)", p);
	build_opts_init(&o);
	CHECK(config_load_file(&o, p, true) < 0);
	CHECK_STR(err_msg(), want);
	build_opts_free(&o);
	unlink(p);
	free(p);
	free(want);
}

static void test_ssh_unlock(void)
{
	struct build_opts o;
	char *p = write_tmp("ssh_unlock = yes\nssh-unlock = maybe\n");
	char *want = xasprintf("%s:2: bad value 'maybe' for ssh-unlock (expected auto, yes or no)", p);

	build_opts_init(&o);
	CHECK(o.ssh_unlock == SSH_AUTO);
	CHECK(config_load_file(&o, p, true) < 0);
	CHECK(o.ssh_unlock == SSH_YES); /* the first line took */
	CHECK_STR(err_msg(), want);
	CHECK(config_set(&o, "ssh-unlock", "no", "--ssh-unlock") == 0 && o.ssh_unlock == SSH_NO);
	build_opts_free(&o);
	unlink(p);
	free(p);
	free(want);
}

static void test_line_without_equals(void)
{
	struct build_opts o;
	char *p = write_tmp("hostonly\n");
	char *want = xasprintf("%s:1: expected 'key = value', got 'hostonly'", p);
	build_opts_init(&o);
	CHECK(config_load_file(&o, p, true) < 0);
	CHECK_STR(err_msg(), want);
	build_opts_free(&o);
	unlink(p);
	free(p);
	free(want);
}

static void test_dropins_sorted_and_later_wins(void)
{
	if (!compression_built_in(COMP_XZ))
		SKIP("these values need xz built in");
	char dir[] = "/tmp/uniramfs-test-etc-XXXXXX";
	struct build_opts o;
	char *d, *f;
	CHECK(mkdtemp(dir) != NULL);
	d = path_join(dir, "uniramfs.conf.d");
	CHECK(mkdir_p(d, 0755) == 0);
	f = path_join(dir, "uniramfs.conf");
	FILE *fp = fopen(f, "w");
	fputs("compress = gzip\nkver = 1.0\n", fp);
	fclose(fp);
	free(f);
	f = path_join(d, "20-b.conf");
	fp = fopen(f, "w");
	fputs("compress = lz4\n", fp);
	fclose(fp);
	free(f);
	f = path_join(d, "10-a.conf");
	fp = fopen(f, "w");
	fputs("compress = xz\n", fp);
	fclose(fp);
	free(f);
	f = path_join(d, "30-ignored.txt");
	fp = fopen(f, "w");
	fputs("garbage\n", fp);
	fclose(fp);
	free(f);

	build_opts_init(&o);
	CHECK(config_load_defaults(&o, dir) == 0);
	CHECK(o.compress == COMP_LZ4);
	CHECK_STR(o.kver, "1.0");
	build_opts_free(&o);
	char *cmd = xasprintf("rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(d);
}

static void test_missing_defaults_are_fine(void)
{
	struct build_opts o;
	build_opts_init(&o);
	CHECK(config_load_defaults(&o, "/nonexistent-uniramfs-etc") == 0);
	CHECK(o.compress == COMP_ZSTD && o.mode == MODE_GENERIC);
	CHECK(config_load_file(&o, "/nonexistent/uniramfs.conf", true) < 0);
	CHECK_STR(err_msg(), "config /nonexistent/uniramfs.conf: No such file or directory");
	build_opts_free(&o);
}

static void test_flag_names(void)
{
	CHECK_STR(config_key_name("add_binaries"), "add-binaries");
	CHECK(config_key_name("nope") == NULL);
	CHECK(config_key_is_bool("hostonly"));
	CHECK(!config_key_is_bool("output"));
}

/* plymouth: a bare flag on the command line (--plymouth) is yes; a file
 * says auto (the default), yes or no, and no is kept apart from auto. */
static void test_flag_auto(void)
{
	struct build_opts o;

	build_opts_init(&o);
	CHECK(config_key_is_bool("plymouth"));
	CHECK(o.plymouth == PLYMOUTH_AUTO);
	CHECK(config_set(&o, "plymouth", "", "--plymouth") == 0 && o.plymouth == PLYMOUTH_YES);
	CHECK(config_set(&o, "plymouth", "no", "test") == 0 && o.plymouth == PLYMOUTH_NO);
	CHECK(config_set(&o, "plymouth", "auto", "test") == 0 && o.plymouth == PLYMOUTH_AUTO);
	CHECK(config_set(&o, "plymouth", "yes", "test") == 0 && o.plymouth == PLYMOUTH_YES);
	CHECK(config_set(&o, "plymouth", "0", "test") == 0 && o.plymouth == PLYMOUTH_NO);
	CHECK(config_set(&o, "plymouth", "maybe", "f:3") < 0);
	CHECK_STR(err_msg(), "f:3: bad value 'maybe' for plymouth (expected auto, yes or no)");
	build_opts_free(&o);
}

/* build_opts_free (build/opts.c) lists the fields it frees apart from
 * the key table: every key that --help shows, set once, must be freed
 * (ASan's leak check), and the nested rescue keys land in o.rescue. */
static void test_every_key_freed(void)
{
	struct build_opts o;
	char *text = NULL, *line, *save;
	size_t len = 0, nkeys = 0;
	FILE *keys = open_memstream(&text, &len);
	int saved = dup(STDOUT_FILENO);
	FILE *tmp = tmpfile();

	if (!keys || saved < 0 || !tmp)
		abort();
	fflush(stdout);
	dup2(fileno(tmp), STDOUT_FILENO);
	config_print_keys();
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	for (int c; (c = fgetc(tmp)) != EOF;)
		fputc(c, keys);
	fclose(tmp);
	fclose(keys);

	build_opts_init(&o);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		if (sscanf(line, " %63s", name) != 1)
			continue;
		CHECK(config_key_name(name) != NULL);
		/* "yes" is a value for each string, list, yes/no and auto key;
		 * the others (mode, compress) refuse it, having nothing to free */
		if (config_set(&o, name, "yes", "test") == 0)
			nkeys++;
	}
	CHECK(nkeys > 20);
	CHECK(o.rescue.shell == RESCUE_SHELL_YES);
	CHECK_STR(o.rescue.password_hash, "yes");
	CHECK_STR(o.rescue.password_account, "yes");
	CHECK(o.squashfs == SQUASHFS_YES && o.ssh_unlock == SSH_YES && o.ssh_hostkeys == SSH_HOSTKEYS_YES);
	CHECK(o.plymouth == PLYMOUTH_YES);
	build_opts_free(&o);
	CHECK(!o.rescue.password_hash && !o.kver && !o.uki_cmdline && o.add_hooks.n == 0);
	free(text);
}

int main(void)
{
	RUN(test_keys_and_comments);
	RUN(test_trailing_comments);
	RUN(test_nul_byte_names_line);
	RUN(test_unknown_key_names_file_and_line);
	RUN(test_bad_value_names_text);
	RUN(test_line_without_equals);
	RUN(test_ssh_unlock);
	RUN(test_dropins_sorted_and_later_wins);
	RUN(test_missing_defaults_are_fine);
	RUN(test_flag_names);
	RUN(test_flag_auto);
	RUN(test_every_key_freed);
	return test_done();
}
