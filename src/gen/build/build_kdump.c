// SPDX-License-Identifier: GPL-2.0-or-later
/* `uniramfs build --kdump`: the image a crash kernel boots (docs/kdump.md).
 * It runs in the memory crashkernel= reserved, on this machine only, to
 * save one dump and reboot, so it is this machine's hostonly image with
 * everything a dump does not use left out; the dump itself is
 * uniramfs's own kdump plugin (plugins/kdump.conf.in), packed through
 * its if-feature. */
#include "gen/build/build_kdump.h"

#include <stdlib.h>
#include <unistd.h>

#include "err.h"
#include "util.h"

int build_kdump_opts(struct build_opts *k, const struct build_opts *o)
{
	if (o->uki)
		return err_set("--kdump makes an image for kexec -p, not a --uki (kexec loads a kernel and an image)");
	if (o->format != FORMAT_CPIO)
		return err_set("--kdump makes an image for kexec -p, not a --format gen_init_cpio list");
	*k = *o;
	/* the dump target is this machine's root */
	k->mode = MODE_HOSTONLY;
	/* a generic image beside it would be for other hardware: the
	 * crash kernel boots where it was loaded */
	k->fallback = 0;
	/* nobody is there to use a shell or see a splash; the microcode
	 * is loaded already; a squashfs costs a loop device and its
	 * modules where everything is read once */
	k->rescue.shell = RESCUE_SHELL_NO;
	k->microcode = MICROCODE_NONE;
	k->squashfs = SQUASHFS_NO;
	k->ssh_unlock = SSH_NO;
	k->plymouth = PLYMOUTH_NO;
	k->overlay_tools = 0;
	k->live_https = 0;
	return 0;
}

char *build_kdump_output(const char *sysroot, const char *kver)
{
	char *deb = path_join(sysroot, "/etc/debian_version");
	/* where kdump-tools' KDUMP_INITRD link points, and kdumpctl's */
	char *out = access(deb, F_OK) == 0 ? xasprintf("/var/lib/kdump/initrd.img-%s", kver)
					   : xasprintf("/boot/initramfs-%skdump.img", kver);
	free(deb);
	return out;
}
