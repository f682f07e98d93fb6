// SPDX-License-Identifier: GPL-2.0-or-later
/* uniramfs-init: /init in the image, PID 1 until it execs the real init. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "init/init.h"
#include "init/modprobe.h"
#include "init/remote/askpass.h"
#include "layout.h"

int main(int argc, char **argv, char **envp)
{
	struct init in = { .ops = &real_ops, .xops = &real_initops };
	const char *name = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;

	/* an SSH login's command (dropbear runs a login shell as "-NAME") */
	name = name ? name + 1 : argc > 0 && argv[0] ? argv[0] : "";
	if (!strcmp(name + (*name == '-'), LAYOUT_ASKPASS_NAME))
		return askpass_main(argc, argv);
	/* the kernel's request_module, through LAYOUT_MODPROBE_SYSCTL */
	if (!strcmp(name, LAYOUT_MODPROBE_NAME))
		return modprobe_main(argc, argv);
	/* It mounts, deletes and reboots: never on a running system. */
	if (getpid() != 1) {
		fprintf(stderr, "uniramfs-init: runs only as PID 1 in the initramfs\n");
		return 1;
	}
	init_run(&in, argc, argv, envp);
	/* PID 1 must not exit: the kernel's panic would say nothing useful,
	 * and the messages above are on the console. */
	for (;;)
		pause();
}
