// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/stages/handback.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "log.h"
#include "util.h"

static int copy(const struct sysops *ops, const char *src, const char *dst)
{
	char buf[65536];
	ssize_t n;
	int in, out, r = 0;

	in = ops->open(src, O_RDONLY | O_CLOEXEC, 0);
	if (in < 0)
		return err_errno(in, "cannot read %s", src);
	/* a fresh /run: anything already there is not ours to replace */
	out = ops->open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
	if (out < 0) {
		r = err_errno(out, "cannot create %s", dst);
		close(in);
		return r;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		r = write_all(out, buf, (size_t)n);
		if (r < 0)
			break;
	}
	if (n < 0)
		r = -errno;
	if (r == 0 && fchmod(out, 0755) < 0)
		r = -errno;
	close(in);
	close(out);
	if (r < 0) {
		ops->unlink(dst);
		return err_errno(r, "cannot write %s", dst);
	}
	return 0;
}

int handback_shutdown(const struct sysops *ops)
{
	/* systemd-shutdown binds /dev, /proc, /sys and /run into the new
	 * root and moves the old root to /oldroot */
	static const char *const dirs[] = { HANDBACK_DIR, HANDBACK_DIR "/dev", HANDBACK_DIR "/proc",
					    HANDBACK_DIR "/sys", HANDBACK_DIR "/run", HANDBACK_DIR "/oldroot" };
	int r = 0, e;

	if (ops->access(HANDBACK_SRC, X_OK) < 0)
		return 0;
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(dirs); i++)
		if ((e = ops->mkdir(dirs[i], 0755)) < 0 && e != -EEXIST)
			r = err_errno(e, "cannot create %s", dirs[i]);
	if (r == 0)
		r = copy(ops, HANDBACK_SRC, HANDBACK_DIR "/shutdown");
	if (r < 0)
		log_warn("no shutdown program in " HANDBACK_DIR ": %s", err_msg());
	else
		log_info("left " HANDBACK_DIR "/shutdown for the end of the shutdown");
	return r;
}
