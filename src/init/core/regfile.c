// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/core/regfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "init/core/inroot.h"
#include "util.h"

/* fd's whole content, checked as regfile_read() says; fd is closed */
static int read_whole(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	ssize_t got;
	char *data;
	int r = 0;

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

int regfile_read(const struct sysops *ops, const char *path, size_t max, char **out, size_t *len)
{
	int fd = ops->open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);

	if (fd < 0)
		return fd;
	return read_whole(fd, max, out, len);
}

int regfile_read_in_root(const struct sysops *ops, const char *root, const char *rel, size_t max,
			 char **out, size_t *len)
{
	char *real = ops->path(root);
	int rootfd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	free(real);
	if (rootfd < 0)
		return -errno;
	fd = inroot_open(rootfd, rel, O_RDONLY | O_NONBLOCK);
	close(rootfd);
	if (fd < 0)
		return fd;
	return read_whole(fd, max, out, len);
}
