// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/host/rmtree.h"

#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) < 0)
		log_warn("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

void rm_tree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_PHYS | FTW_DEPTH | FTW_MOUNT);
}
