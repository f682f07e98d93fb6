// SPDX-License-Identifier: GPL-2.0-or-later
/* The rescue shell in the image (src/gen/features/rescue.c): busybox by
 * default, and /bin/sh for it; rescue_shell = no leaves it out; a host
 * without busybox says so, and rescue_shell = yes makes that an error. */
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "gen/read/imagefile.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char *uniramfs, *init_bin, *kver, *tmpdir;

struct found {
	bool busybox, sh_link, password;
	unsigned password_mode;
	char password_text[256];
};

static int collect(unsigned seg, enum compression c, const struct cpio_entry *e, const uint8_t *data,
		   void *u)
{
	struct found *f = u;

	(void)seg, (void)c;
	if ((!strcmp(e->name, "usr/bin/busybox") || !strcmp(e->name, "bin/busybox")) &&
	    S_ISREG(e->mode) && (e->mode & 0111))
		f->busybox = true;
	if (!strcmp(e->name, "bin/sh") && S_ISLNK(e->mode) && e->size >= 8 &&
	    !memcmp(data + e->size - 8, "/busybox", 8))
		f->sh_link = true;
	if (!strcmp(e->name, "etc/uniramfs/rescue-password") && S_ISREG(e->mode)) {
		f->password = true;
		f->password_mode = e->mode & 07777;
		snprintf(f->password_text, sizeof(f->password_text), "%.*s", (int)e->size,
			 (const char *)data);
	}
	return 0;
}

static int build(const char *name, const char *extra, struct found *f, char **out)
{
	char *img = path_join(tmpdir, name);
	char *c = xasprintf("%s build --config /dev/null -k %s --init %s --microcode none "
			    "--squashfs no -o %s %s 2>&1",
			    uniramfs, kver, init_bin, img, extra);
	int st = run_capture(c, out);

	memset(f, 0, sizeof(*f));
	if (st == 0)
		CHECK(image_foreach(img, collect, f) == 0);
	unlink(img);
	free(img), free(c);
	return st;
}

static void test_busybox_by_default(void)
{
	struct found f;

	if (access("/usr/bin/busybox", X_OK) && access("/bin/busybox", X_OK))
		SKIP("no busybox on this host (apt install busybox-static)");
	CHECK(build("default.img", "", &f, NULL) == 0);
	CHECK(f.busybox && f.sh_link);
	CHECK(build("hostonly.img", "--hostonly", &f, NULL) == 0);
	CHECK(f.busybox && f.sh_link);
	/* the owner's opt-out */
	CHECK(build("none.img", "--rescue-shell no", &f, NULL) == 0);
	CHECK(!f.busybox && !f.sh_link);
	/* given twice (--add-binaries too): once */
	CHECK(build("twice.img", "--add-binaries busybox", &f, NULL) == 0);
	CHECK(f.busybox && f.sh_link);
}

static void test_host_without_busybox(void)
{
	char *fx = hostonly_fixture("virtio"), *out = NULL;
	char *auto_ = xasprintf("--sysroot %s --kmoddir /lib/modules/%s", fx, kver);
	char *yes = xasprintf("%s --rescue-shell yes", auto_);
	struct found f;

	CHECK(build("nobb.img", auto_, &f, &out) == 0);
	CHECK(!f.busybox && !f.sh_link);
	CHECK(strstr(out, "uniramfs: no busybox on the host (apt install busybox-static): this image "
			  "has no rescue shell\n") != NULL);
	free(out);
	CHECK(build("nobb-yes.img", yes, &f, &out) != 0);
	CHECK(strstr(out, "uniramfs: error: rescue_shell = yes, but busybox is not installed "
			  "(apt install busybox-static)\n") != NULL);
	free(out), free(fx), free(auto_), free(yes);
}

int main(void)
{
	char tmpl[] = "/tmp/uniramfs-test-rescue-XXXXXX";

	if (!find_binaries(&uniramfs, &init_bin, &kver)) {
		printf("1..0 # SKIP no build dir or no installed kernel\n");
		return 0;
	}
	tmpdir = xstrdup(mkdtemp(tmpl));
	RUN(test_busybox_by_default);
	RUN(test_host_without_busybox);
	char *rm = xasprintf("rm -rf %s", tmpdir);
	if (system(rm) != 0)
		printf("# could not remove %s\n", tmpdir);
	free(rm), free(tmpdir), free(uniramfs), free(init_bin), free(kver);
	return test_done();
}
