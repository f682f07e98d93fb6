// SPDX-License-Identifier: GPL-2.0-or-later
/* The generator's SSH part: authorized_keys checked and rewritten (the
 * exact messages of each refusal), which file is used, host keys made
 * once and never again, and links refused wherever it writes or reads. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/hostonly/hostonly.h"
#include "gen/image/image.h"
#include "log.h"
#include "run_helpers.h"
#include "gen/features/ssh.h"
#include "test.h"

#define KEY "AAAAC3NzaC1lZDI1NTE5AAAAIDV575Ac08x4euhm2XvuI+WctQWtZSoBNSOJWXKZE3d5"
#define OURS "no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command=\"/bin/uniramfs-askpass\""

/* ssh_authorized_keys on text: its output, or NULL with err set. */
static char *keys(const char *text, size_t *n)
{
	struct buf out = { 0 };
	size_t k = 0;

	if (ssh_authorized_keys("ak", text, strlen(text), &out, &k) < 0) {
		buf_free(&out);
		return NULL;
	}
	if (n)
		*n = k;
	buf_append(&out, "", 1);
	return out.p;
}

static void refused(const char *text, const char *msg)
{
	char *got = keys(text, NULL);
	CHECK(got == NULL);
	CHECK_STR(err_msg(), msg);
	free(got);
}

static void test_plain_key_gets_our_options(void)
{
	size_t n = 0;
	char *got = keys("# the laptop\n\nssh-ed25519 " KEY " me@laptop\n", &n);

	CHECK_STR(got, OURS " ssh-ed25519 " KEY " me@laptop\n");
	CHECK(n == 1);
	free(got);
}

static void test_dropbear_initramfs_line_is_taken(void)
{
	/* cryptroot-unlock's usual line: its command gives way to ours */
	char *got = keys("no-port-forwarding,no-agent-forwarding,no-X11-forwarding,"
			 "command=\"/bin/cryptroot-unlock\" ssh-ed25519 " KEY "\r\n", NULL);

	CHECK_STR(got, OURS " ssh-ed25519 " KEY "\n");
	free(got);
	got = keys("no-pty,restrict ssh-ed25519 " KEY "\n", NULL);
	CHECK_STR(got, "no-port-forwarding,no-agent-forwarding,no-X11-forwarding,no-pty,"
		       "command=\"/bin/uniramfs-askpass\" ssh-ed25519 " KEY "\n");
	free(got);
}

static void test_options_that_allow_more_are_refused(void)
{
	refused("permitopen=\"10.0.0.1:22\" ssh-ed25519 " KEY "\n",
		"ak:1: option \"permitopen=\"10.0.0.1:22\"\" refused: a login may only be restricted "
		"(no-port-forwarding, no-agent-forwarding, no-X11-forwarding, no-pty, no-user-rc, "
		"restrict) or given a command= (uniramfs puts its own)");
	refused("ssh-ed25519 " KEY "\nno-pty,environment=\"LD_PRELOAD=/x\" ssh-ed25519 " KEY "\n",
		"ak:2: option \"environment=\"LD_PRELOAD=/x\"\" refused: a login may only be restricted "
		"(no-port-forwarding, no-agent-forwarding, no-X11-forwarding, no-pty, no-user-rc, "
		"restrict) or given a command= (uniramfs puts its own)");
	/* dropbear knows no from=: kept, it would not restrict anything */
	refused("from=\"10.0.0.0/8\" ssh-ed25519 " KEY "\n",
		"ak:1: option \"from=\"10.0.0.0/8\"\" refused: a login may only be restricted "
		"(no-port-forwarding, no-agent-forwarding, no-X11-forwarding, no-pty, no-user-rc, "
		"restrict) or given a command= (uniramfs puts its own)");
	refused("command=\"x ssh-ed25519 " KEY "\n", "ak:1: a double quote is left open");
}

static void test_bad_keys_are_named(void)
{
	refused("ssh-dss AAAAB3NzaC1kc3MAAACBAP\n",
		"ak:1: \"ssh-dss\" is not a key type dropbear takes (ssh-ed25519, ssh-rsa, "
		"ecdsa-sha2-nistp256/384/521, sk-ssh-ed25519@openssh.com, "
		"sk-ecdsa-sha2-nistp256@openssh.com)");
	refused("no-pty ssh-foo AAAA\n",
		"ak:1: \"ssh-foo\" is not a key type dropbear takes (ssh-ed25519, ssh-rsa, "
		"ecdsa-sha2-nistp256/384/521, sk-ssh-ed25519@openssh.com, "
		"sk-ecdsa-sha2-nistp256@openssh.com)");
	refused("ssh-ed25519\n", "ak:1: no key after \"ssh-ed25519\"");
	refused("ssh-ed25519 not*base64 x\n", "ak:1: the key data is not the base64 of a ssh-ed25519 key");
	/* an ed25519 blob claimed to be RSA */
	refused("ssh-rsa " KEY "\n", "ak:1: the key data is not the base64 of a ssh-rsa key");
	refused("ssh-ed25519 " KEY " a\033[2Jb\n", "ak:1: control character \\033 in the line");
}

static void test_long_line_is_refused(void)
{
	char *text = malloc(9000);

	memset(text, 'A', 8999);
	text[8999] = '\0';
	refused(text, "ak:1: line longer than 8192 bytes");
	free(text);
}

/* A sysroot in a temporary directory; the caller removes it. */
static char *sysroot(void)
{
	char *d = strdup("/tmp/uniramfs-ssh-XXXXXX");
	CHECK(mkdtemp(d) != NULL);
	return d;
}

static void rm_rf(const char *d)
{
	char *cmd = xasprintf("rm -rf '%s'", d);
	CHECK(run_capture(cmd, NULL) == 0);
	free(cmd);
}

static bool have_dropbearkey(void)
{
	return run_capture("command -v dropbearkey >/dev/null", NULL) == 0;
}

static void test_hostkeys_made_once(void)
{
	char *root, *path;
	struct image *img;
	struct stat a, b;

	if (!have_dropbearkey())
		SKIP("no dropbearkey (apt install dropbear-bin)");
	root = sysroot();
	img = image_new();
	CHECK(ssh_hostkeys_add(img, root) == 0);
	CHECK(image_has(img, "/etc/dropbear/dropbear_ed25519_host_key"));
	CHECK(image_has(img, "/etc/dropbear/dropbear_ecdsa_host_key"));
	image_free(img);
	path = xasprintf("%s/etc/uniramfs/dropbear/dropbear_ed25519_host_key", root);
	CHECK(stat(path, &a) == 0);
	CHECK((a.st_mode & 07777) == 0600);
	img = image_new();
	CHECK(ssh_hostkeys_add(img, root) == 0); /* the same file, untouched */
	image_free(img);
	CHECK(stat(path, &b) == 0);
	CHECK(a.st_ino == b.st_ino && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
	      a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
	free(path);
	path = xasprintf("%s/etc/uniramfs/dropbear", root);
	CHECK(stat(path, &a) == 0 && (a.st_mode & 07777) == 0700);
	free(path);
	rm_rf(root);
	free(root);
}

static void test_hostkey_dir_link_refused(void)
{
	char *root = sysroot(), *elsewhere = sysroot(), *link, *want;
	struct image *img = image_new();

	write_under(root, "etc/uniramfs/.keep", "");
	link = xasprintf("%s/etc/uniramfs/dropbear", root);
	CHECK(symlink(elsewhere, link) == 0);
	CHECK(ssh_hostkeys_add(img, root) < 0);
	want = xasprintf("%s/etc/uniramfs/dropbear is a symbolic link: refused (the host keys are "
			 "written there as root)", root);
	CHECK_STR(err_msg(), want);
	free(want);
	/* nothing written where it points */
	want = xasprintf("rmdir '%s'", elsewhere);
	CHECK(run_capture(want, NULL) == 0);
	free(want);
	image_free(img);
	free(link);
	rm_rf(root);
	free(root);
	free(elsewhere);
}

static void test_hostkey_link_and_mode_refused(void)
{
	char *root = sysroot(), *k, *want;
	struct image *img = image_new();

	write_under(root, "etc/uniramfs/dropbear/other", "secret");
	k = xasprintf("%s/etc/uniramfs/dropbear/dropbear_ed25519_host_key", root);
	CHECK(symlink("other", k) == 0);
	CHECK(ssh_hostkeys_add(img, root) < 0);
	want = xasprintf("%s/etc/uniramfs/dropbear/dropbear_ed25519_host_key is a symbolic link: "
			 "refused", root);
	CHECK_STR(err_msg(), want);
	free(want);
	CHECK(unlink(k) == 0);
	write_under(root, "etc/uniramfs/dropbear/dropbear_ed25519_host_key", "key");
	CHECK(chmod(k, 0644) == 0);
	CHECK(ssh_hostkeys_add(img, root) < 0);
	want = xasprintf("%s/etc/uniramfs/dropbear/dropbear_ed25519_host_key has mode 0644: a "
			 "private key must be 0600 (chmod 600 it)", root);
	CHECK_STR(err_msg(), want);
	free(want);
	CHECK(!image_has(img, "/etc/dropbear/dropbear_ed25519_host_key"));
	image_free(img);
	free(k);
	rm_rf(root);
	free(root);
}

/* A sysroot with an executable usr/sbin/dropbear (the plan only looks). */
static char *with_dropbear(void)
{
	char *root = sysroot(), *p;

	write_under(root, "usr/sbin/dropbear", "#!/bin/sh\n");
	p = xasprintf("%s/usr/sbin/dropbear", root);
	CHECK(chmod(p, 0755) == 0);
	free(p);
	return root;
}

/* The host keys go into a hostonly image only by the owner's choice
 * (issue 24, item 8): unset, the build stops naming both settings;
 * no lets dropbear make them at boot; a generic image never has them. */
static void test_hostkeys_need_the_setting(void)
{
	char *root = with_dropbear(), *want;
	struct ssh_plan sp;

	write_under(root, "etc/uniramfs/authorized_keys", "ssh-ed25519 " KEY " u\n");
	CHECK(ssh_plan_decide(&sp, root, SSH_AUTO, SSH_HOSTKEYS_AUTO, true) < 0);
	want = xasprintf("SSH unlock (%s/etc/uniramfs/authorized_keys): choose ssh-hostkeys = yes to pack this "
			 "machine's host keys (%s/etc/uniramfs/dropbear; anyone who can read the image has them) or "
			 "ssh-hostkeys = no to let dropbear make new ones at each boot; nothing is written", root, root);
	CHECK_STR(err_msg(), want);
	free(want);
	ssh_plan_free(&sp);
	CHECK(ssh_plan_decide(&sp, root, SSH_YES, SSH_HOSTKEYS_NO, true) == 0);
	CHECK(sp.on && !sp.hostkeys);
	ssh_plan_free(&sp);
	CHECK(ssh_plan_decide(&sp, root, SSH_YES, SSH_HOSTKEYS_YES, true) == 0);
	CHECK(sp.on && sp.hostkeys);
	ssh_plan_free(&sp);
	CHECK(ssh_plan_decide(&sp, root, SSH_YES, SSH_HOSTKEYS_AUTO, false) == 0);
	CHECK(sp.on && !sp.hostkeys);
	ssh_plan_free(&sp);
	rm_rf(root);
	free(root);
}

static void test_plan_takes_the_first_file(void)
{
	char *root = with_dropbear(), *want;
	struct ssh_plan sp;

	/* only dracut-sshd's: it is used and named */
	write_under(root, "root/.ssh/dracut_authorized_keys", "ssh-ed25519 " KEY " d\n");
	CHECK(ssh_plan_decide(&sp, root, SSH_AUTO, SSH_HOSTKEYS_YES, true) == 0);
	CHECK(sp.on && sp.hostkeys && sp.nkeys == 1);
	want = xasprintf("%s/root/.ssh/dracut_authorized_keys", root);
	CHECK_STR(sp.keys_from, want);
	free(want);
	ssh_plan_free(&sp);
	/* dropbear-initramfs' comes before it, ours before both */
	write_under(root, "etc/dropbear/initramfs/authorized_keys", "ssh-ed25519 " KEY " i\n");
	write_under(root, "etc/uniramfs/authorized_keys", "ssh-ed25519 " KEY " u\n");
	CHECK(ssh_plan_decide(&sp, root, SSH_AUTO, SSH_HOSTKEYS_YES, true) == 0);
	want = xasprintf("%s/etc/uniramfs/authorized_keys", root);
	CHECK_STR(sp.keys_from, want);
	free(want);
	CHECK(sp.authorized.len && strstr(sp.authorized.p, " u\n"));
	ssh_plan_free(&sp);
	/* a generic image: only when asked, and never with host keys */
	CHECK(ssh_plan_decide(&sp, root, SSH_AUTO, SSH_HOSTKEYS_YES, false) == 0);
	CHECK(!sp.on);
	ssh_plan_free(&sp);
	CHECK(ssh_plan_decide(&sp, root, SSH_YES, SSH_HOSTKEYS_YES, false) == 0);
	CHECK(sp.on && !sp.hostkeys);
	ssh_plan_free(&sp);
	CHECK(ssh_plan_decide(&sp, root, SSH_NO, SSH_HOSTKEYS_YES, true) == 0);
	CHECK(!sp.on);
	ssh_plan_free(&sp);
	rm_rf(root);
	free(root);
}

static void test_plan_refuses_what_it_must(void)
{
	char *root = with_dropbear(), *bare = sysroot(), *want, *link;
	struct ssh_plan sp;

	/* yes with nothing to let in */
	CHECK(ssh_plan_decide(&sp, root, SSH_YES, SSH_HOSTKEYS_YES, true) < 0);
	want = xasprintf("ssh_unlock = yes, but %s/etc/uniramfs/authorized_keys holds no key (nor "
			 "does dropbear-initramfs' or dracut-sshd's file)", root);
	CHECK_STR(err_msg(), want);
	free(want);
	ssh_plan_free(&sp);
	/* auto: quietly off */
	CHECK(ssh_plan_decide(&sp, root, SSH_AUTO, SSH_HOSTKEYS_YES, true) == 0 && !sp.on);
	ssh_plan_free(&sp);
	/* an authorized_keys that is a link is followed inside the sysroot:
	 * "/etc/passwd" is the sysroot's (absent here), never the host's */
	write_under(root, "keys", "ssh-ed25519 " KEY "\n");
	write_under(root, "etc/uniramfs/.keep", "");
	link = xasprintf("%s/etc/uniramfs/authorized_keys", root);
	CHECK(symlink("/etc/passwd", link) == 0);
	CHECK(ssh_plan_decide(&sp, root, SSH_AUTO, SSH_HOSTKEYS_YES, true) == 0 && !sp.on);
	ssh_plan_free(&sp);
	CHECK(unlink(link) == 0);
	CHECK(symlink("/keys", link) == 0);
	CHECK(ssh_plan_decide(&sp, root, SSH_AUTO, SSH_HOSTKEYS_YES, true) == 0 && sp.nkeys == 1);
	ssh_plan_free(&sp);
	CHECK(unlink(link) == 0);
	/* a bad line names the file and the line */
	write_under(root, "etc/uniramfs/authorized_keys", "ssh-ed25519 " KEY "\ntunnel=\"0\" ssh-ed25519 " KEY "\n");
	CHECK(ssh_plan_decide(&sp, root, SSH_AUTO, SSH_HOSTKEYS_YES, true) < 0);
	want = xasprintf("%s:2: option \"tunnel=\"0\"\" refused: a login may only be restricted "
			 "(no-port-forwarding, no-agent-forwarding, no-X11-forwarding, no-pty, "
			 "no-user-rc, restrict) or given a command= (uniramfs puts its own)", link);
	CHECK_STR(err_msg(), want);
	free(want);
	ssh_plan_free(&sp);
	/* no dropbear: yes says what to install */
	write_under(bare, "etc/uniramfs/authorized_keys", "ssh-ed25519 " KEY "\n");
	CHECK(ssh_plan_decide(&sp, bare, SSH_YES, SSH_HOSTKEYS_YES, true) < 0);
	CHECK_STR(err_msg(), "ssh_unlock = yes, but dropbear is not installed (apt install dropbear-bin)");
	ssh_plan_free(&sp);
	CHECK(ssh_plan_decide(&sp, bare, SSH_AUTO, SSH_HOSTKEYS_YES, true) == 0 && !sp.on);
	ssh_plan_free(&sp);
	free(link);
	rm_rf(root);
	rm_rf(bare);
	free(root);
	free(bare);
}

static void test_nics_drivers(void)
{
	char *fx = hostonly_fixture("nfs4");
	struct hostonly h = { 0 };

	CHECK(hostonly_nics(fx, &h) == 0);
	CHECK(strv_contains(&h.modules, "e1000"));
	CHECK(strv_contains(&h.modules, "virtio_net"));
	CHECK(strv_contains(&h.modules, "virtio_pci"));
	hostonly_free(&h);
	free(fx);
}

int main(void)
{
	log_set_level(LOG_ERR);
	RUN(test_plain_key_gets_our_options);
	RUN(test_dropbear_initramfs_line_is_taken);
	RUN(test_options_that_allow_more_are_refused);
	RUN(test_bad_keys_are_named);
	RUN(test_long_line_is_refused);
	RUN(test_hostkeys_made_once);
	RUN(test_hostkey_dir_link_refused);
	RUN(test_hostkey_link_and_mode_refused);
	RUN(test_plan_takes_the_first_file);
	RUN(test_hostkeys_need_the_setting);
	RUN(test_plan_refuses_what_it_must);
	RUN(test_nics_drivers);
	return test_done();
}
