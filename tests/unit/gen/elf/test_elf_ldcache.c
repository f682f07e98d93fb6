// SPDX-License-Identifier: GPL-2.0-or-later
/* elf_ldcache_add: an image with a library in a directory only
 * ld.so.conf names gets the /etc/ld.so.cache that makes ld.so find it;
 * one with libraries only in ld.so's own directories gets none; a cache
 * the image already packs is kept; a failing ldconfig is an error that
 * says what the cache was for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "err.h"
#include "gen/compress/compress.h"
#include "gen/elf/elf_ldcache.h"
#include "gen/image/image.h"
#include "log.h"
#include "image_helpers.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char tmp[] = "/tmp/test_elf_ldcache.XXXXXX";

/* The sysroot: ld.so.conf names /opt/x/lib and the multiarch directory;
 * libx in the first, liby in the second. */
static bool make_sysroot(void)
{
	if (system("cc --version >/dev/null 2>&1 && command -v ldconfig >/dev/null 2>&1") != 0)
		return false;
	return run_shf("set -e; cd %s; mkdir -p etc opt/x/lib usr/lib/x86_64-linux-gnu src; "
		  "printf '/opt/x/lib\\n/usr/lib/x86_64-linux-gnu\\n' > etc/ld.so.conf; "
		  "echo 'int x(void) { return 1; }' > src/x.c; "
		  "cc -shared -fPIC -Wl,-soname,libx.so.1 -o opt/x/lib/libx.so.1.2 src/x.c; "
		  "ln -s libx.so.1.2 opt/x/lib/libx.so.1; "
		  "cc -shared -fPIC -Wl,-soname,liby.so.1 -o usr/lib/x86_64-linux-gnu/liby.so.1 src/x.c",
		  tmp) == 0;
}

static void add_lib(struct image *img, const char *path)
{
	CHECK(image_add_host_path(img, tmp, path, NULL) == 0);
}

static void test_default_dirs_only(void)
{
	struct image *img = image_new();

	add_lib(img, "/usr/lib/x86_64-linux-gnu/liby.so.1");
	CHECK(elf_ldcache_add(img, tmp) == 0);
	CHECK(!image_has(img, "/etc/ld.so.cache"));
	image_free(img);
}

static void test_conf_dir(void)
{
	struct image *img = image_new();
	struct buf cache;
	char *file, *cmd;
	FILE *f;
	char line[512];
	bool found = false;

	add_lib(img, "/opt/x/lib/libx.so.1");
	add_lib(img, "/usr/lib/x86_64-linux-gnu/liby.so.1");
	CHECK(elf_ldcache_add(img, tmp) == 0);
	CHECK(image_has(img, "/etc/ld.so.cache"));
	CHECK(image_file_of(img, "etc/ld.so.cache", &cache));
	CHECK(cache.len > 0);
	/* glibc's own reader of the format says what ld.so will find */
	file = xasprintf("%s/cache", tmp);
	f = fopen(file, "w");
	CHECK(f && fwrite(cache.p, 1, cache.len, f) == cache.len);
	fclose(f);
	cmd = xasprintf("ldconfig -p -C %s", file);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "libx.so.1 (libc6,x86-64) => /opt/x/lib/libx.so.1\n"))
			found = true;
		else
			CHECK(!strstr(line, "liby"));
	CHECK(f && pclose(f) == 0);
	CHECK(found);
	free(cmd);
	free(file);
	buf_free(&cache);
	image_free(img);
}

static void test_own_cache_kept(void)
{
	struct image *img = image_new();
	struct buf cache;

	add_lib(img, "/opt/x/lib/libx.so.1");
	CHECK(image_add_data(img, "/etc/ld.so.cache", "mine", 4, 0644) == 0);
	CHECK(elf_ldcache_add(img, tmp) == 0);
	CHECK(image_file_of(img, "etc/ld.so.cache", &cache));
	CHECK(cache.len == 4 && memcmp(cache.p, "mine", 4) == 0);
	buf_free(&cache);
	image_free(img);
}

static void test_no_ldconfig(void)
{
	struct image *img = image_new();
	char *path = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;

	add_lib(img, "/opt/x/lib/libx.so.1");
	setenv("PATH", tmp, 1); /* no ldconfig there */
	CHECK(elf_ldcache_add(img, tmp) < 0);
	CHECK_STR(err_msg(), "/etc/ld.so.cache for the libraries in /opt/x/lib: "
			     "ldconfig not found: install libc-bin");
	CHECK(!image_has(img, "/etc/ld.so.cache"));
	if (path)
		setenv("PATH", path, 1);
	free(path);
	image_free(img);
}

int main(void)
{
	log_init("test_elf_ldcache", LOG_WARNING);
	if (!mkdtemp(tmp))
		return 1;
	if (!make_sysroot()) {
		printf("1..0 # SKIP no C compiler or ldconfig\n");
		run_shf("rm -rf %s", tmp);
		return 0;
	}
	RUN(test_default_dirs_only);
	RUN(test_conf_dir);
	RUN(test_own_cache_kept);
	RUN(test_no_ldconfig);
	run_shf("rm -rf %s", tmp);
	return test_done();
}
