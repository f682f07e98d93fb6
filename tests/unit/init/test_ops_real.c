// SPDX-License-Identifier: GPL-2.0-or-later
/* src/init/ops_real.c: the real table turns each syscall's -1 into
 * -errno, making the call once. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "init/core/ops.h"
#include "must.h"
#include "test.h"
#include "util.h"

/* The real table's wrappers: each call made once, its -errno taken at
 * once (only harmless calls, in a temporary directory). */
static void test_real_ops_return_codes(void)
{
	const char *t = getenv("TMPDIR");
	char *dir = xasprintf("%s/uniramfs-realops.XXXXXX", t && *t ? t : "/tmp"), *sub, *file;
	int fd;

	MUST(mkdtemp(dir));
	sub = xasprintf("%s/d", dir);
	file = xasprintf("%s/f", dir);
	CHECK(real_ops.mkdir(sub, 0755) == 0); /* made once: not -EEXIST */
	CHECK(real_ops.mkdir(sub, 0755) == -EEXIST);
	CHECK(real_ops.open(file, O_RDONLY | O_CLOEXEC, 0) == -ENOENT);
	fd = real_ops.open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(real_ops.access(file, R_OK) == 0);
	CHECK(real_ops.unlink(file) == 0);
	CHECK(real_ops.unlink(file) == -ENOENT);
	CHECK(real_ops.symlink("f", file) == 0);
	CHECK(real_ops.symlink("f", file) == -EEXIST);
	CHECK(real_ops.unlink(file) == 0);
	CHECK(real_ops.chdir(file) == -ENOENT);
	rmdir(sub);
	rmdir(dir);
	free(sub);
	free(file);
	free(dir);
}

int main(void)
{
	RUN(test_real_ops_return_codes);
	return test_done();
}
