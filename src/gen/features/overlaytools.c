// SPDX-License-Identifier: GPL-2.0-or-later
/* The overlay's tools (overlaytools.h). They format disks, so a generic
 * image carries them only when asked: dracut too packs its
 * overlayfs-crypt and dmsquash-live-autooverlay modules only on --add. */
#include "gen/features/overlaytools.h"

#include <string.h>

#include "cmdline.h"
#include "gen/features/feature_wanted.h"
#include "util.h"

bool overlay_tools_asked(const char *line)
{
	struct cmdline c = { 0 };
	const struct cmdline_param *crypt, *root, *ovl, *old;
	bool asked, live;

	if (!line)
		return false;
	cmdline_parse(&c, line);
	crypt = cmdline_last(&c, "rd.overlay.crypt");
	root = cmdline_last(&c, "root");
	ovl = cmdline_last(&c, "rd.overlay");
	old = cmdline_last(&c, "rd.live.overlay");
	live = cmdline_has(&c, "rd.live.image") || (root && root->val && str_has_prefix(root->val, "live:"));
	asked = (crypt && crypt->val && *crypt->val) ||
		(live && ((ovl && ovl->val && str_has_prefix(ovl->val, "LABEL=")) ||
			  (old && old->val && str_has_prefix(old->val, "LABEL="))));
	cmdline_free(&c);
	return asked;
}

bool overlay_tools_wanted(bool yes, const char *cmdline, const char *sysroot, bool hostonly)
{
	return feature_wanted(yes, cmdline, sysroot, hostonly, overlay_tools_asked);
}
