// SPDX-License-Identifier: GPL-2.0-or-later
/* The generator's side of issue 6: --add-hook (stages, errors), the
 * fsck tools packed, and the resume= a hostonly image bakes: from
 * initramfs-tools' and dracut's config, else the resume device's UUID. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "early_gen.h"
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

	/* a sysroot without checkers: nothing, no error */
	img = image_new();
	CHECK(early_add_fsck(img, tmpdir, NULL) == 0);
	CHECK(image_count(img) == 0);
	image_free(img);
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
	char *sysroot = path_join(tmpdir, "sysroot"), *cmd, *out;
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
	RUN(test_resume_spec);
	RUN(test_hostonly_bakes_resume);
	cmd = xasprintf("rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", tmpdir);
	free(cmd);
	free(tmpdir);
	return test_done();
}
