// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel uevents: the netlink socket, the message format, and coldplug
 * (synthesising "add" for what existed before the socket was open).
 *
 * Coldplug reads sysfs directly instead of writing "add" to every
 * uevent file as udev's trigger does: that would make the kernel send
 * thousands of messages (and rerun its own handlers) just so we can
 * read back what the files already say. The walk uses openat and d_type
 * and never follows symlinks, so /sys/devices is a tree and the walk
 * cannot loop. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/uevent.h"
#include "log.h"
#include "util.h"

int uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	/* Coldplug loads modules while devices keep announcing themselves:
	 * a buffer that cannot overflow in that time avoids lost events. */
	int size = 128 * 1024 * 1024;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return err_errno(errno, "cannot open the uevent socket");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0)
		log_warn("cannot enlarge the uevent socket's buffer: %m");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		close(fd);
		return err_errno(e, "cannot bind the uevent socket");
	}
	return fd;
}

static bool parse_uint(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT_MAX)
		return false;
	*out = (unsigned)v;
	return true;
}

int uevent_parse(char *buf, size_t len, struct uevent *ev)
{
	char *end = buf + len, *p = buf, *at;
	size_t n;

	memset(ev, 0, sizeof(*ev));
	/* udev's re-broadcasts on group 2 start with "libudev\0"; only the
	 * kernel's own messages are wanted here. */
	if (len >= 8 && memcmp(buf, "libudev", 8) == 0)
		return -EINVAL;
	n = strnlen(p, len);
	if (n == len || !(at = memchr(p, '@', n)) || at == p || at[1] != '/')
		return -EINVAL;
	*at = '\0';
	ev->action = p;
	ev->devpath = at + 1;
	for (p += n + 1; p < end; p += n + 1) {
		n = strnlen(p, (size_t)(end - p));
		if (p + n == end)
			break; /* unterminated tail: never read past len */
		char *eq = strchr(p, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *k = p, *v = eq + 1;
		if (strcmp(k, "ACTION") == 0)
			ev->action = v;
		else if (strcmp(k, "DEVPATH") == 0)
			ev->devpath = v;
		else if (strcmp(k, "SUBSYSTEM") == 0)
			ev->subsystem = v;
		else if (strcmp(k, "DEVTYPE") == 0)
			ev->devtype = v;
		else if (strcmp(k, "DEVNAME") == 0)
			ev->devname = v;
		else if (strcmp(k, "MODALIAS") == 0)
			ev->modalias = v;
		else if (strcmp(k, "MAJOR") == 0 && !parse_uint(v, &ev->major))
			return -EINVAL;
		else if (strcmp(k, "MINOR") == 0 && !parse_uint(v, &ev->minor))
			return -EINVAL;
		else if (strcmp(k, "SEQNUM") == 0)
			ev->seqnum = strtoll(v, NULL, 10);
	}
	if (!*ev->action || !*ev->devpath)
		return -EINVAL;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of a directory's entries, sorted, so devices come in a stable
 * order; dirs_only keeps real directories (not symlinks). */
static int list_dir(int dfd, bool dirs_only, struct strv *out)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		int e = -errno;
		if (fd >= 0)
			close(fd);
		return e;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		unsigned char t = de->d_type;
		if (t == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			t = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (!dirs_only || t == DT_DIR)
			strv_push(out, de->d_name);
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_name);
	return 0;
}

static char *subsystem_of(int dfd)
{
	char link[PATH_MAX];
	ssize_t n = readlinkat(dfd, "subsystem", link, sizeof(link) - 1);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	const char *base = strrchr(link, '/');
	return xstrdup(base ? base + 1 : link);
}

/* The device's own modalias first, its children after: a driver loaded
 * by fn may add children (virtio_pci adds virtio1), and listing the
 * directory only now lets this same walk find them. */
static void walk(int dfd, struct buf *devpath, int depth, uevent_fn fn, void *userdata,
		 unsigned *count)
{
	struct strv subdirs = { 0 };
	char *modalias;
	size_t len;

	if (depth > 64)
		return;
	if (read_file_at(dfd, "modalias", &modalias, &len) == 0) {
		while (len && (modalias[len - 1] == '\n' || modalias[len - 1] == ' '))
			modalias[--len] = '\0';
		char *subsys = subsystem_of(dfd);
		struct uevent ev = {
			.action = "add",
			.devpath = devpath->p,
			.subsystem = subsys,
			.modalias = modalias,
		};
		if (len) {
			fn(&ev, userdata);
			(*count)++;
		}
		free(subsys);
		free(modalias);
	}
	if (list_dir(dfd, true, &subdirs) < 0)
		return;
	size_t keep = devpath->len;
	for (size_t i = 0; i < subdirs.n; i++) {
		int sub;

		/* Every device has a "power" attribute group, so no child
		 * device can have that name: it holds nothing to walk, and
		 * it is 220 of a QEMU guest's 507 directories. */
		if (strcmp(subdirs.v[i], "power") == 0)
			continue;
		sub = openat(dfd, subdirs.v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		buf_printf(devpath, "/%s", subdirs.v[i]);
		walk(sub, devpath, depth + 1, fn, userdata, count);
		close(sub);
		devpath->len = keep;
		devpath->p[keep] = '\0';
	}
	strv_free(&subdirs);
}

/* "DEVTYPE=partition\n" from a uevent file, NULL if absent. */
static char *uevent_key(const char *data, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = data; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		if (strncmp(l, key, kl) == 0 && l[kl] == '=')
			return xstrndup(l + kl + 1, strcspn(l + kl + 1, "\n"));
	}
	return NULL;
}

static void block_one(int cfd, const char *name, uevent_fn fn, void *userdata,
		      unsigned *count)
{
	char link[PATH_MAX], *dev = NULL, *uev = NULL, *devtype = NULL, *devname = NULL;
	int fd = openat(cfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct uevent ev = { .action = "add", .subsystem = "block" };
	unsigned maj, min;

	if (fd < 0)
		return;
	if (read_file_at(fd, "dev", &dev, NULL) < 0 ||
	    sscanf(dev, "%u:%u", &maj, &min) != 2) {
		log_debug("/sys/class/block/%s: no usable dev file", name);
		goto out;
	}
	if (read_file_at(fd, "uevent", &uev, NULL) == 0) {
		devtype = uevent_key(uev, "DEVTYPE");
		devname = uevent_key(uev, "DEVNAME");
	}
	/* "../../devices/pci0000:00/.../block/vda" -> "/devices/..." */
	ssize_t n = readlinkat(cfd, name, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	char *dp = strstr(link, "/devices/");
	char *fallback = xasprintf("/class/block/%s", name);
	ev.devpath = dp ? dp : fallback;
	ev.devname = devname ? devname : name;
	ev.devtype = devtype;
	ev.major = maj;
	ev.minor = min;
	fn(&ev, userdata);
	(*count)++;
	free(fallback);
out:
	free(dev);
	free(uev);
	free(devtype);
	free(devname);
	close(fd);
}

int uevent_coldplug(const struct sysops *ops, uevent_fn fn, void *userdata)
{
	char *root = ops->path("/sys/devices");
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct buf devpath = { 0 };
	unsigned count = 0;

	if (dfd < 0) {
		int e = err_errno(errno, "cannot open %s", root);
		free(root);
		return e;
	}
	free(root);
	buf_printf(&devpath, "/devices");
	walk(dfd, &devpath, 0, fn, userdata, &count);
	close(dfd);
	buf_free(&devpath);
	log_debug("coldplug: %u devices with a modalias", count);

	/* Block devices after the drivers: their modules are loaded by now,
	 * and the caller probes each one. */
	root = ops->path("/sys/class/block");
	int cfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(root);
	if (cfd < 0)
		return 0; /* no block device at all is not an error here */
	struct strv names = { 0 };
	list_dir(cfd, false, &names);
	count = 0;
	for (size_t i = 0; i < names.n; i++)
		block_one(cfd, names.v[i], fn, userdata, &count);
	strv_free(&names);
	close(cfd);
	log_debug("coldplug: %u block devices", count);
	return 0;
}
