// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/core/regfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int regfile_read(const struct sysops *ops, const char *path, size_t max, char **out, size_t *len)
{
	int fd = ops->open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0), r = 0;
	struct stat st;
	ssize_t got;
	char *data;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return -EFBIG;
	}
	data = xmalloc((size_t)st.st_size + 1);
	/* one byte more than its size: a file that grew is told apart */
	do
		got = read(fd, data, (size_t)st.st_size + 1);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		r = -errno;
	else if (got != st.st_size)
		r = -EIO;
	close(fd);
	if (r < 0) {
		free(data);
		return r;
	}
	data[got] = '\0';
	*out = data;
	*len = (size_t)got;
	return 0;
}
