// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's modprobe while the initramfs is the root: a cipher that
 * dm-crypt or cryptsetup's AF_ALG socket asks for ("crypto-serpent"),
 * a filesystem's helper, a socket family. It loads from the image's
 * module index with the init's own loader (dev/modload.c), so the
 * image's modprobe.d and the command line's module.param= and
 * blacklists hold as for every other load. It runs beside PID 1, as a
 * child of the kernel: no state is shared but the kernel's, which
 * /proc/modules and /sys/module tell. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "err.h"
#include "init/core/kmsg.h"
#include "init/core/ops.h"
#include "init/core/options.h"
#include "init/dev/modload.h"
#include "init/dev/modreq.h"
#include "init/modprobe.h"
#include "init/stages/squashlazy.h"
#include "layout.h"
#include "log.h"

static char *read_words(const char *path)
{
	char *data = NULL;
	size_t len;

	if (read_file(path, &data, &len) < 0)
		return NULL;
	for (size_t i = 0; i < len; i++)
		if (data[i] == '\0' || data[i] == '\n')
			data[i] = ' ';
	return data;
}

/* The command line as the init reads it: the image's defaults under
 * the kernel's. Its warnings were the init's to give. */
static void read_options(struct options *o)
{
	struct cmdline c = { 0 };
	char *defaults = read_words(LAYOUT_CMDLINE_FILE), *real = read_words("/proc/cmdline");

	log_set_level(LOG_ERR);
	cmdline_parse_layers(&c, defaults, real);
	options_parse(o, &c);
	cmdline_free(&c);
	free(defaults);
	free(real);
	log_set_level(o->debug ? LOG_DEBUG : o->quiet ? LOG_WARNING : LOG_INFO);
}

int modprobe_main(int argc, char **argv)
{
	struct options o;
	struct modreq rq;
	struct modload *ml;
	const struct sysops *ops;
	char kver[256], *moddir, *why;
	int r;

	/* The kernel starts it with no open files: its words go to the
	 * kernel's log, as the init's do. */
	kmsg_setup();
	kmsg_attach(open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC));
	if (modreq_parse(argc, argv, &rq) < 0) {
		log_err("modprobe: %s", err_msg());
		return 1;
	}
	read_options(&o);
	if ((r = real_initops.uname_release(kver, sizeof(kver))) < 0) {
		log_err("modprobe %s: cannot read the kernel's version: %s", rq.name, strerror(-r));
		options_free(&o);
		return 1;
	}
	moddir = xasprintf("/lib/modules/%s", kver);
	why = xasprintf("modprobe %s", rq.name);
	/* a module of the squashfs segment, asked for before the init
	 * mounted it: mounted here, the init finds it so */
	ops = &real_ops;
	squash_lazy_start(&ops, NULL);
	squash_lazy_lock_limit(5000);
	ml = modload_new(ops, moddir);
	squash_lazy_set_modload(ml);
	for (size_t i = 0; i < o.blacklist.n; i++)
		modload_blacklist(ml, o.blacklist.v[i]);
	for (size_t i = 0; i < o.modparam_mod.n; i++)
		modload_add_param(ml, o.modparam_mod.v[i], o.modparam_arg.v[i]);
	modload_announce(ml, why);
	r = modload_name(ml, rq.name);
	if (r == -ENOENT)
		log_msg(rq.quiet ? LOG_DEBUG : LOG_ERR, "modprobe: %s", err_msg());
	else if (r < 0)
		log_err("modprobe: %s", err_msg());
	modload_free(ml);
	free(why);
	free(moddir);
	options_free(&o);
	kmsg_free();
	return r < 0;
}
