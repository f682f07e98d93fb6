// SPDX-License-Identifier: GPL-2.0-or-later
/* The shutdown hand-back: what the init leaves in /run/initramfs at
 * switch_root (src/init/stages/handback.c) and how the program left there
 * orders its work (src/shutdown/plan.c). */
#include <errno.h>
#include <fcntl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "init/stages/handback.h"
#include "plan.h"
#include "test.h"
#include "util.h"

static char *tree;

/* The init's paths below a temporary tree, as fake_ops does; the ops
 * return -errno, as struct sysops says. */
static char *in_tree(const char *p)
{
	return path_join(tree, p);
}

static int t_mkdir(const char *p, mode_t m)
{
	char *x = in_tree(p);
	int r = mkdir(x, m);

	if (r < 0)
		r = -errno;
	free(x);
	return r;
}

static int t_open(const char *p, int f, mode_t m)
{
	char *x = in_tree(p);
	int r = open(x, f, m);

	if (r < 0)
		r = -errno;
	free(x);
	return r;
}

static int t_access(const char *p, int m)
{
	char *x = in_tree(p);
	int r = access(x, m);

	if (r < 0)
		r = -errno;
	free(x);
	return r;
}

static int t_unlink(const char *p)
{
	char *x = in_tree(p);
	int r = unlink(x);

	if (r < 0)
		r = -errno;
	free(x);
	return r;
}

static const struct sysops tree_ops = {
	.mkdir = t_mkdir, .open = t_open, .access = t_access, .unlink = t_unlink, .path = in_tree,
};

static void fresh_tree(void)
{
	char tmpl[] = "/tmp/uniramfs-test-shutdown-XXXXXX";
	free(tree);
	tree = xstrdup(mkdtemp(tmpl));
	t_mkdir("/run", 0755);
}

static void put_program(const char *text)
{
	char *lib = in_tree("/lib/uniramfs"), *p = in_tree(HANDBACK_SRC);
	FILE *f;
	mkdir_p(lib, 0755);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	chmod(p, 0755);
	free(lib);
	free(p);
}

static void test_handback_copies_program(void)
{
	char *dst, *data = NULL;
	size_t len;
	struct stat st;

	fresh_tree();
	put_program("#!shutdown program\n");
	CHECK(handback_shutdown(&tree_ops) == 0);
	dst = in_tree("/run/initramfs/shutdown");
	CHECK(read_file(dst, &data, &len) == 0 && strcmp(data, "#!shutdown program\n") == 0);
	CHECK(stat(dst, &st) == 0 && (st.st_mode & 0777) == 0755);
	/* the directories systemd-shutdown binds and pivots into */
	CHECK(t_access("/run/initramfs/oldroot", F_OK) == 0);
	CHECK(t_access("/run/initramfs/proc", F_OK) == 0);
	CHECK(t_access("/run/initramfs/dev", F_OK) == 0);
	free(data);
	free(dst);
}

static void test_handback_without_program_does_nothing(void)
{
	fresh_tree();
	CHECK(handback_shutdown(&tree_ops) == 0);
	CHECK(t_access("/run/initramfs", F_OK) < 0);
}

/* a /run/initramfs/shutdown already there (a link, say) is not
 * written through */
static void test_handback_never_writes_through_a_link(void)
{
	char *outside, *link, *data = NULL;
	size_t len;

	fresh_tree();
	put_program("ours\n");
	t_mkdir("/run/initramfs", 0755);
	outside = in_tree("/precious");
	link = in_tree("/run/initramfs/shutdown");
	{
		FILE *f = fopen(outside, "w");
		fputs("precious\n", f);
		fclose(f);
	}
	CHECK(symlink(outside, link) == 0);
	CHECK(handback_shutdown(&tree_ops) < 0);
	CHECK_STR(err_msg(), "cannot create /run/initramfs/shutdown: File exists");
	CHECK(read_file(outside, &data, &len) == 0 && strcmp(data, "precious\n") == 0);
	free(data);
	free(outside);
	free(link);
}

static void test_verbs(void)
{
	enum shutdown_verb v;
	CHECK(shutdown_verb_parse("poweroff", &v) == 0 && shutdown_verb_cmd(v) == (int)RB_POWER_OFF);
	CHECK(shutdown_verb_parse("reboot", &v) == 0 && shutdown_verb_cmd(v) == (int)RB_AUTOBOOT);
	CHECK(shutdown_verb_parse("halt", &v) == 0 && shutdown_verb_cmd(v) == (int)RB_HALT_SYSTEM);
	CHECK(shutdown_verb_parse("kexec", &v) == 0 && shutdown_verb_cmd(v) == (int)RB_KEXEC);
	CHECK(shutdown_verb_parse("suspend", &v) < 0);
	CHECK_STR(err_msg(), "unknown verb 'suspend' (expected poweroff, reboot, halt or kexec)");
	CHECK(shutdown_verb_parse(NULL, &v) < 0);
}

/* What /proc/self/mountinfo says after systemd-shutdown pivots back:
 * the old root and what is mounted on it, unmounted on top first. */
static void test_mounts_below_old_root(void)
{
	const char *mi =
		"22 1 0:21 / / rw - tmpfs tmpfs rw\n"
		"30 22 254:1 / /oldroot rw,relatime - ext4 /dev/mapper/vg-root rw\n"
		"31 30 0:5 / /oldroot/dev rw - devtmpfs udev rw\n"
		"32 31 0:24 / /oldroot/dev/pts rw - devpts devpts rw\n"
		"33 30 259:2 / /oldroot/home/my\\040files rw - ext4 /dev/vdb1 rw\n"
		"34 30 0:26 / /oldroot/boot rw - ext4 /dev/vda1 rw\n"
		"35 22 0:5 / /dev rw - devtmpfs udev rw\n"
		"36 22 0:27 / /oldrootx rw - tmpfs tmpfs rw\n";
	struct strv m = { 0 };
	shutdown_mounts_below(mi, "/oldroot", &m);
	CHECK(m.n == 5);
	if (m.n == 5) {
		/* the deepest first; the old root itself last */
		CHECK(!strcmp(m.v[0], "/oldroot/home/my files") || !strcmp(m.v[0], "/oldroot/dev/pts"));
		CHECK(!strcmp(m.v[1], "/oldroot/home/my files") || !strcmp(m.v[1], "/oldroot/dev/pts"));
		CHECK_STR(m.v[4], "/oldroot");
	}
	CHECK(!strv_contains(&m, "/oldrootx"));
	CHECK(!strv_contains(&m, "/dev"));
	strv_free(&m);
}

int main(void)
{
	RUN(test_handback_copies_program);
	RUN(test_handback_without_program_does_nothing);
	RUN(test_handback_never_writes_through_a_link);
	RUN(test_verbs);
	RUN(test_mounts_below_old_root);
	if (tree) {
		char *rm = xasprintf("rm -rf %s", tree);
		if (system(rm) != 0)
			printf("# could not remove %s\n", tree);
		free(rm);
	}
	free(tree);
	return test_done();
}
