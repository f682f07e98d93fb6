// SPDX-License-Identifier: GPL-2.0-or-later
/* What the boot starts from: the image's baked command line under the
 * kernel's, the environment the kernel gave /init (all of it for the real
 * init, a clean one for our tools), and the kernel the image was made for. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildconf.h"
#include "err.h"
#include "init/boot_inputs.h"
#include "init/core/kmsg.h"
#include "init/init.h"
#include "layout.h"
#include "log.h"

static char *read_text(struct init *in, const char *path)
{
	char *p = in->ops->path(path), *data = NULL;
	size_t len;
	int r = read_file(p, &data, &len);

	free(p);
	if (r < 0) {
		if (r != -ENOENT)
			log_warn("cannot read %s: %s", path, strerror(-r));
		return NULL;
	}
	/* The kernel's cmdline may hold a NUL or end in a newline. */
	for (size_t i = 0; i < len; i++)
		if (data[i] == '\0' || data[i] == '\n')
			data[i] = ' ';
	return data;
}

static void set_log_level(struct init *in)
{
	const struct options *o = &in->opt;

	if (o->debug) {
		log_set_level(LOG_DEBUG);
		kmsg_set_timestamps(in->timing.start_monotonic_us);
	} else if (o->loglevel >= 0) {
		/* As the kernel's console: levels below N. Errors always. */
		log_set_level(o->loglevel - 1 < LOG_ERR ? LOG_ERR : (int)o->loglevel - 1);
	} else if (o->quiet) {
		log_set_level(LOG_WARNING);
	} else {
		log_set_level(LOG_INFO);
	}
}

void boot_read_cmdline(struct init *in, int argc, char **argv)
{
	struct cmdline c = { 0 };
	char *defaults = read_text(in, LAYOUT_CMDLINE_FILE);
	char *real = read_text(in, "/proc/cmdline");

	cmdline_parse_layers(&c, defaults, real);
	options_parse(&in->opt, &c);
	stack_parse(&in->stack, &c);
	set_log_level(in);
	log_info("uniramfs " UNIRAMFS_VERSION " starting");
	if (!in->opt.root && verity_default_root(&in->stack)) {
		in->opt.root = xstrdup(verity_default_root(&in->stack));
		log_info("roothash= without root=: the root is %s", in->opt.root);
	}
	netup_parse(&in->net, in->ops, &c);
	{
		/* the log is kept on the real system: no CHAP secrets in it */
		char *d = defaults ? netroot_shown(defaults) : NULL, *k = real ? netroot_shown(real) : NULL;
		if (d)
			log_debug("defaults from the image: %s", d);
		log_debug("kernel command line: %s", k ? k : "(none)");
		free(d);
		free(k);
	}
	/* The kernel already gave /init what follows "--" (and words it
	 * did not know); use its list, or ours if it gave none. */
	if (argc > 1)
		in->init_argv = argv + 1;
	else
		in->init_argv = in->opt.init_args.v;
	cmdline_free(&c);
	free(defaults);
	free(real);
}

/* The kernel gives init HOME and TERM, and every KEY=VALUE word of the
 * command line it did not know: all of it goes to the real init, as
 * without an initramfs. Our hooks, tools and shell get a clean one
 * (docs/hooks.md): a LD_PRELOAD= or PATH= on the command line must not
 * steer what runs as root here. Only mdadm's own switches for Intel
 * firmware RAID on a machine without Intel's option ROM (a virtual
 * machine, a moved disk set) pass: they change what mdadm accepts,
 * nothing of what runs. */
static const char *const tool_env_kept[] = { "IMSM_NO_PLATFORM=", "IMSM_DEVNAME_AS_SERIAL=" };

void boot_make_env(struct init *in, char **envp)
{
	struct strv env = { 0 }, clean = { 0 };
	const char *term = "linux";
	bool path = false;

	for (char **e = envp; e && *e; e++) {
		strv_push(&env, *e);
		path |= str_has_prefix(*e, "PATH=");
		if (str_has_prefix(*e, "TERM=") && (*e)[5])
			term = *e + 5;
	}
	if (!path)
		strv_push(&env, "PATH=" LAYOUT_TOOL_PATH);
	if (!env.v)
		strv_push(&env, "TERM=linux");
	in->envp = env.v;
	strv_push(&clean, "PATH=" LAYOUT_TOOL_PATH);
	strv_push(&clean, "HOME=/");
	strv_push_owned(&clean, xasprintf("TERM=%s", term));
	for (char **e = envp; e && *e; e++)
		for (size_t i = 0; i < ARRAY_SIZE(tool_env_kept); i++)
			if (str_has_prefix(*e, tool_env_kept[i]))
				strv_push(&clean, *e);
	in->tool_envp = clean.v;
}

int boot_check_kver(struct init *in)
{
	char running[256];
	char *p = in->ops->path(LAYOUT_KVER_FILE), *built = NULL;
	int r = read_line(p, &built), e;

	free(p);
	if ((e = in->xops->uname_release(running, sizeof(running))) < 0) {
		free(built);
		return e;
	}
	snprintf(in->kver, sizeof(in->kver), "%s", running);
	if (r < 0) {
		log_warn(LAYOUT_KVER_FILE ": %s; not checking the kernel version", strerror(-r));
		return 0;
	}
	if (strcmp(str_trim(built), running) != 0) {
		e = err_set("this image was built for kernel %s but the running kernel is %s",
			    str_trim(built), running);
		free(built);
		return e;
	}
	free(built);
	return 0;
}
