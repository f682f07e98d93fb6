// SPDX-License-Identifier: GPL-2.0-or-later
/* The end of the mdmon hand-over (the init starts mdmon --offroot, the
 * root's mdmon@.service takes over): at power-off the root's mdmon is
 * still running, spared by systemd-shutdown (argv[0] starts with '@'),
 * and still holds the old root, which is therefore read-only, not
 * unmounted. What is left is what mdadm --wait-clean does in dracut's
 * shutdown: wait until the kernel calls each array idle, then have mdmon
 * confirm that it wrote the metadata. */
#include "md_clean.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* mdmon's socket framing (mdadm's msg.c): start magic, a length, the
 * payload, end magic; host byte order. An empty message is a ping. */
#define MDMON_START_MAGIC 0x5a5aa5a5u
#define MDMON_END_MAGIC 0xa5a55a5au
#define MDMON_MAX_REPLY 4096

#define SETTLE_STEP_MS 50

int md_external_container(const char *mv, char *out, size_t outlen)
{
	const char *p = mv, *end;
	size_t n;

	if (str_has_prefix(p, "external:"))
		p += strlen("external:");
	if (*p != '/' && *p != '-')
		return -EINVAL;
	p++;
	end = strchr(p, '/');
	n = end ? (size_t)(end - p) : 0;
	if (!n || n >= outlen || !str_has_prefix(p, "md"))
		return -EINVAL;
	for (size_t i = 2; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return -EINVAL;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

bool md_state_settled(const char *s)
{
	static const char *const settled[] = { "clean", "inactive", "readonly", "read-auto", "clear" };
	size_t n = strcspn(s, "\n");

	for (size_t i = 0; i < ARRAY_SIZE(settled); i++)
		if (strlen(settled[i]) == n && !strncmp(s, settled[i], n))
			return true;
	return false;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Move len bytes to or from fd before the deadline. */
static int xfer(int fd, void *buf, size_t len, bool out, long long deadline)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = out ? POLLOUT : POLLIN };
		long long left = deadline - mono_ms();
		ssize_t n;
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPROTO; /* mdmon hung up before it answered */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int md_ping_monitor(const char *sock_path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint32_t ping[3] = { MDMON_START_MAGIC, 0, MDMON_END_MAGIC };
	uint32_t head[2], tail;
	char skip[256];
	long long deadline = mono_ms() + timeout_ms;
	int fd, r;

	if (strlen(sock_path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		goto out;
	}
	r = xfer(fd, ping, sizeof(ping), true, deadline);
	if (r == 0)
		r = xfer(fd, head, sizeof(head), false, deadline);
	if (r == 0 && (head[0] != MDMON_START_MAGIC || (int32_t)head[1] < 0 || head[1] > MDMON_MAX_REPLY))
		r = -EPROTO;
	/* a reply may carry text (mdmon's version): read past it */
	for (uint32_t left = r == 0 ? head[1] : 0; r == 0 && left;) {
		size_t n = left < sizeof(skip) ? left : sizeof(skip);
		r = xfer(fd, skip, n, false, deadline);
		left -= (uint32_t)n;
	}
	if (r == 0)
		r = xfer(fd, &tail, sizeof(tail), false, deadline);
	if (r == 0 && tail != MDMON_END_MAGIC)
		r = -EPROTO;
out:
	close(fd);
	return r;
}

/* The first line of DIR/NAME/md/ATTR, or -errno. */
static int md_attr(const char *sys_block, const char *name, const char *attr, char *out, size_t outlen)
{
	char path[512];
	char *text = NULL;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/%s/md/%s", sys_block, name, attr);
	r = read_file(path, &text, &len);
	if (r < 0)
		return r;
	snprintf(out, outlen, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	return 0;
}

static bool wait_settled(const char *sys_block, const char *name, long long deadline, char *state,
			 size_t statelen)
{
	for (;;) {
		if (md_attr(sys_block, name, "array_state", state, statelen) < 0)
			return false;
		if (md_state_settled(state))
			return true;
		if (mono_ms() >= deadline)
			return false;
		usleep(SETTLE_STEP_MS * 1000);
	}
}

int md_wait_clean(const char *sys_block, const char *run_mdadm, int timeout_ms,
		  void (*say)(const char *fmt, ...))
{
	long long deadline = mono_ms() + timeout_ms;
	DIR *d = opendir(sys_block);
	struct dirent *e;
	int unclean = 0;

	while (d && (e = readdir(d))) {
		char mv[128], container[64], state[64] = "", sock[512];
		int r;

		if (strncmp(e->d_name, "md", 2) != 0)
			continue;
		if (md_attr(sys_block, e->d_name, "metadata_version", mv, sizeof(mv)) < 0 ||
		    md_external_container(mv, container, sizeof(container)) < 0)
			continue;
		if (!wait_settled(sys_block, e->d_name, deadline, state, sizeof(state))) {
			say("%s is still %s after %d s: its metadata may be left dirty (a resync at the next boot)",
			    e->d_name, *state ? state : "unreadable", timeout_ms / 1000);
			unclean++;
			continue;
		}
		snprintf(sock, sizeof(sock), "%s/%s.sock", run_mdadm, container);
		r = md_ping_monitor(sock, (int)(deadline > mono_ms() ? deadline - mono_ms() : 1));
		if (r < 0) {
			say("%s is %s, but %s's mdmon did not confirm its metadata (%s)", e->d_name, state,
			    container, strerror(-r));
			unclean++;
			continue;
		}
		say("%s is %s: %s's mdmon confirmed its metadata", e->d_name, state, container);
	}
	if (d)
		closedir(d);
	return unclean;
}
