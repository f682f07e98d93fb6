// SPDX-License-Identifier: GPL-2.0-or-later
/* A live medium checked before it is used: its length against what its
 * own header says (a copy cut short mounts, then fails with I/O errors
 * deep in the boot), and with rd.live.check the MD5 sum implantisomd5
 * wrote into an ISO, by checkisomd5 (isomd5sum) as dracut runs it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/livesize.h"
#include "init/stages/stages.h"
#include "log.h"

/* The first bytes at off, in hex, for "what was found". */
static void hex_at(const unsigned char *buf, size_t len, size_t off, char *out, size_t outlen)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = off; i < len && i < off + 8 && o + 4 < outlen; i++)
		o += (size_t)snprintf(out + o, outlen - o, "%s%02x", o ? " " : "", buf[i]);
}

int live_check_size(int fd, unsigned long long have, const char *what, const char **type)
{
	unsigned char *buf = xmalloc(LIVE_PROBE_LEN);
	char found[32];
	uint64_t want;
	ssize_t n;
	int r;

	*type = NULL;
	n = pread(fd, buf, LIVE_PROBE_LEN, 0);
	if (n < 0) {
		r = err_errno(errno, "%s cannot be read", what);
		goto out;
	}
	r = live_header_size(buf, (size_t)n, type, &want);
	if (r < 0) {
		r = err_wrap("%s", what);
	} else if (r == 0) {
		char at[32] = "";

		if ((size_t)n < LIVE_PROBE_LEN) {
			snprintf(found, sizeof(found), "only %zd bytes", n);
		} else {
			hex_at(buf, (size_t)n, 0, found, sizeof(found));
			/* where an ISO says CD001 */
			hex_at(buf, (size_t)n, 32769, at, sizeof(at));
		}
		r = err_set("%s is neither an ISO nor a squashfs image (%s%s%s%s)", what,
			    at[0] ? "it starts " : "it is ", found, at[0] ? "; at 32 KiB + 1: " : "",
			    at);
	} else if (want > have) {
		r = err_set_code(-EIO, "%s is truncated: %llu bytes, but its %s header says %llu",
				 what, have, *type, (unsigned long long)want);
	} else {
		r = 0;
	}
out:
	free(buf);
	return r;
}

/* checkisomd5 DEV with stdin /dev/null: 0 the sum matches, 1 it does
 * not, or there is none (--md5sumonly tells that apart: 0 when there is
 * one), 2 the check was aborted. */
static int checkisomd5(struct init *in, const char *tool, const char *dev, bool sumonly)
{
	char *argv[] = { (char *)"checkisomd5", (char *)(sumonly ? "--md5sumonly" : dev),
			 sumonly ? (char *)dev : NULL, NULL };

	if (!in->xops->run)
		return err_set("no way to run programs");
	return in->xops->run(tool, argv, in->tool_envp, NULL, 0);
}

int live_check_md5(struct init *in, const struct blockdev *bd)
{
	char *tool;
	int st, r = 0;

	if (!in->opt.live_check)
		return 0;
	if (!bd->type || (strcmp(bd->type, "iso9660") && strcmp(bd->type, "udf"))) {
		log_info("rd.live.check: %s is %s, not an ISO: nothing to check", bd->devnode,
			 bd->type ? bd->type : "no filesystem");
		return 0;
	}
	tool = tool_find(&in->stack_env, "checkisomd5");
	if (!tool)
		return err_set("rd.live.check: this image has no checkisomd5 to check %s with "
			       "(install isomd5sum and make the image again)", bd->devnode);
	st = checkisomd5(in, tool, bd->devnode, true);
	if (st < 0) {
		r = err_wrap("rd.live.check: checkisomd5 --md5sumonly %s", bd->devnode);
	} else if (st != 0) {
		log_warn("rd.live.check: %s (%s) carries no checksum (implantisomd5 writes one): "
			 "not checked", bd->devnode, bd->type);
	} else {
		log_info("rd.live.check: checking %s (%s) against its implanted MD5 sum",
			 bd->devnode, bd->type);
		st = checkisomd5(in, tool, bd->devnode, false);
		if (st == 0)
			log_info("rd.live.check: %s: the MD5 sum matches", bd->devnode);
		else if (st < 0)
			r = err_wrap("rd.live.check: checkisomd5 %s", bd->devnode);
		else if (st == 1)
			r = err_set("rd.live.check: %s (%s%s%s) does not match the MD5 sum implanted "
				    "in it: the medium is damaged; not booting from it", bd->devnode,
				    bd->type, bd->label ? ", LABEL=" : "", bd->label ? bd->label : "");
		else
			r = err_set("rd.live.check: checkisomd5 %s ended with status %d (2: aborted); "
				    "not booting from an unchecked medium", bd->devnode, st);
	}
	free(tool);
	return r;
}

void live_first_bytes(int fd, char *out, size_t len)
{
	unsigned char b[8];
	ssize_t n = pread(fd, b, sizeof(b), 0);

	if (n <= 0)
		snprintf(out, len, "with nothing readable");
	else
		hex_at(b, (size_t)n, 0, out, len);
}

/* The device's size from sysfs (512-byte sectors); 0 when unknown. */
static unsigned long long dev_size(struct init *in, const char *name)
{
	char *rel = xasprintf("/sys/class/block/%s/size", name), *p = in->ops->path(rel), *line;
	unsigned long long n = 0;

	if (read_line(p, &line) == 0) {
		n = strtoull(line, NULL, 10) * 512;
		free(line);
	}
	free(p);
	free(rel);
	return n;
}

int live_check_medium(struct init *in, const struct blockdev *bd)
{
	unsigned long long size;
	const char *type;
	int fd, r;

	if (bd->type && !strcmp(bd->type, "iso9660") && (size = dev_size(in, bd->name))) {
		fd = in->ops->open(bd->devnode, O_RDONLY | O_CLOEXEC, 0);
		if (fd < 0)
			return err_errno(fd, "root=live:%s: cannot open %s", in->opt.root, bd->devnode);
		r = live_check_size(fd, size, bd->devnode, &type);
		close(fd);
		if (r < 0 && type)
			return err_wrap("root=live:%s", in->opt.root);
	}
	return live_check_md5(in, bd);
}
