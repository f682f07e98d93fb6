// SPDX-License-Identifier: GPL-2.0-or-later
/* Which kernels a sysroot has (build --all): a module directory and a
 * kernel file, both looked up inside the sysroot, whose links (Arch's
 * absolute /lib -> /usr/lib, a hostile /boot/vmlinuz -> a host file)
 * resolve there and never on the host. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/host/rmtree.h"
#include "gen/modules/kernels.h"
#include "test.h"
#include "util.h"

static void put(const char *root, const char *rel)
{
	char *p = path_join(root, rel), *slash = strrchr(p, '/');
	FILE *f;

	*slash = '\0';
	mkdir_p(p, 0755);
	*slash = '/';
	f = fopen(p, "w");
	fputs("x", f);
	fclose(f);
	free(p);
}

static void link_in(const char *root, const char *target, const char *rel)
{
	char *p = path_join(root, rel), *slash = strrchr(p, '/');

	*slash = '\0';
	mkdir_p(p, 0755);
	*slash = '/';
	CHECK(symlink(target, p) == 0);
	free(p);
}

static void test_links_stay_inside(void)
{
	char tmpl[] = "/tmp/uniramfs-test-kernels-XXXXXX";
	char *root = mkdtemp(tmpl);
	struct strv got = { 0 };

	/* Arch: the kernel in its module directory, /lib an absolute link */
	put(root, "/usr/lib/modules/6.1-arch/vmlinuz");
	link_in(root, "/usr/lib", "/lib");
	/* a module directory with no kernel anywhere */
	put(root, "/usr/lib/modules/6.1-nokernel/modules.dep");
	/* a kernel "file" that is an absolute link to a file the host has and
	 * the sysroot lacks: followed on the host, it would count */
	put(root, "/usr/lib/modules/6.1-hostlink/modules.dep");
	link_in(root, "/etc/passwd", "/boot/vmlinuz-6.1-hostlink");
	CHECK(access("/etc/passwd", F_OK) == 0);
	CHECK(kernels_installed(root, &got) == 0);
	CHECK(got.n == 1);
	if (got.n == 1)
		CHECK_STR(got.v[0], "6.1-arch");
	strv_free(&got);

	/* no /lib/modules at all: no kernel, not an error */
	rm_tree(root);
	CHECK(mkdir(root, 0755) == 0);
	CHECK(kernels_installed(root, &got) == 0 && got.n == 0);
	strv_free(&got);
	rm_tree(root);
}

int main(void)
{
	RUN(test_links_stay_inside);
	return test_done();
}
