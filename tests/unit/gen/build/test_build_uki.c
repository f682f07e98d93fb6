// SPDX-License-Identifier: GPL-2.0-or-later
/* `build --uki` with the options around the UKI itself, end to end on a
 * fake kernel tree: --uki-sign-key/--uki-sign-cert give a UKI that
 * sbverify accepts with that certificate and refuses with another; a
 * failed signing leaves the previous UKI; hostile key paths are refused
 * by exact message before any work, and the keys are never written. */
#include <sys/stat.h>
#include <unistd.h>

#include "run_helpers.h"
#include "test.h"
#include "util.h"

#define STUB "/usr/lib/systemd/boot/efi/linuxx64.efi.stub"

static char *uniramfs, *init_bin, *kver, *tmpdir;

static char *at(const char *rel)
{
	return path_join(tmpdir, rel);
}

/* The build's command, the fake tree's kernel and an uncompressed image
 * (signing is what is tested, not the image). */
static char *build(const char *extra)
{
	return xasprintf("%s build --config /dev/null --init %s --microcode none --compress none "
			 "--squashfs no --kernel-tree %s/tree --uki-kernel %s/vmlinuz %s 2>&1",
			 uniramfs, init_bin, tmpdir, tmpdir, extra);
}

/* The last line of out, without its newline (sbsign's own lines come
 * first on a failure). */
static const char *last_line(char *out)
{
	size_t n = strlen(out);
	char *p;
	if (n && out[n - 1] == '\n')
		out[--n] = '\0';
	p = strrchr(out, '\n');
	return p ? p + 1 : out;
}

static int run_build(const char *extra, char **out)
{
	char *c = build(extra);
	int r = run_capture(c, out);
	free(c);
	return r;
}

static void test_sign(void)
{
	char *out = NULL, *o, *u = at("s.efi"), *before = NULL, *after = NULL, *key = NULL, *key2 = NULL;
	size_t blen = 0, alen = 0, klen = 0, k2len = 0;
	struct stat kst, kst2;

	CHECK(read_file(at("db.key"), &key, &klen) == 0);
	CHECK(stat(at("db.key"), &kst) == 0);
	o = xasprintf("--uki %s --uki-sign-key %s/db.key --uki-sign-cert %s/db.crt", u, tmpdir, tmpdir);
	CHECK(run_build(o, &out) == 0);
	free(o), free(out);
	CHECK(run_shf("sbverify --cert %s/db.crt %s >/dev/null 2>&1", tmpdir, u) == 0);
	{
		char *c = xasprintf("sbverify --cert %s/other.crt %s >/dev/null 2>&1", tmpdir, u);
		CHECK(run_capture(c, NULL) != 0);
		free(c);
	}

	/* a key that does not match the certificate: sbsign fails, the old
	 * UKI stays whole and verified */
	CHECK(read_file(u, &before, &blen) == 0);
	o = xasprintf("--uki %s --uki-sign-key %s/db.key --uki-sign-cert %s/other.crt", u, tmpdir, tmpdir);
	CHECK(run_build(o, &out) == 1);
	{
		char *want = xasprintf("uniramfs: error: --uki-sign-key %s/db.key: sbsign failed (exit status 1)",
				       tmpdir);
		CHECK_STR(last_line(out), want);
		free(want);
	}
	free(o), free(out);
	CHECK(read_file(u, &after, &alen) == 0);
	CHECK(blen == alen && blen && memcmp(before, after, blen) == 0);
	CHECK(run_shf("sbverify --cert %s/db.crt %s >/dev/null 2>&1", tmpdir, u) == 0);

	/* the key is read, never written */
	CHECK(read_file(at("db.key"), &key2, &k2len) == 0);
	CHECK(stat(at("db.key"), &kst2) == 0);
	CHECK(klen == k2len && memcmp(key, key2, klen) == 0);
	CHECK(kst.st_mtim.tv_sec == kst2.st_mtim.tv_sec && kst.st_mtim.tv_nsec == kst2.st_mtim.tv_nsec);
	free(before), free(after), free(key), free(key2), free(u);
}

static void expect_refused(const char *extra, const char *want_fmt)
{
	char *out = NULL, *want = xasprintf(want_fmt, tmpdir, tmpdir);
	CHECK(run_build(extra, &out) == 1);
	CHECK_STR(out, want);
	free(out), free(want);
}

static void test_hostile_keys(void)
{
	char *o, *u = at("h.efi");

	o = xasprintf("--uki %s --uki-sign-key %s/db.key", u, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-sign-key needs --uki-sign-cert too\n");
	free(o);
	o = xasprintf("--uki %s --uki-sign-cert %s/db.crt", u, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-sign-cert needs --uki-sign-key too\n");
	free(o);
	o = xasprintf("-o %s/img --uki-sign-key %s/db.key --uki-sign-cert %s/db.crt", tmpdir, tmpdir, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-sign-key goes with --uki FILE.efi\n");
	free(o);
	o = xasprintf("--uki %s --uki-sign-key %s --uki-sign-cert %s/db.crt", u, tmpdir, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-sign-key %s: not a regular file\n");
	free(o);
	o = xasprintf("--uki %s --uki-sign-key %s/fifo --uki-sign-cert %s/db.crt", u, tmpdir, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-sign-key %s/fifo: not a regular file\n");
	free(o);
	o = xasprintf("--uki %s --uki-sign-key %s/db.key --uki-sign-cert /dev/zero", u, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-sign-cert /dev/zero: not a regular file\n");
	free(o);
	o = xasprintf("--uki %s --uki-sign-key %s/empty --uki-sign-cert %s/db.crt", u, tmpdir, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-sign-key %s/empty: 0 bytes (a PEM file has 1 to 1048576)\n");
	free(o);
	o = xasprintf("--uki %s --uki-sign-key %s/db.key --uki-sign-cert %s/none", u, tmpdir, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-sign-cert %s/none: No such file or directory\n");
	free(o);
	CHECK(access(u, F_OK) < 0);
	free(u);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-test-buki-XXXXXX";

	if (!find_binaries(&uniramfs, &init_bin, &kver))
		return test_done();
	tmpdir = xstrdup(mkdtemp(tmpl));
	if (access(STUB, R_OK) < 0 || run_shf("command -v sbsign sbverify openssl >/dev/null") != 0) {
		printf("ok 1 - main # SKIP no systemd-boot-efi stub, sbsigntool or openssl\n1..1\n");
		run_shf("rm -rf %s", tmpdir);
		return 0;
	}
	write_under(tmpdir, "tree/include/config/kernel.release", "6.1.0-mini\n");
	write_under(tmpdir, "tree/.config", "CONFIG_64BIT=y\n# CONFIG_MODULES is not set\n");
	write_under(tmpdir, "tree/modules.builtin", "");
	write_under(tmpdir, "vmlinuz", "FAKE-KERNEL");
	write_under(tmpdir, "empty", "");
	run_shf("mkfifo %s/fifo", tmpdir);
	run_shf("cd %s && for n in db other; do openssl req -new -x509 -newkey rsa:2048 -nodes -keyout $n.key "
		"-out $n.crt -days 3650 -subj /CN=uniramfs-test-$n/ 2>/dev/null || exit 1; done",
		tmpdir);
	RUN(test_sign);
	RUN(test_hostile_keys);
	run_shf("rm -rf %s", tmpdir);
	free(tmpdir), free(uniramfs), free(init_bin), free(kver);
	return test_done();
}
