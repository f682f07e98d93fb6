// SPDX-License-Identifier: GPL-2.0-or-later
/* rd.live.ram (dracut's dmsquash-live): the live image is copied into
 * /run (a tmpfs: RAM) before it is mounted, and the medium unmounted, so
 * the CD or stick can be taken out once the system runs. An image larger
 * than the RAM left for it is refused before a byte is copied, with the
 * sizes: a tmpfs filled to the brim is an out-of-memory killer's boot. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"

#define MIB (1024ULL * 1024)
/* What the rest of the boot and the root's first steps need beside the
 * copy: the overlay's upper layer, the real init's start. */
#define RAM_RESERVE (128 * MIB)

unsigned long long live_mem_available(struct init *in)
{
	char *path = in->ops->path("/proc/meminfo"), *data = NULL, *p;
	unsigned long long kb = 0;

	if (read_file(path, &data, NULL) == 0 && (p = strstr(data, "\nMemAvailable:")))
		kb = strtoull(p + strlen("\nMemAvailable:"), NULL, 10);
	free(path);
	free(data);
	return kb * 1024;
}

/* Bytes free on the tmpfs at dir (root may use them all). */
static unsigned long long fs_free(struct init *in, const char *dir)
{
	char *p = in->ops->path(dir);
	struct statvfs s;
	unsigned long long n = 0;

	if (statvfs(p, &s) == 0)
		n = (unsigned long long)s.f_bfree * s.f_frsize;
	free(p);
	return n;
}

static int copy_fd(int from, int to, unsigned long long size)
{
	size_t len = 1 << 20;
	char *buf = xmalloc(len);
	unsigned long long done = 0;
	int r = 0;

	while (done < size) {
		ssize_t n = read(from, buf, len), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO; /* shorter than it said: a medium pulled */
			break;
		}
		while (w < n) {
			ssize_t k = write(to, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				r = k < 0 ? -errno : -EIO;
				goto out;
			}
			w += k;
		}
		done += (unsigned long long)n;
	}
out:
	free(buf);
	return r;
}

int live_ram_copy(struct init *in, const char *medium, const char *src, const char *dst)
{
	unsigned long long size, room, avail = live_mem_available(in), tmpfs = fs_free(in, "/run");
	struct stat st;
	int from, to, r;

	from = in->ops->open(src, O_RDONLY | O_CLOEXEC, 0);
	if (from < 0)
		return err_errno(from, "rd.live.ram: cannot open %s", src);
	if (fstat(from, &st) < 0) {
		r = err_errno(errno, "rd.live.ram: %s", src);
		goto out;
	}
	size = (unsigned long long)st.st_size;
	/* the tmpfs's own limit, and the RAM behind it (a tmpfs may
	 * promise more than is left) */
	room = tmpfs;
	if (avail && (avail < RAM_RESERVE ? 0 : avail - RAM_RESERVE) < room)
		room = avail < RAM_RESERVE ? 0 : avail - RAM_RESERVE;
	if (size > room) {
		r = err_set_code(-ENOSPC, "rd.live.ram: %s on %s is %llu MiB, but only %llu MiB of "
				 "RAM is left for it (/run has %llu MiB free, MemAvailable is %llu "
				 "MiB, %llu MiB kept for the boot): not copied", src, medium,
				 (size + MIB - 1) / MIB, room / MIB, tmpfs / MIB, avail / MIB,
				 RAM_RESERVE / MIB);
		goto out;
	}
	to = in->ops->open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (to < 0) {
		r = err_errno(to, "rd.live.ram: cannot create %s", dst);
		goto out;
	}
	log_info("rd.live.ram: copying %s (%llu MiB) from %s to %s", src, (size + MIB - 1) / MIB,
		 medium, dst);
	r = copy_fd(from, to, size);
	if (close(to) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		r = err_errno(r, "rd.live.ram: copying %s from %s to %s", src, medium, dst);
		in->ops->unlink(dst);
		goto out;
	}
	log_info("rd.live.ram: %s is in RAM", dst);
out:
	close(from);
	return r;
}

void live_ram_release(struct init *in, const char *medium, const char *dir)
{
	int r = in->ops->umount(dir, 0);

	/* something still holds it (a hook's shell in it): gone once let go */
	if (r == -EBUSY)
		r = in->ops->umount(dir, MNT_DETACH);
	if (r < 0) {
		log_warn("rd.live.ram: cannot unmount %s from %s: %s; the medium stays in use",
			 medium, dir, strerror(-r));
		return;
	}
	if (in->isoscan.found[0]) {
		isoscan_done(in);
		r = in->ops->umount("/run/initramfs/isoscan", 0);
		if (r < 0)
			log_warn("rd.live.ram: cannot unmount %s from /run/initramfs/isoscan: %s",
				 in->isoscan.found, strerror(-r));
		medium = in->isoscan.found;
	}
	log_info("rd.live.ram: %s is no longer used: it may be removed", medium);
}
