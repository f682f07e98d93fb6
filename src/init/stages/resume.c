// SPDX-License-Identifier: GPL-2.0-or-later
/* Resume from hibernation. The resume= device is looked at the moment it
 * appears (after any LUKS or LVM under it, which come as device events
 * like any other); its swap header says whether it holds an image. The
 * kernel does the resume itself once told which device: writing MAJ:MIN
 * to /sys/power/resume does not return when it works. This must happen
 * before any filesystem is mounted: resuming after one was written to
 * would corrupt it, as the restored kernel believes it still holds the
 * filesystem as it was at hibernation. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"

/* The kernel keeps the swap header in the first page of the area; its
 * signature is that page's last 10 bytes (include/linux/swap.h). */
#define SIG_LEN 10

enum swap_sig swap_signature(const char tail[SIG_LEN])
{
	/* The kernel writes "S1SUSPEND\0"; older kernels S2SUSPEND. */
	if (!memcmp(tail, "S1SUSPEND", 9) || !memcmp(tail, "S2SUSPEND", 9))
		return SWAP_KERNEL;
	if (!memcmp(tail, "ULSUSPEND", 9))
		return SWAP_USWSUSP;
	if (!memcmp(tail, "SWAPSPACE2", SIG_LEN) || !memcmp(tail, "SWAP-SPACE", SIG_LEN))
		return SWAP_PLAIN;
	return SWAP_NONE;
}

static int read_signature(struct init *in, const struct blockdev *bd, char tail[SIG_LEN])
{
	long page = sysconf(_SC_PAGESIZE);
	off_t at;
	int fd, r = 0;
	ssize_t n;

	/* the page's byte offset must fit an off_t */
	if (in->opt.resume_offset > (INT64_MAX - page) / page)
		return err_set("resume_offset=%ld is past the end of any device", in->opt.resume_offset);
	at = (off_t)in->opt.resume_offset * page + page - SIG_LEN;
	fd = in->ops->open(bd->devnode, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return err_errno(fd, "cannot open %s", bd->devnode);
	n = pread(fd, tail, SIG_LEN, at);
	if (n < 0)
		r = err_errno(errno, "cannot read the swap header of %s", bd->devnode);
	else if (n != SIG_LEN)
		r = err_set("%s is too small to hold a swap header at offset %lld", bd->devnode,
			    (long long)at);
	close(fd);
	return r;
}

static int write_sys(struct init *in, const char *path, const char *text)
{
	int fd = in->ops->open(path, O_WRONLY | O_CLOEXEC, 0);
	int r;

	if (fd < 0)
		return err_errno(fd, "cannot open %s", path);
	r = write_all(fd, text, strlen(text));
	close(fd);
	if (r < 0)
		return err_errno(r, "cannot write %s to %s", text, path);
	return 0;
}

static void resume_from(struct init *in, const struct blockdev *bd)
{
	char num[64];

	if (in->opt.resume_offset > 0) {
		snprintf(num, sizeof(num), "%ld", in->opt.resume_offset);
		if (write_sys(in, "/sys/power/resume_offset", num) < 0) {
			log_warn("resume from %s failed: %s; booting normally", bd->devnode,
				 err_msg());
			return;
		}
	}
	snprintf(num, sizeof(num), "%u:%u", bd->major, bd->minor);
	log_notice("resuming from hibernation on %s (%s)", bd->devnode, num);
	if (write_sys(in, "/sys/power/resume", num) < 0)
		log_warn("resume from %s failed: %s; booting normally", bd->devnode, err_msg());
	else
		log_warn("resume from %s failed: the kernel did not restore the image; "
			 "booting normally", bd->devnode);
}

static void resume_block(struct init *in, const struct blockdev *bd)
{
	const struct options *o = &in->opt;
	char tail[SIG_LEN];

	if (!o->resume || o->noresume || in->resume_done ||
	    !(bd = registry_named(&in->devs, bd, o->resume)))
		return;
	in->resume_done = true;
	log_info("resume=%s is %s", o->resume, bd->devnode);
	if (in->fs_mounted) {
		/* A late device: the root is mounted already. */
		log_warn("not resuming from %s: a filesystem is mounted already", bd->devnode);
		return;
	}
	if (read_signature(in, bd, tail) < 0) {
		log_warn("%s; booting normally", err_msg());
		return;
	}
	switch (swap_signature(tail)) {
	case SWAP_KERNEL:
		resume_from(in, bd);
		break;
	case SWAP_USWSUSP:
		log_warn("%s holds a uswsusp image (ULSUSPEND) that only uswsusp's resume can "
			 "restore; booting normally", bd->devnode);
		break;
	case SWAP_PLAIN:
		log_info("no hibernation image on %s, booting normally", bd->devnode);
		break;
	case SWAP_NONE:
		log_warn("%s is not a swap area (no swap signature); booting normally",
			 bd->devnode);
		break;
	}
}

void resume_seen(void *arg, enum dev_change what, const struct blockdev *bd)
{
	if (what != DEV_REMOVED)
		resume_block(arg, bd);
}

bool resume_begin(struct init *in)
{
	const struct options *o = &in->opt;

	if (!o->resume || in->resume_done)
		return false;
	if (o->noresume) {
		log_info("noresume: not resuming from resume=%s", o->resume);
		in->resume_done = true;
		return false;
	}
	if (!blockdev_spec_valid(o->resume)) {
		log_warn("resume=%s is not a device uniramfs understands; booting normally",
			 o->resume);
		in->resume_done = true;
		return false;
	}
	log_info("waiting for resume=%s", o->resume);
	return true;
}

/* dracut waits for the resume device as for the root; but a stale
 * resume= (a swap since removed) would then cost the whole root timeout
 * on every boot. The root is there, so the disks are found: the wait
 * goes on only while devices still come (block devices, drivers
 * loading, a layer's tool running), then rd.resume.timeout more. */
long long resume_quiet_until(const struct init *in, long long since)
{
	long long last = since;

	if (in->devs.last_change_ms > last)
		last = in->devs.last_change_ms;
	if (in->drivers.last_load_ms > last)
		last = in->drivers.last_load_ms;
	if (in->stack.last_run_ms > last)
		last = in->stack.last_run_ms;
	return last + in->opt.resume_timeout * 1000;
}

void resume_end(struct init *in, bool settled)
{
	const struct options *o = &in->opt;

	if (in->resume_done)
		return;
	if (settled)
		log_warn("resume device resume=%s did not appear within %ld seconds of the last "
			 "device event (rd.resume.timeout=); booting normally", o->resume,
			 o->resume_timeout);
	else
		log_warn("resume device resume=%s did not appear in time; booting normally",
			 o->resume);
	in->resume_done = true;
}
