// SPDX-License-Identifier: GPL-2.0-or-later
/* A rescue shell in every image: dracut, initramfs-tools and mkinitcpio
 * all give one when the root is not found, and a person whose boot
 * failed needs something to look around with (issue 24). Who may use it
 * is the init's decision (stages/failure.c). */
#include "gen/features/rescue.h"

#include <stdlib.h>

#include "err.h"
#include "gen/elf/elf.h"
#include "gen/host/sysroot.h"
#include "log.h"

static int add_busybox(struct image *img, const char *sysroot, enum rescue_shell mode)
{
	struct elf_resolver *er;
	char *path;
	int r;

	if (mode == RESCUE_SHELL_NO)
		return 0;
	path = sysroot_find_tool(sysroot, "busybox");
	if (!path) {
		if (mode == RESCUE_SHELL_YES)
			return err_set("rescue_shell = yes, but busybox is not installed "
				       "(apt install busybox-static)");
		log_notice("no busybox on the host (apt install busybox-static): this image has "
			   "no rescue shell");
		return 0;
	}
	if (image_has(img, path)) {
		free(path);
		return 0;
	}
	er = elf_resolver_new(sysroot);
	r = elf_add_binary(er, img, path);
	if (r == 0)
		log_info("rescue shell: %s", path);
	elf_resolver_free(er);
	free(path);
	return r;
}

int rescue_plan_add(struct image *img, const char *sysroot, const struct build_opts *o)
{
	return add_busybox(img, sysroot, o->rescue_shell);
}
