// SPDX-License-Identifier: GPL-2.0-or-later
/* The generator's side of issue 6: --add-hook (stages, errors), the
 * fsck tools packed, and the resume= a hostonly image bakes: from
 * initramfs-tools' and dracut's config, else the resume device's UUID. */
#include <linux/elf.h> /* not <elf.h>: src/gen/elf.h shadows it */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/features/early_gen.h"
#include "gen/features/fsck_static.h"
#include "err.h"
#include "test.h"

#define SWAPUUID "5f0c1a4e-1b2d-4c3e-9f10-0000000005a1"

static char *tmpdir;

static void put(const char *rel, const char *text)
{
	char *p = path_join(tmpdir, rel), *dir = xstrdup(p);
	FILE *f;

	*strrchr(dir, '/') = '\0';
	mkdir_p(dir, 0755);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	free(dir);
	free(p);
}

static void test_add_hook(void)
{
	struct image *img = image_new();
	char *hook = path_join(tmpdir, "hooks/50-note"), *spec;

	put("hooks/50-note", "#!/bin/sh\necho note\n");
	spec = xasprintf("pre-pivot:%s", hook);
	CHECK(early_add_hook(img, spec) == 0);
	CHECK(image_has(img, HOOKS_DIR "/pre-pivot/50-note"));
	free(spec);

	CHECK(early_add_hook(img, "pre-boot:/etc/hostname") < 0);
	CHECK_STR(err_msg(), "--add-hook pre-boot:/etc/hostname: unknown stage 'pre-boot' "
		  "(use cmdline, pre-udev, pre-mount, mount or pre-pivot)");
	CHECK(early_add_hook(img, "/etc/hostname") < 0);
	CHECK_STR(err_msg(), "--add-hook /etc/hostname: expected STAGE:FILE");
	CHECK(early_add_hook(img, "mount:") < 0);
	CHECK_STR(err_msg(), "--add-hook mount:: expected STAGE:FILE");
	CHECK(early_add_hook(img, "mount:/nonexistent/hook") < 0);
	CHECK_STR(err_msg(), "--add-hook mount:/nonexistent/hook: /nonexistent/hook: "
		  "No such file or directory");
	CHECK(early_add_hook(img, "cmdline:/etc") < 0);
	CHECK_STR(err_msg(), "--add-hook cmdline:/etc: /etc is not a file");
	image_free(img);
	free(hook);
}

static void test_fsck_tools(void)
{
	struct image *img;
	struct strv types = { 0 };

	if (access("/usr/sbin/e2fsck", X_OK) < 0 && access("/sbin/e2fsck", X_OK) < 0)
		SKIP("no e2fsck on this host");
	img = image_new();
	strv_push(&types, "ext4");
	strv_push(&types, "xfs");
	CHECK(early_add_fsck(img, "/", &types) == 0);
	CHECK(image_has(img, "/usr/sbin/e2fsck") || image_has(img, "/sbin/e2fsck"));
	CHECK(image_has(img, "/usr/sbin/fsck.ext4") || image_has(img, "/sbin/fsck.ext4"));
	CHECK(image_has(img, "/usr/sbin/fsck.ext2") || image_has(img, "/sbin/fsck.ext2"));
	CHECK(!image_has(img, "/usr/sbin/fsck.vfat") && !image_has(img, "/sbin/fsck.vfat"));
	image_free(img);
	strv_free(&types);

	/* xfs and btrfs need none */
	img = image_new();
	strv_push(&types, "xfs");
	strv_push(&types, "btrfs");
	CHECK(early_add_fsck(img, "/", &types) == 0);
	CHECK(image_count(img) == 0);
	image_free(img);
	strv_free(&types);

	/* f2fs: fsck.f2fs, where the host has f2fs-tools */
	if (access("/usr/sbin/fsck.f2fs", X_OK) == 0 || access("/sbin/fsck.f2fs", X_OK) == 0) {
		img = image_new();
		strv_push(&types, "f2fs");
		CHECK(early_add_fsck(img, "/", &types) == 0);
		CHECK(image_has(img, "/usr/sbin/fsck.f2fs") || image_has(img, "/sbin/fsck.f2fs"));
		CHECK(!image_has(img, "/usr/sbin/e2fsck") && !image_has(img, "/sbin/e2fsck"));
		image_free(img);
		strv_free(&types);
	}

	/* a sysroot without checkers: nothing, no error */
	img = image_new();
	CHECK(early_add_fsck(img, tmpdir, NULL) == 0);
	CHECK(image_count(img) == 0);
	image_free(img);
}

/* A file at rel below root: an ELF header (type, no program header)
 * when type is not 0, then the strings, each ending in a NUL. */
static void put_strings(const char *root, const char *rel, unsigned type, const char *const *strs)
{
	unsigned char ehdr[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	char *p = path_join(root, rel), *dir = xstrdup(p);
	FILE *f;

	*strrchr(dir, '/') = '\0';
	mkdir_p(dir, 0755);
	f = fopen(p, "w");
	if (type) {
		ehdr[16] = (unsigned char)type; /* e_type */
		ehdr[18] = 62;                  /* e_machine: x86-64 */
		ehdr[20] = 1;                   /* e_version */
		ehdr[52] = 64;                  /* e_ehsize */
		ehdr[54] = 56;                  /* e_phentsize */
		fwrite(ehdr, sizeof(ehdr), 1, f);
	}
	for (; *strs; strs++)
		fwrite(*strs, strlen(*strs) + 1, 1, f);
	fclose(f);
	chmod(p, 0755);
	free(dir);
	free(p);
}

/* Debian's e2fsck.static goes in as e2fsck only when it is a static
 * executable of the same e2fsprogs release (its date in both). */
static void test_fsck_static(void)
{
	static const char *const dyn[] = { "e2fsck %s (%s)", "1.47.0", "5-Feb-2023", NULL };
	static const char *const same[] = { "04-Aug-2022", "5-Feb-2023", NULL };
	static const char *const older[] = { "04-Aug-2022", "7-Feb-2021", NULL };
	static const char *const inside[] = { "built 5-Feb-2023", NULL };
	char *root = path_join(tmpdir, "static-root"), *got;
	struct strv types = { 0 };
	struct image *img;

	put_strings(root, "usr/sbin/e2fsck", 0, dyn);
	put_strings(root, "usr/sbin/e2fsck.static", ET_EXEC, same);
	got = fsck_static_for(root, "/usr/sbin/e2fsck", "/usr/sbin/e2fsck.static");
	CHECK_STR(got, "/usr/sbin/e2fsck.static");
	free(got);

	/* packed under e2fsck's name, with its fsck.ext* links, and no
	 * library resolved for the dynamic one (which is no ELF here) */
	img = image_new();
	strv_push(&types, "ext4");
	CHECK(early_add_fsck(img, root, &types) == 0);
	CHECK(image_has(img, "/usr/sbin/e2fsck") && image_has(img, "/usr/sbin/fsck.ext4"));
	CHECK(image_count(img) == 4);
	image_free(img);
	strv_free(&types);

	put_strings(root, "usr/sbin/e2fsck.static", ET_EXEC, older);
	CHECK(fsck_static_for(root, "/usr/sbin/e2fsck", "/usr/sbin/e2fsck.static") == NULL);
	put_strings(root, "usr/sbin/e2fsck.static", ET_EXEC, inside);
	CHECK(fsck_static_for(root, "/usr/sbin/e2fsck", "/usr/sbin/e2fsck.static") == NULL);
	put_strings(root, "usr/sbin/e2fsck.static", ET_REL, same);
	CHECK(fsck_static_for(root, "/usr/sbin/e2fsck", "/usr/sbin/e2fsck.static") == NULL);
	put_strings(root, "usr/sbin/e2fsck.static", 0, same);
	CHECK(fsck_static_for(root, "/usr/sbin/e2fsck", "/usr/sbin/e2fsck.static") == NULL);
	/* a dynamic checker with no release date: nothing to compare */
	put_strings(root, "usr/sbin/e2fsck", 0, inside);
	put_strings(root, "usr/sbin/e2fsck.static", ET_EXEC, same);
	CHECK(fsck_static_for(root, "/usr/sbin/e2fsck", "/usr/sbin/e2fsck.static") == NULL);
	free(root);
}

static void test_resume_spec(void)
{
	char *s, *cmd, *dev;

	/* the device: a real swap header at SYSROOT/dev/vdb */
	put("sys/dev/block/254:16/uevent", "MAJOR=254\nMINOR=16\nDEVNAME=vdb\nDEVTYPE=disk\n");
	dev = path_join(tmpdir, "dev/vdb");
	put("dev/vdb", "");
	cmd = xasprintf("truncate -s 1M %s && mkswap -U " SWAPUUID " %s >/dev/null 2>&1", dev, dev);
	if (system(cmd) != 0) {
		free(cmd);
		free(dev);
		SKIP("mkswap not available");
	}
	free(cmd);
	free(dev);
	s = early_resume_spec(tmpdir, "254:16");
	CHECK_STR(s, "UUID=" SWAPUUID);
	free(s);
	CHECK(early_resume_spec(tmpdir, NULL) == NULL);
	CHECK(early_device_uuid(tmpdir, "254:99") == NULL);
	CHECK(strstr(err_msg(), "no block device 254:99 in ") != NULL);

	/* dracut's kernel_cmdline wins over the device */
	put("etc/dracut.conf.d/10-resume.conf", "# hibernation\nkernel_cmdline+=\" quiet resume=LABEL=swap \"\n");
	s = early_resume_spec(tmpdir, "254:16");
	CHECK_STR(s, "LABEL=swap");
	free(s);
	/* initramfs-tools' RESUME= wins over both; "auto" detects; "none" means none */
	put("etc/initramfs-tools/conf.d/resume", "RESUME=\"/dev/mapper/vg-swap\"\n");
	s = early_resume_spec(tmpdir, "254:16");
	CHECK_STR(s, "/dev/mapper/vg-swap");
	free(s);
	put("etc/initramfs-tools/conf.d/resume", "RESUME=auto\n");
	s = early_resume_spec(tmpdir, "254:16");
	CHECK_STR(s, "LABEL=swap");
	free(s);
	put("etc/initramfs-tools/conf.d/resume", "RESUME=none\n");
	CHECK(early_resume_spec(tmpdir, "254:16") == NULL);
	/* the kernel's form and booster's names are baked as written */
	put("etc/initramfs-tools/conf.d/resume", "RESUME=PARTUUID=" SWAPUUID "/PARTNROFF=1\n");
	s = early_resume_spec(tmpdir, "254:16");
	CHECK_STR(s, "PARTUUID=" SWAPUUID "/PARTNROFF=1");
	free(s);
	put("etc/initramfs-tools/conf.d/resume", "RESUME=WWID=virtio-swap\n");
	s = early_resume_spec(tmpdir, "254:16");
	CHECK_STR(s, "WWID=virtio-swap");
	free(s);
}

static char *sh_out(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	struct buf b = { 0 };
	char chunk[4096];
	size_t n;

	if (!p)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_append(&b, chunk, n);
	if (pclose(p) != 0) {
		buf_free(&b);
		return NULL;
	}
	buf_append(&b, "", 1);
	return b.p;
}

/* The whole path: a hostonly build of the virtio fixture whose
 * initramfs-tools config names the resume device bakes it in front of the
 * user's --cmdline (which may end in "-- init args"); a --cmdline that has
 * resume= already is kept as it is. */
static void test_hostonly_bakes_resume(void)
{
	const char *src = getenv("UNIRAMFS_SRCDIR"), *bd = getenv("UNIRAMFS_BUILDDIR");
	char *sysroot, *cmd, *out;
	char kver[256] = "";
	FILE *k = popen("ls /lib/modules | head -1", "r");

	if (k) {
		if (!fgets(kver, sizeof(kver), k))
			kver[0] = '\0';
		pclose(k);
		kver[strcspn(kver, "\n")] = '\0';
	}
	if (!src || !bd || !*kver)
		SKIP("no source/build dir or no installed kernel");
	sysroot = path_join(tmpdir, "sysroot");
	cmd = xasprintf("cp -r %s/tests/unit/fixtures/hostonly/virtio %s && mkdir -p "
			"%s/etc/initramfs-tools/conf.d && echo 'RESUME=UUID=" SWAPUUID "' > "
			"%s/etc/initramfs-tools/conf.d/resume", src, sysroot, sysroot, sysroot);
	CHECK(system(cmd) == 0);
	free(cmd);
	cmd = xasprintf("%s/uniramfs build --config /dev/null -k %s -o %s/h.img --hostonly "
			"--sysroot %s --kmoddir /lib/modules/%s --microcode none --compress none "
			"--cmdline 'quiet -- single' >/dev/null 2>&1 && %s/uniramfs extract %s/h.img "
			"%s/x >/dev/null && cat %s/x/etc/uniramfs/cmdline",
			bd, kver, tmpdir, sysroot, kver, bd, tmpdir, tmpdir, tmpdir);
	out = sh_out(cmd);
	CHECK_STR(out, "resume=UUID=" SWAPUUID " quiet -- single\n");
	free(out);
	free(cmd);
	cmd = xasprintf("rm -rf %s/x && %s/uniramfs build --config /dev/null -k %s -o %s/h.img "
			"--hostonly --sysroot %s --kmoddir /lib/modules/%s --microcode none "
			"--compress none --cmdline 'resume=/dev/sdb2' >/dev/null 2>&1 && "
			"%s/uniramfs extract %s/h.img %s/x >/dev/null && cat %s/x/etc/uniramfs/cmdline",
			tmpdir, bd, kver, tmpdir, sysroot, kver, bd, tmpdir, tmpdir, tmpdir);
	out = sh_out(cmd);
	CHECK_STR(out, "resume=/dev/sdb2\n");
	free(out);
	free(cmd);
	free(sysroot);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-test-early-gen-XXXXXX";
	char *cmd;

	tmpdir = xstrdup(mkdtemp(tmpl));
	RUN(test_add_hook);
	RUN(test_fsck_tools);
	RUN(test_fsck_static);
	RUN(test_resume_spec);
	RUN(test_hostonly_bakes_resume);
	cmd = xasprintf("rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", tmpdir);
	free(cmd);
	free(tmpdir);
	return test_done();
}
