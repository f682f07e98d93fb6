// SPDX-License-Identifier: GPL-2.0-or-later
/* Who answers the kernel's request_module: the image's modprobe link
 * (init/modprobe.c) while the initramfs is the root, the root's own
 * modprobe after it. Without it a cipher that only a LUKS header names
 * (serpent, twofish) or a filesystem's helper module could not be
 * loaded once the boot is under way: the image has no /sbin/modprobe. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"

static int write_sysctl(const struct sysops *ops, const char *val)
{
	int fd = ops->open(LAYOUT_MODPROBE_SYSCTL, O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
	char *line;
	int r;

	if (fd < 0)
		return fd;
	line = xasprintf("%s\n", val);
	r = write_all(fd, line, strlen(line));
	close(fd);
	free(line);
	return r;
}

void kmod_helper_set(struct init *in)
{
	char *p, *was = NULL;
	int r;

	/* an image made with --init of another program has no link */
	if (in->ops->access(LAYOUT_MODPROBE, X_OK) < 0) {
		log_debug("no " LAYOUT_MODPROBE " in the image: the kernel's module requests go "
			  "to its default");
		return;
	}
	p = in->ops->path(LAYOUT_MODPROBE_SYSCTL);
	r = read_line(p, &was);
	free(p);
	if (r < 0) {
		/* a kernel without modules, or one that does not ask */
		log_debug("cannot read " LAYOUT_MODPROBE_SYSCTL ": %s", strerror(-r));
		return;
	}
	if ((r = write_sysctl(in->ops, LAYOUT_MODPROBE)) < 0) {
		log_warn("cannot set " LAYOUT_MODPROBE_SYSCTL ": %s; modules the kernel asks for "
			 "will not load", strerror(-r));
		free(was);
		return;
	}
	snprintf(in->modprobe_was, sizeof(in->modprobe_was), "%s", str_trim(was));
	in->modprobe_set = true;
	log_debug("the kernel's module requests go to " LAYOUT_MODPROBE " (was %s)",
		  in->modprobe_was);
	free(was);
}

void kmod_helper_restore(struct init *in)
{
	int r;

	if (!in->modprobe_set)
		return;
	if ((r = write_sysctl(in->ops, in->modprobe_was)) < 0)
		log_warn("cannot give " LAYOUT_MODPROBE_SYSCTL " back its value %s: %s; the root's "
			 "module requests go to the initramfs's modprobe, which is gone",
			 in->modprobe_was, strerror(-r));
	else
		in->modprobe_set = false;
}
