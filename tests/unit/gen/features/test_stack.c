// SPDX-License-Identifier: GPL-2.0-or-later
/* The generator's side of LUKS, LVM and md: for each stack a hostonly
 * fixture (tests/unit/fixtures/hostonly) copied into a sysroot with
 * stand-in tools (a static busybox named cryptsetup, lvm, mdadm) and a
 * crypttab; the image gets exactly the stack's tools and configs, and a
 * missing tool fails the build naming its package (LVM's, its plugin's
 * line). LVM comes from uniramfs's own plugins (the tree's plugins/),
 * read, chosen and packed as the build does. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "err.h"
#include "gen/compress/compress.h"
#include "gen/hostonly/hostonly.h"
#include "gen/image/image.h"
#include "log.h"
#include "clevis_pins.h"
#include "luks2.h"
#include "gen/features/nettools.h"
#include "gen/features/stack.h"
#include "gen/plugins/plugin.h"
#include "image_helpers.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

#define STATIC_ELF "/bin/busybox"

static void put(const char *root, const char *path, const char *text, mode_t mode)
{
	char *p = path_join(root, path), *dir = xstrdup(p);
	FILE *f;

	*strrchr(dir, '/') = '\0';
	mkdir_p(dir, 0755);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(p, mode);
	free(p);
	free(dir);
}

/* A sysroot: the fixture's /proc and /sys, plus the named tools. */
static char *sysroot(const char *fix, const char *tools)
{
	char tmpl[] = "/tmp/uniramfs-test-stack-XXXXXX";
	char *dir = xstrdup(mkdtemp(tmpl)), *src = hostonly_fixture(fix);
	char *cmd = xasprintf("cp -a %s/. %s/", src, dir);
	struct strv t = { 0 };

	CHECK(system(cmd) == 0);
	free(cmd);
	strv_split(&t, tools, ",");
	for (size_t i = 0; i < t.n; i++) {
		char *dst = xasprintf("%s/usr/sbin/%s", dir, t.v[i]);
		cmd = xasprintf("mkdir -p %s/usr/sbin && cp " STATIC_ELF " %s", dir, dst);
		CHECK(system(cmd) == 0);
		free(cmd);
		free(dst);
	}
	strv_free(&t);
	free(src);
	return dir;
}

static void rm_tree(char *dir)
{
	char *cmd = xasprintf("rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(dir);
}

static struct strv key_globs;

/* uniramfs's own plugins (the tree's plugins/: LVM, clevis), as the
 * build runs them before the stack's plan (h NULL: a generic image). */
static int own_plugins(const char *root, const struct hostonly *h, struct stack_plan *sp,
		       struct image *img)
{
	struct plugins ps = { 0 };
	struct plugin_facts f = { 0 };
	char *own = path_join(getenv("UNIRAMFS_SRCDIR"), "plugins");
	int r = plugins_read_all(&ps, own, root, NULL);

	if (h)
		plugin_facts_hostonly(&f, h);
	/* as build.c's plugin_features: clevis's decision, then its feature */
	if (r == 0)
		r = stack_clevis_decide(sp, &ps, root);
	if (r == 0 && sp->clevis_on)
		strv_push(&f.features, "clevis");
	if (r == 0) {
		plugins_select(&ps, root, &f);
		r = plugins_add(&ps, img, root, "6.1.0-test");
	}
	sp->lvm = plugins_pack_program(&ps, "lvm");
	sp->thin_check = plugins_pack_program(&ps, "thin_check");
	sp->cache_check = plugins_pack_program(&ps, "cache_check");
	plugins_free(&ps);
	plugin_facts_free(&f);
	free(own);
	return r;
}

static int plan(const char *root, struct stack_plan *sp, struct image *img,
		const struct strv *keys)
{
	struct hostonly h;
	int r = hostonly_detect(root, &h);

	CHECK(r == 0);
	memset(sp, 0, sizeof(*sp));
	/* the owner's choice of key files (keyfile-pattern) */
	if (!key_globs.n) {
		strv_push(&key_globs, "/etc/keys/*.key");
		strv_push(&key_globs, "/*");
	}
	sp->keyfile_pattern = &key_globs;
	if (r == 0) {
		stack_plan_hostonly(sp, root, &h);
		r = own_plugins(root, &h, sp, img);
		if (r == 0)
			r = stack_plan_add(sp, img, root, keys);
	}
	hostonly_free(&h);
	return r;
}

static struct buf notices;
static void sink(int level, const char *msg, void *userdata)
{
	(void)userdata;
	buf_printf(&notices, "<%d>%s\n", level, msg);
}

static void test_lvm_on_luks(void)
{
	char *root;
	struct stack_plan sp;
	struct image *img = image_new();
	struct buf ct = { 0 };
	struct strv keys = { 0 }, mods = { 0 };

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	root = sysroot("luks", "cryptsetup,lvm,mdadm");
	put(root, "/etc/crypttab", "# <target> <source> <key> <options>\n"
				   "luks-3f1a7c2e UUID=3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718 /etc/keys/root.key luks,discard\n"
				   "backup UUID=11111111-2222-3333-4444-555555555555 /etc/keys/backup.key luks\n"
				   "swap /dev/vdc1 /dev/urandom swap\n", 0644);
	put(root, "/etc/keys/root.key", "root key", 0600);
	put(root, "/sys/module/usbhid/refcnt", "0\n", 0644);
	put(root, "/sys/module/hid_generic/refcnt", "0\n", 0644);
	put(root, "/etc/keys/backup.key", "backup key", 0600);
	buf_free(&notices);
	log_set_sink(sink, NULL);
	CHECK(plan(root, &sp, img, NULL) == 0);
	log_set_sink(NULL, NULL);
	CHECK(strv_contains(&sp.crypt_names, "luks-3f1a7c2e") && sp.crypt_names.n == 1);
	CHECK(image_has(img, "/usr/sbin/cryptsetup"));
	CHECK(image_has(img, "/usr/sbin/lvm"));
	CHECK(image_has(img, "/etc/lvm/lvm.conf"));
	CHECK(!image_has(img, "/usr/sbin/mdadm"));
	CHECK(!image_has(img, "/etc/mdadm/mdadm.conf"));
	CHECK(!image_has(img, "/usr/sbin/thin_check"));
	CHECK(image_has(img, "/etc/crypttab"));
	CHECK(image_has(img, "/etc/keys/root.key"));
	CHECK(!image_has(img, "/etc/keys/backup.key"));
	CHECK(notices.p && strstr(notices.p, "<5>this image holds key material (/etc/keys/root.key): keep it private\n"));
	CHECK(stack_plan_crypttab(&sp, root, &ct, &keys) == 0);
	CHECK_STR(ct.p, "luks-3f1a7c2e UUID=3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718 /etc/keys/root.key luks,discard\n");
	CHECK(keys.n == 1 && !strcmp(keys.v[0], "/etc/keys/root.key"));
	stack_plan_modules(&sp, &mods);
	CHECK(strv_contains(&mods, "crypto-xts") && strv_contains(&mods, "crypto-essiv"));
	/* the host's keyboards (loaded ones only): the prompt needs one */
	CHECK(strv_contains(&mods, "usbhid") && strv_contains(&mods, "hid_generic"));
	CHECK(!strv_contains(&mods, "hid_apple"));
	strv_free(&mods);
	strv_free(&keys);
	buf_free(&ct);
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);
}

/* A LUKS2 header at ROOT/dev/NAME whose JSON area is json. */
static void luks2_dev(const char *root, const char *name, const char *json)
{
	static unsigned char h[16384];
	char *p = xasprintf("%s/dev/%s", root, name), *rel = xasprintf("/dev/%s", name);
	FILE *f;

	put(root, rel, "", 0600); /* makes /dev */
	free(rel);
	memset(h, 0, sizeof(h));
	memcpy(h, "LUKS\xba\xbe\0\2", 8);
	h[14] = 0x40;
	memcpy(h + 4096, json, strlen(json));
	f = fopen(p, "wb");
	CHECK(f && fwrite(h, 1, sizeof(h), f) == sizeof(h));
	if (f)
		fclose(f);
	free(p);
}

/* A LUKS1 device whose luksmeta slot 0 holds clevis's binding jwe: one
 * key slot at sector 8, the gap (luksmeta's header) at 8192, the data at
 * sector 32 (src/common/luksmeta.c) */
static void luks1_clevis_dev(const char *root, const char *name, const char *jwe)
{
	static const unsigned char uuid[16] = { 0xcb, 0x6e, 0x89, 0x04, 0x81, 0xff, 0x40, 0xda,
						0xa8, 0x4a, 0x07, 0xab, 0x9a, 0xb5, 0x71, 0x5e };
	static unsigned char h[16384];
	char *p = xasprintf("%s/dev/%s", root, name);
	FILE *f;

	memset(h, 0, sizeof(h));
	memcpy(h, "LUKS\xba\xbe\0\1", 8);
	h[107] = 32;
	h[111] = 32;
	h[208 + 43] = 8;
	h[208 + 47] = 1;
	memcpy(h + 8192, "LUKSMETA", 8);
	h[8192 + 11] = 1;
	memcpy(h + 8192 + 16, uuid, sizeof(uuid));
	h[8192 + 16 + 18] = 4096 >> 8;
	h[8192 + 16 + 23] = (unsigned char)strlen(jwe);
	memcpy(h + 8192 + 4096, jwe, strlen(jwe));
	f = fopen(p, "wb");
	CHECK(f && fwrite(h, 1, sizeof(h), f) == sizeof(h));
	if (f)
		fclose(f);
	free(p);
}

/* Hostonly: the ciphers the root's LUKS headers name become module
 * aliases the image packs (booster's TestLoadableCryptoModule: camellia);
 * a name that is not one, or a device with no header, adds nothing. */
static void test_luks_ciphers(void)
{
	struct stack_plan sp = { 0 };
	struct strv out = { 0 };
	char tmpl[] = "/tmp/uniramfs-ci-XXXXXX", *root = mkdtemp(tmpl);
	static unsigned char l1[4096];
	char *p;
	FILE *f;

	const char *json = "{\"keyslots\":{\"0\":{\"area\":{\"encryption\": \"serpent-xts-plain64\"}}},"
			   "\"segments\":{\"0\":{\"encryption\":\"camellia-xts-plain64\"},"
			   "\"1\":{\"encryption\":\"../x-cbc\"},\"2\":{\"encryption\":\"capi:xts(aes)\"},"
			   "\"3\":{\"encryption\":\"unterminated";

	stack_ciphers_json(json, strlen(json), &out);
	CHECK(out.n == 2 && !strcmp(out.v[0], "crypto-serpent") && !strcmp(out.v[1], "crypto-camellia"));
	strv_free(&out);
	luks2_dev(root, "vda", "{\"segments\":{\"0\":{\"encryption\":\"twofish-xts-plain64\"}}}");
	memcpy(l1, "LUKS\xba\xbe\0\1", 8);
	memcpy(l1 + 8, "cast5", 5);
	memcpy(l1 + 40, "cbc-essiv:sha256", 16);
	p = xasprintf("%s/dev/vdb", root);
	f = fopen(p, "wb");
	CHECK(f && fwrite(l1, 1, sizeof(l1), f) == sizeof(l1));
	if (f)
		fclose(f);
	free(p);
	put(root, "/dev/vdc", "no header here", 0600);
	strv_push(&sp.luks_devs, "vda");
	strv_push(&sp.luks_devs, "vdb");
	strv_push(&sp.luks_devs, "vdc");
	strv_push(&sp.layers, "dm-crypt");
	stack_plan_ciphers(&sp, root);
	stack_plan_modules(&sp, &out);
	CHECK(strv_contains(&out, "crypto-twofish") && strv_contains(&out, "crypto-cast5") &&
	      strv_contains(&out, "crypto-xts"));
	CHECK(sp.ciphers.n == 2);
	strv_free(&out);
	stack_plan_free(&sp);
	rm_tree(xstrdup(root));
}

#define TOKEN_DIR "/usr/lib/x86_64-linux-gnu/cryptsetup"
#define TOKEN_LIBS "/usr/lib/x86_64-linux-gnu"

/* Hostonly packs the token plugins, what the TPM2 one dlopen()s and the
 * host's TPM driver only when the root's LUKS2 header has a token. */
static void test_luks2_tokens(void)
{
	static const char *const tss2[] = { "libtss2-esys.so.0", "libtss2-rc.so.0",
					    "libtss2-mu.so.0", "libtss2-tcti-device.so.0" };
	for (int with = 0; with < 2; with++) {
		char *root, *cmd;
		struct stack_plan sp;
		struct image *img = image_new();
		struct strv mods = { 0 };

		if (access(STATIC_ELF, X_OK) < 0)
			SKIP("no " STATIC_ELF " (busybox-static)");
		root = sysroot("luks", "cryptsetup,lvm");
		cmd = xasprintf("mkdir -p %s" TOKEN_DIR " && cp " STATIC_ELF " %s" TOKEN_DIR
				"/libcryptsetup-token-systemd-tpm2.so", root, root);
		CHECK(system(cmd) == 0);
		free(cmd);
		for (size_t i = 0; i < ARRAY_SIZE(tss2); i++) {
			cmd = xasprintf("cp " STATIC_ELF " %s" TOKEN_LIBS "/%s", root, tss2[i]);
			CHECK(system(cmd) == 0);
			free(cmd);
		}
		put(root, "/sys/module/tpm_crb/uevent", "", 0644);
		luks2_dev(root, "vda2", with ? "{\"tokens\":{\"0\":{\"type\":\"systemd-tpm2\"}}}"
					     : "{\"tokens\":{}}");
		CHECK(plan(root, &sp, img, NULL) == 0);
		CHECK(sp.tokens == (with ? (LUKS2_TOKEN_TPM2 | LUKS2_TOKEN_TPM2_NOPIN) : 0));
		CHECK(image_has(img, TOKEN_DIR "/libcryptsetup-token-systemd-tpm2.so") == with);
		CHECK(image_has(img, "/etc/uniramfs/luks-tokens") == with);
		for (size_t i = 0; i < ARRAY_SIZE(tss2); i++) {
			char *lib = xasprintf(TOKEN_LIBS "/%s", tss2[i]);
			CHECK(image_has(img, lib) == with);
			free(lib);
		}
		stack_plan_modules(&sp, &mods);
		CHECK(strv_contains(&mods, "tpm_crb") == with);
		CHECK(!strv_contains(&mods, "tpm_tis"));
		strv_free(&mods);
		stack_plan_free(&sp);
		image_free(img);
		rm_tree(root);
	}
}

static void test_md_raid1(void)
{
	char *root;
	struct stack_plan sp;
	struct image *img = image_new();
	struct strv mods = { 0 };

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	root = sysroot("md", "cryptsetup,lvm,mdadm,mdmon");
	put(root, "/etc/mdadm/mdadm.conf", "ARRAY /dev/md0 metadata=1.2 UUID=3f1a7c2e:9b8d4e5f:a1b2c3d4:e5f60718\n", 0644);
	CHECK(plan(root, &sp, img, NULL) == 0);
	CHECK(image_has(img, "/usr/sbin/mdadm"));
	CHECK(image_has(img, "/usr/sbin/mdmon")); /* IMSM/DDF arrays need it to write */
	CHECK(image_has(img, "/etc/mdadm/mdadm.conf"));
	CHECK(!image_has(img, "/usr/sbin/cryptsetup"));
	CHECK(!image_has(img, "/usr/sbin/lvm"));
	CHECK(!image_has(img, "/etc/lvm/lvm.conf"));
	CHECK(!image_has(img, "/etc/crypttab"));
	stack_plan_modules(&sp, &mods);
	CHECK(mods.n == 0);
	strv_free(&mods);
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);
}

static void test_luks_on_md(void)
{
	char *root;
	struct stack_plan sp;
	struct image *img = image_new();
	struct buf ct = { 0 };
	struct strv keys = { 0 };

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	root = sysroot("stack-luks-on-md", "cryptsetup,lvm,mdadm");
	put(root, "/etc/crypttab", "cryptroot UUID=5d2c0e4b-8a7f-4e11-b3c2-d1e0f9a8b7c6 none luks\n", 0644);
	CHECK(plan(root, &sp, img, NULL) == 0);
	CHECK(image_has(img, "/usr/sbin/cryptsetup"));
	CHECK(image_has(img, "/usr/sbin/mdadm"));
	CHECK(image_has(img, "/etc/mdadm/mdadm.conf")); /* the generic one: host has none */
	CHECK(!image_has(img, "/usr/sbin/lvm"));
	CHECK(image_has(img, "/etc/crypttab"));
	CHECK(sp.keys.n == 0);
	CHECK(stack_plan_crypttab(&sp, root, &ct, &keys) == 0);
	CHECK_STR(ct.p, "cryptroot UUID=5d2c0e4b-8a7f-4e11-b3c2-d1e0f9a8b7c6 none luks\n");
	CHECK(keys.n == 0);
	strv_free(&keys);
	buf_free(&ct);
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);
}

static void test_lvm_on_md(void)
{
	char *root;
	struct stack_plan sp;
	struct image *img = image_new();

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	root = sysroot("stack-lvm-on-md", "cryptsetup,lvm,mdadm");
	CHECK(plan(root, &sp, img, NULL) == 0);
	CHECK(image_has(img, "/usr/sbin/lvm"));
	CHECK(image_has(img, "/etc/lvm/lvm.conf"));
	CHECK(image_has(img, "/usr/sbin/mdadm"));
	CHECK(!image_has(img, "/usr/sbin/cryptsetup"));
	CHECK(!image_has(img, "/etc/crypttab"));
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);
}

static void test_missing_tool_names_package(void)
{
	static const struct {
		const char *fixture, *tools, *msg;
	} cases[] = {
		{ "luks", "lvm,mdadm",
		  "the root is on LUKS but cryptsetup is not installed (apt install cryptsetup-bin)" },
		{ "luks", "cryptsetup",
		  "SRC/plugins/lvm.conf:15: program lvm not found in ROOT" },
		{ "md", "cryptsetup,lvm",
		  "the root is on md RAID but mdadm is not installed (apt install mdadm)" },
		{ "stack-lvm-on-md", "lvm",
		  "the root is on md RAID but mdadm is not installed (apt install mdadm)" },
	};

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *root = sysroot(cases[i].fixture, cases[i].tools);
		struct stack_plan sp;
		struct image *img = image_new();
		char *want = xstrdup(cases[i].msg), *at;
		if ((at = strstr(want, "SRC"))) {
			char *w = xasprintf("%.*s%s%s", (int)(at - want), want, getenv("UNIRAMFS_SRCDIR"), at + 3);
			free(want);
			want = w;
		}
		if ((at = strstr(want, "ROOT"))) {
			char *w = xasprintf("%.*s%s%s", (int)(at - want), want, root, at + 4);
			free(want);
			want = w;
		}
		CHECK(plan(root, &sp, img, NULL) < 0);
		CHECK_STR(err_msg(), want);
		free(want);
		stack_plan_free(&sp);
		image_free(img);
		rm_tree(root);
	}
}

/* A thin pool on the way (lvm2's "-tpool" layer): thin_check is needed. */
static void test_thin_pool_needs_thin_check(void)
{
	char *root;
	struct stack_plan sp;
	struct image *img;

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	root = sysroot("luks", "cryptsetup,lvm");
	put(root, "/sys/devices/virtual/block/dm-1/dm/uuid",
	    "LVM-Xq3vLr0TgC2hWm1nB7yK9pD4sF6jH8aZk5uE0cV2xN7bM3qR1tY6wP4oI9lS8dG2-tpool\n", 0644);
	img = image_new();
	CHECK(plan(root, &sp, img, NULL) < 0);
	{
		char *want = xasprintf("%s/plugins/lvm-thin.conf:7: program thin_check not found in %s",
				       getenv("UNIRAMFS_SRCDIR"), root);
		CHECK_STR(err_msg(), want);
		free(want);
	}
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);

	root = sysroot("luks", "cryptsetup,lvm,thin_check");
	put(root, "/sys/devices/virtual/block/dm-1/dm/uuid",
	    "LVM-Xq3vLr0TgC2hWm1nB7yK9pD4sF6jH8aZk5uE0cV2xN7bM3qR1tY6wP4oI9lS8dG2-tpool\n", 0644);
	img = image_new();
	CHECK(plan(root, &sp, img, NULL) == 0);
	CHECK(image_has(img, "/usr/sbin/thin_check"));
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);
}

/* The text of the image's file PATH ("etc/lvm/lvm.conf"), NULL if none. */
static char *image_text(struct image *img, const char *path)
{
	struct buf out;

	return image_file_of(img, path, &out) ? out.p : NULL;
}

/* lvm finds thin_check and cache_check by the paths its lvm.conf names
 * (global/thin_check_executable, cache_check_executable): the image's
 * names where lvm-thin.conf and lvm-cache.conf packed them, a checker in
 * /usr/local/sbin too; without them, lvm's own default stays. */
static void test_lvm_conf_names_checkers(void)
{
	char *root, *conf, *cmd;
	struct stack_plan sp = { 0 };
	struct image *img = image_new();

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	root = sysroot("virtio", "lvm,thin_check");
	cmd = xasprintf("mkdir -p %s/usr/local/sbin && cp " STATIC_ELF " %s/usr/local/sbin/cache_check",
			root, root);
	CHECK(system(cmd) == 0);
	free(cmd);
	CHECK(own_plugins(root, NULL, &sp, img) == 0);
	CHECK(stack_plan_add(&sp, img, root, NULL) == 0);
	CHECK(image_has(img, "/usr/sbin/thin_check"));
	CHECK(image_has(img, "/usr/local/sbin/cache_check"));
	CHECK(image_finalize(img) == 0);
	conf = image_text(img, "etc/lvm/lvm.conf");
	CHECK(conf && strstr(conf, "global {\n\tuse_lvmlockd = 0\n\tevent_activation = 0\n"
			     "\tthin_check_executable = \"/usr/sbin/thin_check\"\n"
			     "\tcache_check_executable = \"/usr/local/sbin/cache_check\"\n}\n"));
	free(conf);
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);

	img = image_new();
	root = sysroot("virtio", "lvm");
	CHECK(own_plugins(root, NULL, &sp, img) == 0);
	CHECK(stack_plan_add(&sp, img, root, NULL) == 0);
	CHECK(image_finalize(img) == 0);
	conf = image_text(img, "etc/lvm/lvm.conf");
	CHECK(conf && strstr(conf, "\tevent_activation = 0\n}\nbackup {\n"));
	CHECK(conf && !strstr(conf, "_check_executable"));
	free(conf);
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);
}

static void test_generic_packs_what_host_has(void)
{
	char *root;
	struct stack_plan sp = { 0 };
	struct image *img = image_new();

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	root = sysroot("virtio", "mdadm,thin_check");
	put(root, "/etc/mdadm/mdadm.conf", "ARRAY /dev/md0 UUID=x\n", 0644);
	put(root, "/etc/crypttab", "x /dev/vda2 none\n", 0644);
	CHECK(own_plugins(root, NULL, &sp, img) == 0);
	CHECK(stack_plan_add(&sp, img, root, NULL) == 0);
	CHECK(image_has(img, "/usr/sbin/mdadm"));
	CHECK(!image_has(img, "/usr/sbin/mdmon")); /* the host has none */
	CHECK(image_has(img, "/usr/sbin/thin_check"));
	CHECK(image_has(img, "/etc/mdadm/mdadm.conf"));
	CHECK(!image_has(img, "/usr/sbin/cryptsetup"));
	CHECK(!image_has(img, "/usr/sbin/lvm"));
	CHECK(!image_has(img, "/etc/lvm/lvm.conf"));
	CHECK(!image_has(img, "/etc/crypttab")); /* generic: no host crypttab */
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);
}

static void test_add_keys(void)
{
	char *root = sysroot("virtio", "");
	struct stack_plan sp = { 0 };
	struct image *img = image_new();
	struct strv keys = { 0 };
	char *a = path_join(root, "/a.key"), *b = path_join(root, "/b.key");
	char *spec = xasprintf("%s:/etc/keys/a.key,%s", a, b);

	put(root, "/a.key", "A", 0600);
	put(root, "/b.key", "B", 0600);
	strv_split(&keys, spec, ",");
	buf_free(&notices);
	log_set_sink(sink, NULL);
	CHECK(stack_plan_add(&sp, img, root, &keys) == 0);
	log_set_sink(NULL, NULL);
	CHECK(image_has(img, "/etc/keys/a.key"));
	CHECK(image_has(img, b));
	{
		char *want = xasprintf("<5>this image holds key material (/etc/keys/a.key, %s): keep it private\n", b);
		CHECK(notices.p && strstr(notices.p, want));
		free(want);
	}
	stack_plan_free(&sp);
	image_free(img);
	strv_free(&keys);

	/* a missing key and a relative destination fail, named */
	img = image_new();
	strv_push(&keys, "/nonexistent/k.key");
	CHECK(stack_plan_add(&sp, img, root, &keys) < 0);
	CHECK_STR(err_msg(), "key file /nonexistent/k.key: No such file or directory");
	strv_free(&keys);
	stack_plan_free(&sp);
	image_free(img);
	img = image_new();
	strv_push_owned(&keys, xasprintf("%s:etc/k", a));
	CHECK(stack_plan_add(&sp, img, root, &keys) < 0);
	CHECK(err_msg() && strstr(err_msg(), "--add-keys: bad entry"));
	strv_free(&keys);
	stack_plan_free(&sp);
	image_free(img);
	free(spec);
	free(a);
	free(b);
	rm_tree(root);
}

/* Network roots' tools (nettools.c): generic takes what the host has
 * and says what is missing; hostonly the root's one, or fails naming
 * the package. */
static void test_net_generic_tools_and_summary(void)
{
	static const struct {
		const char *tools, *summary;
		bool iscsi, nbd;
	} cases[] = {
		{ "iscsistart,nbd-client", "nfs, iscsi, nbd, nvmf", true, true },
		{ "nbd-client", "nfs, nbd, nvmf (no iscsistart: apt install open-iscsi)", false, true },
		{ "", "nfs, nvmf (no iscsistart: apt install open-iscsi; no nbd-client: apt install "
		      "nbd-client)", false, false },
	};

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *root = sysroot("virtio", cases[i].tools), *sum;
		struct net_plan np = { 0 };
		struct image *img = image_new();
		CHECK(net_plan_add(&np, img, root) == 0);
		CHECK(image_has(img, "/usr/sbin/iscsistart") == cases[i].iscsi);
		CHECK(image_has(img, "/usr/sbin/nbd-client") == cases[i].nbd);
		sum = net_plan_summary(&np);
		CHECK_STR(sum, cases[i].summary);
		free(sum);
		net_plan_free(&np);
		image_free(img);
		rm_tree(root);
	}
}

static int net_plan_for(const char *root, struct net_plan *np, struct image *img)
{
	struct hostonly h;
	int r = hostonly_detect(root, &h);

	CHECK(r == 0);
	memset(np, 0, sizeof(*np));
	if (r == 0) {
		net_plan_hostonly(np, &h);
		r = net_plan_add(np, img, root);
	}
	hostonly_free(&h);
	return r;
}

static void test_net_hostonly_tools(void)
{
	static const struct {
		const char *fixture, *tools, *msg, *summary;
		bool iscsi, nbd;
	} cases[] = {
		{ "iscsi", "iscsistart,nbd-client", NULL, "iscsi from 10.0.2.2 via eth0", true, false },
		{ "nbd", "iscsistart,nbd-client", NULL, "nbd from 192.168.1.10 via enp1s0", false, true },
		{ "nfs4", "iscsistart,nbd-client", NULL, "nfs from 192.168.1.10 via enp1s0", false, false },
		{ "virtio", "iscsistart,nbd-client", NULL, NULL, false, false },
		{ "iscsi", "nbd-client", "the root is on iSCSI but iscsistart is not installed (apt install open-iscsi)",
		  NULL, false, false },
		{ "nbd", "", "the root is on NBD but nbd-client is not installed (apt install nbd-client)", NULL, false,
		  false },
	};

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *root = sysroot(cases[i].fixture, cases[i].tools), *sum;
		struct net_plan np;
		struct image *img = image_new();
		int r = net_plan_for(root, &np, img);
		if (cases[i].msg) {
			CHECK(r < 0);
			CHECK_STR(err_msg(), cases[i].msg);
		} else {
			CHECK(r == 0);
			sum = net_plan_summary(&np);
			if (cases[i].summary)
				CHECK_STR(sum, cases[i].summary);
			else
				CHECK(sum == NULL);
			free(sum);
		}
		CHECK(image_has(img, "/usr/sbin/iscsistart") == cases[i].iscsi);
		CHECK(image_has(img, "/usr/sbin/nbd-client") == cases[i].nbd);
		net_plan_free(&np);
		image_free(img);
		rm_tree(root);
	}
}

/* sysfs values the init could not take are refused at build time. */
static void test_net_iscsi_bad_port(void)
{
	char *root = sysroot("iscsi", "iscsistart");
	struct hostonly h;

	put(root, "/sys/class/iscsi_connection/connection1:0/persistent_port", "70000\n", 0644);
	CHECK(hostonly_detect(root, &h) < 0);
	CHECK_STR(err_msg(), "iSCSI session1: persistent_port \"70000\" is not a port");
	rm_tree(root);
}

/* The baked line: ours first, unless the user's --cmdline says it. */
static void test_net_cmdline_merge(void)
{
	static const struct {
		const char *user, *want;
	} cases[] = {
		{ NULL, "netroot=nfs4:192.168.1.10:/srv/roots/host1 ifname=enp1s0:52:54:00:12:34:02 ip=enp1s0:dhcp" },
		{ "quiet -- single",
		  "netroot=nfs4:192.168.1.10:/srv/roots/host1 ifname=enp1s0:52:54:00:12:34:02 ip=enp1s0:dhcp quiet -- "
		  "single" },
		{ "ip=10.0.0.5::10.0.0.1:255.255.255.0::enp1s0:none",
		  "netroot=nfs4:192.168.1.10:/srv/roots/host1 ip=10.0.0.5::10.0.0.1:255.255.255.0::enp1s0:none" },
		{ "root=/dev/sda1", "ifname=enp1s0:52:54:00:12:34:02 ip=enp1s0:dhcp root=/dev/sda1" },
		{ "nfsroot=10.0.0.9:/x ifname=enp1s0:52:54:00:aa:bb:cc",
		  "ip=enp1s0:dhcp nfsroot=10.0.0.9:/x ifname=enp1s0:52:54:00:aa:bb:cc" },
	};
	char *root = hostonly_fixture("nfs4");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct net_plan np = { 0 };
		char *line;
		net_plan_hostonly(&np, &h);
		line = net_plan_cmdline(&np, cases[i].user);
		CHECK_STR(line, cases[i].want);
		free(line);
		net_plan_free(&np);
	}
	hostonly_free(&h);
	free(root);
}

struct src_of {
	const char *dst;
	char *content;
};

static int find_src(void *ctx, const char *dst, const char *src, mode_t mode, uint64_t size)
{
	struct src_of *so = ctx;
	size_t len;
	(void)mode, (void)size;
	if (strcmp(dst, so->dst) == 0 && read_file(src, &so->content, &len) < 0)
		so->content = xstrdup("(unreadable)");
	return 0;
}

/* What the image will hold at dst, read from its host source. */
static char *packed(struct image *img, const char *dst)
{
	struct src_of so = { dst, NULL };
	image_each_host_file(img, find_src, &so);
	return so.content;
}

/* crypttab's key file "/../NAME" and a detached header that is an
 * absolute link to a host file are resolved inside the sysroot, as the
 * booted system would see them: the sysroot's files are packed, never
 * the host's (issue 24, item 3). */
static void test_sysroot_paths_stay_inside(void)
{
	char *root, *secret, *name, *line, *link, *got;
	struct stack_plan sp;
	struct image *img = image_new();

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	root = sysroot("luks", "cryptsetup,lvm");
	/* beside the sysroot, on the host only */
	secret = xasprintf("%s.secret", root);
	put("/", secret, "host secret", 0600);
	name = strrchr(secret, '/') + 1;
	line = xasprintf("luks-3f1a7c2e UUID=3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718 /../%s luks,header=/etc/hdr/root.hdr\n",
			 name);
	put(root, "/etc/crypttab", line, 0644);
	free(line);
	line = xasprintf("/%s", name);
	put(root, line, "sysroot key", 0600);
	put(root, secret, "sysroot header", 0600);
	put(root, "/etc/hdr/.keep", "", 0644);
	link = path_join(root, "/etc/hdr/root.hdr");
	CHECK(symlink(secret, link) == 0);
	CHECK(plan(root, &sp, img, NULL) == 0);
	got = packed(img, line);
	CHECK_STR(got, "sysroot key");
	free(got);
	got = packed(img, "/etc/hdr/root.hdr");
	CHECK_STR(got, "sysroot header");
	free(got);
	stack_plan_free(&sp);
	image_free(img);
	unlink(secret);
	free(link);
	free(line);
	free(secret);
	rm_tree(root);
}

/* crypttab's detached headers are packed like its key files; a key on
 * another device (KEYFILE:KEYDEV) is read there at boot, not packed. */
static void test_crypttab_headers_and_keydevs(void)
{
	struct stack_plan sp = { 0 };
	struct buf ct = { 0 };
	struct strv keys = { 0 };
	char tmpl[] = "/tmp/uniramfs-ct-XXXXXX", *root = mkdtemp(tmpl);

	put(root, "/etc/crypttab", "a UUID=3f1a7c2e-9b8d-4e5f-a1b2-c3d4e5f60718 /keys/a.key:LABEL=stick "
				   "luks,header=/etc/hdr/a.hdr\n"
				   "b /dev/vdb none discard,header=/etc/hdr/b.hdr,tries=1\n"
				   "c /dev/vdc none header=/x:UUID=1\n"
				   "d /dev/vdd none header=/dev/vde\n", 0644);
	strv_push(&sp.crypt_names, "d");
	strv_push(&sp.crypt_names, "a");
	strv_push(&sp.crypt_names, "b");
	strv_push(&sp.crypt_names, "c");
	CHECK(stack_plan_crypttab(&sp, root, &ct, &keys) == 0);
	CHECK(keys.n == 2 && !strcmp(keys.v[0], "/etc/hdr/a.hdr") && !strcmp(keys.v[1], "/etc/hdr/b.hdr"));
	CHECK(ct.p && strstr(ct.p, "b /dev/vdb none discard,header=/etc/hdr/b.hdr,tries=1\n"));
	strv_free(&keys);
	strv_free(&sp.crypt_names);
	buf_free(&ct);
	{
		char *rm = xasprintf("rm -rf %s", root);
		CHECK(system(rm) == 0);
		free(rm);
	}
}

/* Hostonly: the header file the machine's own command line names
 * (rd.luks.header=U=/FILE) is packed; a /dev/ one, a FILE:DEVICE one and
 * the same file twice are not, nor one that is not there (a warning). */
static void test_cmdline_headers(void)
{
	struct strv h = { 0 };
	char tmpl[] = "/tmp/uniramfs-ch-XXXXXX", *root = mkdtemp(tmpl);

	CHECK(stack_plan_cmdline_headers(root, &h) == 0 && h.n == 0); /* no /proc/cmdline */
	put(root, "/proc/cmdline", "root=/dev/mapper/r rd.luks.name=cbd49694-81de-41bd-a850-"
				   "0d934aff8328=r rd.luks.header=cbd49694-81de-41bd-a850-0d934aff8328="
				   "/etc/luks/r.hdr rd.luks.header=UUID=4d4d4d4d-4444-4444-8444-444444444444="
				   "/etc/luks/r.hdr rd.luks.header=1=/dev/vda "
				   "rd.luks.header=2=/h.hdr:UUID=e2d8 rd.luks.header=3=/gone.hdr\n", 0644);
	put(root, "/etc/luks/r.hdr", "LUKS", 0600);
	CHECK(stack_plan_cmdline_headers(root, &h) == 0);
	CHECK(h.n == 1 && !strcmp(h.v[0], "/etc/luks/r.hdr"));
	strv_free(&h);
	{
		char *rm = xasprintf("rm -rf %s", root);
		CHECK(system(rm) == 0);
		free(rm);
	}
}

/* keyscript=: packed as a program (a script's interpreter comes too),
 * a bare name from Debian's directory; a missing one fails naming its
 * line. */
static void test_crypttab_keyscripts(void)
{
	char tmpl[] = "/tmp/uniramfs-ks-XXXXXX", *root = mkdtemp(tmpl);
	struct image *img = image_new();
	char *cmd, *want;

	if (access(STATIC_ELF, X_OK) < 0) {
		image_free(img);
		SKIP("no " STATIC_ELF " (busybox-static)");
	}
	put(root, "/usr/local/sbin/ks", "#!/bin/sh\nprintf '%s' pw\n", 0755);
	cmd = xasprintf("mkdir -p %s/bin %s/lib/cryptsetup/scripts && cp " STATIC_ELF " %s/bin/sh && "
			"cp " STATIC_ELF " %s/lib/cryptsetup/scripts/decrypt_x", root, root, root, root);
	CHECK(system(cmd) == 0);
	free(cmd);
	CHECK(stack_add_keyscripts(img, root, "a UUID=1 none luks,keyscript=/usr/local/sbin/ks\n"
					      "b /dev/vdb none keyscript=decrypt_x,tries=1\n"
					      "c /dev/vdc none luks\n") == 0);
	CHECK(image_has(img, "/usr/local/sbin/ks"));
	CHECK(image_has(img, "/bin/sh"));
	CHECK(image_has(img, "/lib/cryptsetup/scripts/decrypt_x"));
	image_free(img);

	img = image_new();
	CHECK(stack_add_keyscripts(img, root, "c /dev/vdc none luks,keyscript=gone\n") < 0);
	want = xasprintf("%s/etc/crypttab line 'c /dev/vdc none luks,keyscript=gone': keyscript "
			 "/lib/cryptsetup/scripts/gone is not there: nothing is written", root);
	CHECK_STR(err_msg(), want);
	free(want);
	CHECK(stack_add_keyscripts(img, root, "c /dev/vdc none keyscript=/bin\n") < 0);
	want = xasprintf("%s/etc/crypttab line 'c /dev/vdc none keyscript=/bin': keyscript /bin is "
			 "not an executable file: nothing is written", root);
	CHECK_STR(err_msg(), want);
	free(want);
	image_free(img);
	cmd = xasprintf("rm -rf %s", root);
	CHECK(system(cmd) == 0);
	free(cmd);
}

#define CLEVIS_TOKEN "{\"tokens\":{\"0\":{\"type\":\"clevis\",\"keyslots\":[\"1\"]}}}"

/* Stand-ins for what clevis luks unlock runs, in /usr/bin. */
static void clevis_tools(const char *root, bool all)
{
	static const char *const progs[] = { "clevis", "clevis-luks-common-functions",
					     "clevis-decrypt", "clevis-decrypt-tang", "jose",
					     "curl", "grep", "sed", "cat", "clevis-luks-unlock" };

	/* all: the last one too */
	for (size_t i = 0; i < ARRAY_SIZE(progs) - !all; i++) {
		char *cmd = xasprintf("mkdir -p %s/usr/bin && cp " STATIC_ELF " %s/usr/bin/%s", root,
				      root, progs[i]);
		CHECK(system(cmd) == 0);
		free(cmd);
	}
}

/* Pack clevis? Hostonly: a clevis token in the root's header; generic:
 * clevis = yes. A clevis token alone packs no cryptsetup plugin. */
static void test_clevis(void)
{
	struct stack_plan sp = { 0 };
	struct image *img;
	struct strv mods = { 0 };
	char *root, *cmd;

	sp.hostonly = true;
	sp.tokens = LUKS2_TOKEN_TPM2;
	CHECK(!stack_clevis_wanted(&sp));
	sp.tokens |= LUKS2_TOKEN_CLEVIS;
	CHECK(stack_clevis_wanted(&sp));
	sp.hostonly = false;
	CHECK(!stack_clevis_wanted(&sp)); /* generic: only when asked */
	sp.clevis = true;
	CHECK(stack_clevis_wanted(&sp));
	/* its tpm2 pin: generic, clevis = yes, or a hostonly binding with tpm2
	 * (sss's shares count; a header not understood too) */
	CHECK(stack_clevis_tpm2_wanted(&sp));
	sp.hostonly = true;
	CHECK(stack_clevis_tpm2_wanted(&sp));
	sp.clevis = false;
	sp.clevis_pins = CLEVIS_PIN_TANG;
	CHECK(!stack_clevis_tpm2_wanted(&sp));
	sp.clevis_pins = CLEVIS_PIN_SSS | CLEVIS_PIN_TANG | CLEVIS_PIN_TPM2;
	CHECK(stack_clevis_tpm2_wanted(&sp));
	sp.clevis_pins = CLEVIS_PIN_OTHER;
	CHECK(stack_clevis_tpm2_wanted(&sp));
	sp.clevis_pins = 0;
	sp.hostonly = false;
	sp.clevis = true;

	if (access(STATIC_ELF, X_OK) < 0)
		SKIP("no " STATIC_ELF " (busybox-static)");
	/* hostonly, a clevis token, clevis installed, a token plugin there */
	root = sysroot("luks", "cryptsetup,lvm");
	clevis_tools(root, true);
	cmd = xasprintf("mkdir -p %s" TOKEN_DIR " %s/sys/module/virtio_net "
			"%s/sys/class/net/eth0/device/driver && cp " STATIC_ELF " %s" TOKEN_DIR
			"/libcryptsetup-token-systemd-tpm2.so && ln -s %s/sys/module/virtio_net "
			"%s/sys/class/net/eth0/device/driver/module",
			root, root, root, root, root, root);
	CHECK(system(cmd) == 0);
	free(cmd);
	luks2_dev(root, "vda2", CLEVIS_TOKEN);
	img = image_new();
	CHECK(plan(root, &sp, img, NULL) == 0);
	CHECK(sp.tokens == LUKS2_TOKEN_CLEVIS);
	CHECK(image_has(img, "/usr/bin/clevis") && image_has(img, "/usr/bin/clevis-luks-unlock"));
	CHECK(image_has(img, "/usr/bin/curl") && image_has(img, "/usr/bin/jose"));
	CHECK(!image_has(img, "/usr/bin/clevis-decrypt-sss")); /* a pin the host lacks */
	CHECK(!image_has(img, TOKEN_DIR "/libcryptsetup-token-systemd-tpm2.so"));
	CHECK(!image_has(img, "/etc/uniramfs/luks-tokens"));
	stack_plan_modules(&sp, &mods);
	CHECK(strv_contains(&mods, "virtio_net"));
	strv_free(&mods);
	stack_plan_free(&sp);
	image_free(img);

	/* LUKS1: the binding in luksmeta's slots, its tpm2 pin read there */
	luks1_clevis_dev(root, "vda2", "eyJhbGciOiJkaXIiLCJjbGV2aXMiOnsicGluIjoidHBtMiJ9fQ.a.b.c.d");
	img = image_new();
	CHECK(plan(root, &sp, img, NULL) == 0);
	CHECK(sp.tokens == LUKS2_TOKEN_CLEVIS && sp.clevis_pins == CLEVIS_PIN_TPM2);
	CHECK(image_has(img, "/usr/bin/clevis"));
	stack_plan_free(&sp);
	image_free(img);
	luks2_dev(root, "vda2", CLEVIS_TOKEN);

	/* clevis-luks missing: a warning naming it, the build goes on */
	cmd = xasprintf("rm %s/usr/bin/clevis-luks-unlock", root);
	CHECK(system(cmd) == 0);
	free(cmd);
	buf_free(&notices);
	log_set_sink(sink, NULL);
	img = image_new();
	CHECK(plan(root, &sp, img, NULL) == 0);
	log_set_sink(NULL, NULL);
	{
		char *want = xasprintf("\n<4>the root has a clevis binding, but "
				       "clevis-luks-unlock is not installed (%s/plugins/clevis.conf:12 "
				       "needs it): the init will ask for the passphrase\n",
				       getenv("UNIRAMFS_SRCDIR"));
		CHECK(notices.p && strstr(notices.p, want));
		free(want);
	}
	CHECK(!image_has(img, "/usr/bin/clevis"));
	stack_plan_free(&sp);
	image_free(img);
	rm_tree(root);

	/* generic: only with clevis = yes; missing then is an error */
	root = sysroot("virtio", "cryptsetup");
	clevis_tools(root, false);
	memset(&sp, 0, sizeof(sp));
	img = image_new();
	CHECK(own_plugins(root, NULL, &sp, img) == 0 && stack_plan_add(&sp, img, root, NULL) == 0);
	CHECK(!image_has(img, "/usr/bin/clevis"));
	image_free(img);
	stack_plan_free(&sp);
	sp.clevis = true;
	img = image_new();
	CHECK(own_plugins(root, NULL, &sp, img) < 0);
	{
		char *want = xasprintf("clevis = yes, but clevis-luks-unlock is not installed "
				       "(%s/plugins/clevis.conf:12 needs it)", getenv("UNIRAMFS_SRCDIR"));
		CHECK_STR(err_msg(), want);
		free(want);
	}
	image_free(img);
	stack_plan_free(&sp);
	clevis_tools(root, true);
	sp.clevis = true;
	img = image_new();
	CHECK(own_plugins(root, NULL, &sp, img) == 0 && stack_plan_add(&sp, img, root, NULL) == 0);
	CHECK(image_has(img, "/usr/bin/clevis") && image_has(img, "/usr/bin/clevis-decrypt-tang"));
	CHECK(image_has(img, "/.curlrc")); /* curl's timeouts: the boot waits for it */
	image_free(img);
	stack_plan_free(&sp);
	rm_tree(root);
}

int main(void)
{
	log_init("uniramfs", LOG_WARNING);
	RUN(test_lvm_on_luks);
	RUN(test_luks2_tokens);
	RUN(test_clevis);
	RUN(test_md_raid1);
	RUN(test_luks_on_md);
	RUN(test_lvm_on_md);
	RUN(test_missing_tool_names_package);
	RUN(test_thin_pool_needs_thin_check);
	RUN(test_lvm_conf_names_checkers);
	RUN(test_generic_packs_what_host_has);
	RUN(test_add_keys);
	RUN(test_crypttab_headers_and_keydevs);
	RUN(test_cmdline_headers);
	RUN(test_luks_ciphers);
	RUN(test_crypttab_keyscripts);
	RUN(test_sysroot_paths_stay_inside);
	RUN(test_net_generic_tools_and_summary);
	RUN(test_net_hostonly_tools);
	RUN(test_net_cmdline_merge);
	RUN(test_net_iscsi_bad_port);
	buf_free(&notices);
	strv_free(&key_globs);
	return test_done();
}
