// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/host/companion.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildconf.h"
#include "util.h"

char *companion_find(const char *const *beside, size_t n, const char *name, int mode)
{
	char self[PATH_MAX], *c;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len > 0) {
		self[len] = '\0';
		*strrchr(self, '/') = '\0';
		for (size_t i = 0; i < n; i++) {
			c = path_join(self, beside[i]);
			if (access(c, mode) == 0)
				return c;
			free(c);
		}
	}
	c = path_join(UNIRAMFS_LIBEXECDIR, name);
	if (access(c, mode) == 0)
		return c;
	free(c);
	return NULL;
}
