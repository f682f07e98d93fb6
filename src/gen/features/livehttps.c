// SPDX-License-Identifier: GPL-2.0-or-later
/* The HTTPS download's tools (livehttps.h). curl, libcurl, OpenSSL and
 * the CA bundle are a few MB that no other root needs: a generic image
 * carries them only when asked, as dracut's livenet is an --add. */
#include "gen/features/livehttps.h"

#include <string.h>

#include "cmdline.h"
#include "gen/features/feature_wanted.h"
#include "util.h"

bool live_https_asked(const char *line)
{
	struct cmdline c = { 0 };
	const struct cmdline_param *root;
	bool asked;

	if (!line)
		return false;
	cmdline_parse(&c, line);
	root = cmdline_last(&c, "root");
	asked = root && root->val && (str_has_prefix(root->val, "https://") ||
				      str_has_prefix(root->val, "live:https://"));
	cmdline_free(&c);
	return asked;
}

bool live_https_wanted(bool yes, const char *cmdline, const char *sysroot, bool hostonly)
{
	return feature_wanted(yes, cmdline, sysroot, hostonly, live_https_asked);
}
