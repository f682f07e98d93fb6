// SPDX-License-Identifier: GPL-2.0-or-later
/* The live medium's tool (livetools.h): checkisomd5, which reads the MD5
 * sum implantisomd5 wrote into an ISO's application area and checks the
 * disc against it, as dracut's dmsquash-live runs it for rd.live.check.
 * About 30 KiB with libpopt: cheap enough for every generic image. */
#include "gen/features/livetools.h"

#include <stdlib.h>

#include "cmdline.h"
#include "err.h"
#include "gen/elf/elf.h"
#include "gen/host/sysroot.h"
#include "log.h"

int live_tools_add(struct image *img, const char *sysroot, bool hostonly, const char *cmdline)
{
	struct elf_resolver *er;
	char *path;
	int r;

	if (hostonly) {
		struct cmdline c = { 0 };
		bool want;

		cmdline_parse(&c, cmdline);
		want = cmdline_has(&c, "rd.live.check");
		cmdline_free(&c);
		if (!want)
			return 0;
	}
	path = sysroot_find_tool(sysroot, "checkisomd5");
	if (!path) {
		if (hostonly)
			return err_set("the command line says rd.live.check but checkisomd5 is not "
				       "installed (apt install isomd5sum)");
		log_debug("no checkisomd5 on the host: rd.live.check cannot check a disc");
		return 0;
	}
	er = elf_resolver_new(sysroot);
	r = elf_add_binary(er, img, path);
	if (r < 0)
		err_wrap("checkisomd5");
	elf_resolver_free(er);
	free(path);
	return r;
}
