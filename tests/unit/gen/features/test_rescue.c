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

#define HASH "$6$uniramfs$EPRaygVlYkdjCIaKzlnqUHaVJGlVHoP9LYPUdG1GuZ/U/hd.TM8rf9RfjwJ.SHmWO.UFss4DOEEr1M0jqZuI90"

/* The hash into the image, 0600; a plain text or a locked account is
 * refused; the account's hash is read inside the sysroot. */
static void test_password(void)
{
	char *fx = hostonly_fixture("virtio"), *root = path_join(tmpdir, "pwroot"), *out = NULL;
	char *cp = xasprintf("cp -a %s %s", fx, root);
	char *o = xasprintf("--rescue-password-hash '%s'", HASH);
	char *acct = xasprintf("--sysroot %s --kmoddir /lib/modules/%s --rescue-password-account "
			       "admin", root, kver);
	char *locked = xasprintf("--sysroot %s --kmoddir /lib/modules/%s --rescue-password-account "
				 "locked", root, kver);
	char *nobody = xasprintf("--sysroot %s --kmoddir /lib/modules/%s --rescue-password-account "
				 "nobody", root, kver);
	char *none = xasprintf("%s --rescue-shell no", o);
	struct found f;

	CHECK(build("pw.img", o, &f, &out) == 0);
	CHECK(f.password && f.password_mode == 0600);
	CHECK_STR(f.password_text, HASH);
	CHECK(strstr(out, "uniramfs: the rescue shell asks for a password; its hash is in the image, "
			  "which anyone who can read it (a /boot that is not encrypted) can try to "
			  "crack\n") != NULL);
	free(out);
	CHECK(build("pw-none.img", none, &f, NULL) == 0);
	CHECK(!f.password);
	CHECK(build("pw-plain.img", "--rescue-password-hash 'hunter 2'", &f, &out) != 0);
	CHECK(strstr(out, "uniramfs: error: rescue_password_hash: not a crypt(3) hash (make one "
			  "with mkpasswd, from the whois package)\n") != NULL);
	free(out);

	CHECK(system(cp) == 0);
	write_under(root, "etc/shadow", "root:!:19000:0:99999:7:::\nlocked:!" HASH ":1::::::\n"
					"admin:" HASH ":19000:0:99999:7:::\n");
	CHECK(build("pw-acct.img", acct, &f, NULL) == 0);
	CHECK(f.password && f.password_mode == 0600);
	CHECK_STR(f.password_text, HASH);
	CHECK(build("pw-locked.img", locked, &f, &out) != 0);
	CHECK(strstr(out, "uniramfs: error: rescue_password_account = locked: the account has no "
			  "usable password (locked or empty)\n") != NULL);
	free(out);
	CHECK(build("pw-nobody.img", nobody, &f, &out) != 0);
	CHECK(strstr(out, "uniramfs: error: rescue_password_account = nobody: no such account in ") != NULL);
	free(out);
	/* /etc/shadow a link out of the sysroot: read inside it, not the host's */
	char *ln = xasprintf("rm %s/etc/shadow && ln -s /etc/shadow %s/etc/shadow", root, root);
	CHECK(system(ln) == 0);
	CHECK(build("pw-link.img", acct, &f, &out) != 0);
	CHECK(strstr(out, "uniramfs: error: ") != NULL);
	free(out);
	free(ln), free(fx), free(root), free(cp), free(o), free(acct), free(locked), free(nobody),
		free(none);
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
	RUN(test_password);
	char *rm = xasprintf("rm -rf %s", tmpdir);
	if (system(rm) != 0)
		printf("# could not remove %s\n", tmpdir);
	free(rm), free(tmpdir), free(uniramfs), free(init_bin), free(kver);
	return test_done();
}
