// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/core/inroot.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

int inroot_open(int rootfd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (unsigned)flags | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd = -1;

	/* EAGAIN: a rename elsewhere raced the lookup; the kernel asks for
	 * a retry, which a bounded loop gives */
	for (int tries = 0; tries < 16; tries++) {
		fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	if (fd < 0 && errno == ENOSYS)
		fd = openat(rootfd, rel, flags | O_NOFOLLOW | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}
