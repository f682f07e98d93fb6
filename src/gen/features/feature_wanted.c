// SPDX-License-Identifier: GPL-2.0-or-later
/* One rule for the features a command line asks for (feature_wanted.h).
 * A generic image never reads this machine's command line: it is built
 * for others. */
#include "gen/features/feature_wanted.h"

#include <stdlib.h>

#include "gen/host/sysroot.h"

bool feature_wanted(bool yes, const char *cmdline, const char *sysroot, bool hostonly,
		    bool (*asked)(const char *line))
{
	char *data = NULL;
	size_t len;
	bool r;

	if (yes || asked(cmdline))
		return true;
	if (!hostonly || sysroot_read(sysroot, "/proc/cmdline", &data, &len) < 0)
		return false;
	r = asked(data);
	free(data);
	return r;
}
