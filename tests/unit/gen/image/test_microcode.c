// SPDX-License-Identifier: GPL-2.0-or-later
/* The early microcode cpio, from the fixture firmware trees in
 * tests/unit/fixtures/microcode/ (fake blobs: only their bytes matter). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "err.h"
#include "gen/image/microcode.h"
#include "test.h"
#include "util.h"

#define INTEL_ALL "intel 06-8e-0a\nintel 06-9e-0d\n"
#define AMD_ALL "amd generic\namd fam17h\n"

static char *fixture(const char *name)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	return xasprintf("%s/tests/unit/fixtures/microcode/%s", src ? src : ".", name);
}

/* The archive as "name mode size mtime uid gid" lines plus the file data,
 * so one CHECK_STR shows the whole content. */
static char *describe(const void *buf, size_t len)
{
	struct cpio_reader r;
	struct cpio_entry e;
	const uint8_t *data;
	struct buf out = { 0 };
	int n;

	cpio_reader_init(&r, buf, len);
	while ((n = cpio_read_next(&r, &e, &data)) == 1) {
		buf_printf(&out, "%s %o %llu %u %u %u\n", e.name, e.mode,
			   (unsigned long long)e.size, e.mtime, e.uid, e.gid);
		if (S_ISREG(e.mode))
			buf_append(&out, data, e.size);
	}
	if (n < 0)
		buf_printf(&out, "error: %s\n", err_msg());
	for (size_t i = r.off; n == 0 && i < len; i++)
		if (((const uint8_t *)buf)[i]) {
			buf_printf(&out, "non-zero padding at %zu\n", i);
			break;
		}
	cpio_reader_free(&r);
	if (!out.p)
		buf_append(&out, "", 0);
	return out.p;
}

static void run(const char *name, bool hostonly, int want_r, bool want_written,
		const char *want)
{
	char *root = fixture(name), *got;
	struct sink *mem = sink_mem_new();
	bool written = !want_written;
	const void *buf;
	size_t len;

	CHECK(microcode_write_early(root, hostonly, mem, &written) == want_r);
	CHECK(written == want_written);
	buf = sink_mem_data(mem, &len);
	if (want) {
		CHECK(len % 512 == 0);
		got = describe(buf, len);
		CHECK_STR(got, want);
		free(got);
	} else {
		CHECK(len == 0);
	}
	sink_free(mem);
	free(root);
}

#define DIRS \
	"kernel 40755 0 0 0 0\n" \
	"kernel/x86 40755 0 0 0 0\n" \
	"kernel/x86/microcode 40755 0 0 0 0\n"

static void test_both_vendors(void)
{
	run("both", false, 0, true,
	    DIRS "kernel/x86/microcode/AuthenticAMD.bin 100644 23 0 0 0\n" AMD_ALL
		 "kernel/x86/microcode/GenuineIntel.bin 100644 30 0 0 0\n" INTEL_ALL);
}

static void test_hostonly_intel(void)
{
	run("both", true, 0, true,
	    DIRS "kernel/x86/microcode/GenuineIntel.bin 100644 30 0 0 0\n" INTEL_ALL);
}

static void test_hostonly_amd(void)
{
	run("amd-host", true, 0, true,
	    DIRS "kernel/x86/microcode/AuthenticAMD.bin 100644 23 0 0 0\n" AMD_ALL);
}

static void test_hostonly_vendor_without_blobs(void)
{
	/* An AMD CPU, only Intel blobs on disk. */
	run("intel-only-amd-cpu", true, 0, false, NULL);
}

static void test_generic_one_vendor_present(void)
{
	run("intel-only-amd-cpu", false, 0, true,
	    DIRS "kernel/x86/microcode/GenuineIntel.bin 100644 15 0 0 0\nintel 06-8e-0a\n");
}

static void test_no_firmware_dirs(void)
{
	run("none", false, 0, false, NULL);
	run("none", true, 0, false, NULL);
}

static void test_hostonly_needs_cpuinfo(void)
{
	char *root = fixture("no-such-root"), *want;
	struct sink *mem = sink_mem_new();
	bool written = true;
	size_t len;

	CHECK(microcode_write_early(root, true, mem, &written) < 0);
	CHECK(!written);
	want = xasprintf("cannot read %s/proc/cpuinfo: No such file or directory", root);
	CHECK_STR(err_msg(), want);
	sink_mem_data(mem, &len);
	CHECK(len == 0);
	free(want);
	sink_free(mem);
	free(root);
}

int main(void)
{
	RUN(test_both_vendors);
	RUN(test_hostonly_intel);
	RUN(test_hostonly_amd);
	RUN(test_hostonly_vendor_without_blobs);
	RUN(test_generic_one_vendor_present);
	RUN(test_no_firmware_dirs);
	RUN(test_hostonly_needs_cpuinfo);
	return test_done();
}
