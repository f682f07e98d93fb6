// SPDX-License-Identifier: GPL-2.0-or-later
/* What a hostonly root cannot boot without a plugin: the layers the init
 * has no built-in row for. A root on dm-multipath packs dm_multipath
 * from hostonly alone, but nothing would build the map at boot and the
 * root= UUID would match one raw path (both carry the filesystem), so
 * such a build fails here, naming what is missing, instead of writing
 * an image that mounts a path. */
#include "gen/plugins/plugin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/host/sysroot.h"

static bool needs_multipath(const struct plugin_facts *f)
{
	return strv_contains(&f->modules, "dm_multipath") || strv_contains(&f->modules, "dm-multipath");
}

/* A packed plugin that builds multipath maps before root= is matched:
 * a claim row, with multipath among its programs. */
static const struct plugin *map_builder(const struct plugins *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].on && ps->v[i].claim_globs.v.n && strv_contains(&ps->v[i].programs.v, "multipath"))
			return &ps->v[i];
	return NULL;
}

int plugins_check_needed(const struct plugins *ps, const char *sysroot, const struct plugin_facts *f)
{
	const struct plugin *p;
	char *tool;

	if (!f->hostonly || !needs_multipath(f))
		return 0;
	if (!(p = map_builder(ps)))
		return err_set("hostonly: the root is on dm-multipath, but no plugin builds its maps at boot "
			       "(the image would mount one path of it): uniramfs's multipath plugin "
			       "(/usr/lib/uniramfs/plugins.d/multipath.conf) is missing or turned off; "
			       "reinstall uniramfs or add it with --plugin");
	tool = sysroot_find_tool(sysroot, "multipath");
	free(tool);
	if (!tool)
		return err_set("hostonly: the root is on dm-multipath, but %s cannot pack multipath: "
			       "multipath-tools is not installed (apt install multipath-tools)", p->shown);
	return 0;
}
