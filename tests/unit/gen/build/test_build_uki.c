// SPDX-License-Identifier: GPL-2.0-or-later
/* `build --uki` with the options around the UKI itself, end to end on a
 * fake kernel tree: --uki-sign-key/--uki-sign-cert give a UKI that
 * sbverify accepts with that certificate and refuses with another; a
 * failed signing leaves the previous UKI; hostile key paths are refused
 * by exact message before any work, and the keys are never written.
 * --uki-pcr-key/--uki-pcr-public-key and --uki-ucode: the sections in
 * ukify's order, and .pcrsig the very bytes systemd's own
 * `systemd-measure sign` writes for the sections read back. */
#include <stdint.h>
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

/* The UKI's section table, read here apart from uki.c: name, virtual
 * size and address, raw size and pointer. */
struct sec {
	char name[9];
	uint32_t vsize, va, rsize, raw;
};

static uint32_t g32(const char *p)
{
	const uint8_t *u = (const uint8_t *)p;
	return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

static size_t sections(const char *d, size_t len, struct sec *out, size_t max)
{
	uint32_t pe, nsec, optlen;
	size_t n = 0;

	if (len < 0x40)
		return 0;
	pe = g32(d + 0x3c);
	if ((size_t)pe + 24 > len)
		return 0;
	nsec = (uint8_t)d[pe + 6] | (uint8_t)d[pe + 7] << 8;
	optlen = (uint8_t)d[pe + 20] | (uint8_t)d[pe + 21] << 8;
	for (uint32_t i = 0; i < nsec && n < max; i++) {
		const char *sh = d + pe + 24 + optlen + 40 * i;
		if ((size_t)(sh + 40 - d) > len)
			break;
		memset(out[n].name, 0, sizeof(out[n].name));
		memcpy(out[n].name, sh, 8);
		out[n].vsize = g32(sh + 8), out[n].va = g32(sh + 12);
		out[n].rsize = g32(sh + 16), out[n].raw = g32(sh + 20);
		n++;
	}
	return n;
}

static const struct sec *find_sec(const struct sec *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0)
			return &s[i];
	return NULL;
}

/* Section name into rel under tmpdir, the stub's view: VirtualSize bytes. */
static bool dump_sec(const char *d, const struct sec *s, size_t n, const char *name, const char *rel)
{
	const struct sec *x = find_sec(s, n, name);
	char *p = at(rel);
	FILE *f = fopen(p, "w");
	bool ok = x && f && fwrite(d + x->raw, 1, x->vsize, f) == x->vsize;
	if (f)
		fclose(f);
	free(p);
	return ok;
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
	char *kp = at("db.key");
	size_t blen = 0, alen = 0, klen = 0, k2len = 0;
	struct stat kst, kst2;

	CHECK(read_file(kp, &key, &klen) == 0);
	CHECK(stat(kp, &kst) == 0);
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
	CHECK(read_file(kp, &key2, &k2len) == 0);
	CHECK(stat(kp, &kst2) == 0);
	CHECK(klen == k2len && memcmp(key, key2, klen) == 0);
	CHECK(kst.st_mtim.tv_sec == kst2.st_mtim.tv_sec && kst.st_mtim.tv_nsec == kst2.st_mtim.tv_nsec);
	free(before), free(after), free(key), free(key2), free(u), free(kp);
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

/* --uki-pcr-key: ukify's order (.pcrpkey before .initrd, .ucode after
 * it, .pcrsig, .linux last), page-aligned, each section whole; .pcrpkey
 * the public key as given. Then the reference: systemd 252's own
 * `systemd-measure sign` (its policy computed by swtpm) over the
 * sections read back from our UKI writes our .pcrsig byte for byte. */
static void test_pcr(void)
{
	static const char *const order[] = { ".osrel", ".cmdline", ".uname", ".pcrpkey", ".initrd", ".pcrsig", ".linux" };
	char *o, *out = NULL, *d = NULL, *pub = NULL, *u = at("p.efi"), *pp = at("pcr.pub");
	size_t len = 0, publen = 0, n, first;
	struct sec s[32];

	o = xasprintf("--uki %s --uki-cmdline 'root=/dev/vda ro' --uki-pcr-key %s/pcr.key --uki-pcr-public-key "
		      "%s/pcr.pub", u, tmpdir, tmpdir);
	CHECK(run_build(o, &out) == 0);
	free(o), free(out);
	CHECK(read_file(u, &d, &len) == 0);
	CHECK(read_file(pp, &pub, &publen) == 0);
	n = d ? sections(d, len, s, ARRAY_SIZE(s)) : 0;
	CHECK(n > ARRAY_SIZE(order));
	first = n - ARRAY_SIZE(order);
	for (size_t i = 0; i < ARRAY_SIZE(order) && n > ARRAY_SIZE(order); i++) {
		const struct sec *x = &s[first + i];
		CHECK_STR(x->name, order[i]);
		CHECK(x->va % 4096 == 0 && x->raw % 512 == 0 && x->rsize >= x->vsize);
		CHECK((size_t)x->raw + x->vsize <= len);
		if (i)
			CHECK(x->va >= s[first + i - 1].va + s[first + i - 1].vsize);
	}
	{
		const struct sec *k = find_sec(s, n, ".pcrpkey"), *sig = find_sec(s, n, ".pcrsig");
		CHECK(k && k->vsize == publen && memcmp(d + k->raw, pub, publen) == 0);
		CHECK(sig && sig->vsize > 4 && memcmp(d + sig->raw, "{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"", 32) == 0);
	}
	CHECK(dump_sec(d, s, n, ".linux", "x.linux") && dump_sec(d, s, n, ".osrel", "x.osrel") &&
	      dump_sec(d, s, n, ".cmdline", "x.cmdline") && dump_sec(d, s, n, ".initrd", "x.initrd") &&
	      dump_sec(d, s, n, ".pcrpkey", "x.pcrpkey") && dump_sec(d, s, n, ".pcrsig", "x.pcrsig"));
	free(d), free(pub), free(u), free(pp);

	if (run_capture("command -v swtpm >/dev/null && ls /usr/lib/*/libtss2-tcti-swtpm.so.0 >/dev/null 2>&1", NULL) != 0) {
		printf("# no swtpm or its tss2 TCTI: the reference signature is not compared\n");
		return;
	}
	/* swtpm on two free loopback ports (the kernel's pick for the first) */
	CHECK(run_shf("cd %s && mkdir -p tpm && port=$(python3 -c 'import socket; s=socket.socket(); "
		      "s.bind((\"127.0.0.1\",0)); print(s.getsockname()[1])') && "
		      "{ swtpm socket --tpm2 --tpmstate dir=$PWD/tpm --server type=tcp,port=$port,bindaddr=127.0.0.1 "
		      "--ctrl type=tcp,port=$((port+1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear "
		      "--daemon --pid file=$PWD/tpm/pid && "
		      "/usr/lib/systemd/systemd-measure sign --bank=sha256 --linux=x.linux --osrel=x.osrel "
		      "--cmdline=x.cmdline --initrd=x.initrd --pcrpkey=x.pcrpkey --private-key=pcr.key "
		      "--public-key=pcr.pub --tpm2-device=swtpm:host=127.0.0.1,port=$port --json=short >ref.json; "
		      "r=$?; kill $(cat tpm/pid); exit $r; }",
		      tmpdir) == 0);
	/* systemd-measure ends its JSON with a newline, the section not */
	CHECK(run_shf("cd %s && printf '\\n' >>x.pcrsig && cmp ref.json x.pcrsig", tmpdir) == 0);
}

/* .ucode: a newc cpio after .initrd; anything else refused by name; and
 * with --uki-pcr-key refused while systemd-measure cannot measure it. */
static void test_ucode(void)
{
	char *o, *out = NULL, *d = NULL, *u = at("u.efi");
	size_t len = 0, n;
	struct sec s[32];

	o = xasprintf("--uki %s --uki-ucode %s/ucode.cpio", u, tmpdir);
	CHECK(run_build(o, &out) == 0);
	free(o), free(out);
	CHECK(read_file(u, &d, &len) == 0);
	n = d ? sections(d, len, s, ARRAY_SIZE(s)) : 0;
	CHECK(n >= 4);
	if (n >= 4) {
		CHECK_STR(s[n - 3].name, ".initrd");
		CHECK_STR(s[n - 2].name, ".ucode");
		CHECK_STR(s[n - 1].name, ".linux");
		CHECK(s[n - 2].vsize == 14 && memcmp(d + s[n - 2].raw, "070701-ucode-x", 14) == 0);
	}
	free(d);
	o = xasprintf("--uki %s --uki-ucode %s/vmlinuz", u, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-ucode %s/vmlinuz: not an uncompressed cpio archive (newc)\n");
	free(o);
	o = xasprintf("-o %s/img --uki-ucode %s/ucode.cpio", tmpdir, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-ucode goes with --uki FILE.efi\n");
	free(o);
	if (run_capture("/usr/lib/systemd/systemd-measure --help 2>/dev/null | grep -q -e --ucode=", NULL) != 0) {
		o = xasprintf("--uki %s --uki-ucode %s/ucode.cpio --uki-pcr-key %s/pcr.key --uki-pcr-public-key "
			      "%s/pcr.pub", u, tmpdir, tmpdir, tmpdir);
		CHECK(run_build(o, &out) == 1);
		CHECK_STR(last_line(out), "uniramfs: error: /usr/lib/systemd/systemd-measure cannot measure a .ucode "
					  "section, which the stub would: no signed PCR policy for it");
		free(o), free(out);
	}
	free(u);
}

static void test_pcr_hostile_keys(void)
{
	char *o, *out = NULL, *u = at("k.efi"), *want;

	o = xasprintf("--uki %s --uki-pcr-key %s/pcr.key", u, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-pcr-key needs --uki-pcr-public-key too\n");
	free(o);
	o = xasprintf("-o %s/img --uki-pcr-public-key %s/pcr.pub --uki-pcr-key %s/pcr.key", tmpdir, tmpdir, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-pcr-key goes with --uki FILE.efi\n");
	free(o);
	o = xasprintf("--uki %s --uki-pcr-key %s/fifo --uki-pcr-public-key %s/pcr.pub", u, tmpdir, tmpdir);
	expect_refused(o, "uniramfs: error: --uki-pcr-key %s/fifo: not a regular file\n");
	free(o);
	o = xasprintf("--uki %s --uki-pcr-key %s/db.key --uki-pcr-public-key %s/pcr.pub", u, tmpdir, tmpdir);
	CHECK(run_build(o, &out) == 1);
	want = xasprintf("uniramfs: error: --uki-pcr-key %s/db.key is not the private half of --uki-pcr-public-key "
			 "%s/pcr.pub", tmpdir, tmpdir);
	CHECK_STR(last_line(out), want);
	free(o), free(out), free(want);
	o = xasprintf("--uki %s --uki-pcr-key %s/ec.key --uki-pcr-public-key %s/ec.pub", u, tmpdir, tmpdir);
	CHECK(run_build(o, &out) == 1);
	want = xasprintf("uniramfs: error: --uki-pcr-public-key %s/ec.pub: not an RSA public key (systemd 252 signs PCR "
			 "policies with RSA only)", tmpdir);
	CHECK_STR(last_line(out), want);
	free(o), free(out), free(want);
	o = xasprintf("--uki %s --uki-pcr-key %s/pcr.key --uki-pcr-public-key %s/db.crt", u, tmpdir, tmpdir);
	CHECK(run_build(o, &out) == 1);
	want = xasprintf("uniramfs: error: --uki-pcr-public-key %s/db.crt: not a public key in PEM: openssl failed "
			 "(exit status 1)", tmpdir);
	CHECK_STR(last_line(out), want);
	free(o), free(out), free(want);
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
	run_shf("cd %s && openssl genrsa -out pcr.key 2048 2>/dev/null && openssl rsa -in pcr.key -pubout -out pcr.pub "
		"2>/dev/null && openssl ecparam -genkey -name prime256v1 -out ec.key 2>/dev/null && "
		"openssl ec -in ec.key -pubout -out ec.pub 2>/dev/null", tmpdir);
	write_under(tmpdir, "ucode.cpio", "070701-ucode-x");
	RUN(test_sign);
	RUN(test_hostile_keys);
	RUN(test_pcr);
	RUN(test_ucode);
	RUN(test_pcr_hostile_keys);
	run_shf("rm -rf %s", tmpdir);
	free(tmpdir), free(uniramfs), free(init_bin), free(kver);
	return test_done();
}
