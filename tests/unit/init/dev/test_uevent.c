// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "fake_ops.h"
#include "test.h"
#include "init/dev/uevent.h"

static void test_parse_kernel_message(void)
{
	static const char msg[] = "add@/devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1\0"
				  "ACTION=add\0"
				  "DEVPATH=/devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1\0"
				  "SUBSYSTEM=block\0"
				  "MAJOR=254\0"
				  "MINOR=1\0"
				  "DEVNAME=vda1\0"
				  "DEVTYPE=partition\0"
				  "DISKSEQ=9\0"
				  "PARTN=1\0"
				  "SEQNUM=1234\0";
	char buf[sizeof(msg)];
	struct uevent ev;

	memcpy(buf, msg, sizeof(msg));
	CHECK(uevent_parse(buf, sizeof(msg) - 1, &ev) == 0);
	CHECK_STR(ev.action, "add");
	CHECK_STR(ev.devpath, "/devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1");
	CHECK_STR(ev.subsystem, "block");
	CHECK_STR(ev.devname, "vda1");
	CHECK_STR(ev.devtype, "partition");
	CHECK(ev.modalias == NULL);
	CHECK(ev.major == 254 && ev.minor == 1);
	CHECK(ev.seqnum == 1234);

	static const char msg2[] = "bind@/devices/pci0000:00/0000:00:04.0\0"
				   "ACTION=bind\0DEVPATH=/devices/pci0000:00/0000:00:04.0\0"
				   "SUBSYSTEM=pci\0DRIVER=virtio-pci\0"
				   "MODALIAS=pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00\0"
				   "SEQNUM=7\0";
	memcpy(buf, msg2, sizeof(msg2));
	CHECK(uevent_parse(buf, sizeof(msg2) - 1, &ev) == 0);
	CHECK_STR(ev.action, "bind");
	CHECK_STR(ev.subsystem, "pci");
	CHECK_STR(ev.modalias, "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00");
	CHECK(ev.devname == NULL && ev.devtype == NULL && ev.major == 0);
	CHECK(ev.seqnum == 7);

	/* only the header: still an event (action and devpath from it) */
	char hdr[] = "remove@/devices/virtual/block/loop0";
	CHECK(uevent_parse(hdr, sizeof(hdr), &ev) == 0);
	CHECK_STR(ev.action, "remove");
	CHECK_STR(ev.devpath, "/devices/virtual/block/loop0");
}

static int parse_str(const char *s, size_t len)
{
	char *b = xmalloc(len ? len : 1);
	struct uevent ev;
	memcpy(b, s, len);
	int r = uevent_parse(b, len, &ev);
	free(b);
	return r;
}

static void test_parse_garbage(void)
{
	static const char udev[] = "libudev\0\xfe\xed\xca\xfe....SUBSYSTEM=block";
	CHECK(parse_str("", 0) < 0);
	CHECK(parse_str("add", 3) < 0);
	CHECK(parse_str("add@/devices/x", 14) < 0); /* no NUL within len */
	CHECK(parse_str("@/devices/x\0", 12) < 0);
	CHECK(parse_str("add@\0ACTION=add\0", 16) < 0);
	CHECK(parse_str("hello world\0", 12) < 0);
	CHECK(parse_str(udev, sizeof(udev) - 1) < 0);
	CHECK(parse_str("add@/devices/x\0MAJOR=abc\0", 25) < 0);
	CHECK(parse_str("add@/devices/x\0MINOR=99999999999\0", 33) < 0);
	CHECK(parse_str("add@/devices/x\0ACTION=\0", 23) < 0);
	/* an unterminated last field is ignored, never read past len */
	struct uevent ev;
	char t[] = "add@/devices/x\0SUBSYSTEM=pc";
	CHECK(uevent_parse(t, sizeof(t) - 1, &ev) == 0);
	CHECK(ev.subsystem == NULL);

	/* random bytes, some with the shape of a message: no crash */
	unsigned seed = 42;
	for (int i = 0; i < 20000; i++) {
		char b[64];
		size_t len = (size_t)(rand_r(&seed) % (int)sizeof(b));
		for (size_t j = 0; j < len; j++) {
			static const char alpha[] = "a@/=\0MAJORINSEQUMBTDEVPAH";
			b[j] = (rand_r(&seed) & 1) ? alpha[rand_r(&seed) % (sizeof(alpha) - 1)]
						    : (char)rand_r(&seed);
		}
		if (uevent_parse(b, len, &ev) == 0)
			CHECK(ev.action && *ev.action && ev.devpath && *ev.devpath);
	}
}

static struct strv events;

static void record(const struct uevent *ev, void *userdata)
{
	(*(int *)userdata)++;
	if (ev->modalias)
		strv_push_owned(&events, xasprintf("%s %s %s %s", ev->action, ev->devpath,
						   ev->subsystem ? ev->subsystem : "-",
						   ev->modalias));
	else
		strv_push_owned(&events, xasprintf("%s %s %s %s %s %u:%u", ev->action,
						   ev->devpath, ev->subsystem,
						   ev->devtype ? ev->devtype : "-", ev->devname,
						   ev->major, ev->minor));
}

#define PCI "/sys/devices/pci0000:00/0000:00:04.0"

static void test_coldplug_fake_sysfs(void)
{
	struct fake_ops *f = fake_ops_new();
	int n = 0;

	fake_write(f, PCI "/modalias",
		   "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00\n");
	fake_symlink(f, "../../../bus/pci", PCI "/subsystem");
	fake_write(f, PCI "/virtio1/modalias", "virtio:d00000002v00001AF4\n");
	fake_symlink(f, "../../../../bus/virtio", PCI "/virtio1/subsystem");
	fake_write(f, PCI "/virtio1/block/vda/dev", "254:0\n");
	fake_write(f, PCI "/virtio1/block/vda/uevent",
		   "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\nDISKSEQ=9\n");
	fake_write(f, PCI "/virtio1/block/vda/vda1/dev", "254:1\n");
	fake_write(f, PCI "/virtio1/block/vda/vda1/uevent",
		   "MAJOR=254\nMINOR=1\nDEVNAME=vda1\nDEVTYPE=partition\nPARTN=1\n");
	/* symlinks that would loop or leave the tree are not followed */
	fake_symlink(f, "../../..", PCI "/virtio1/loop");
	fake_symlink(f, "../../../0000:00:04.0", PCI "/virtio1/driver");
	/* a device without modalias, and an empty one, give no event */
	fake_write(f, "/sys/devices/platform/serial8250/uevent", "DRIVER=serial8250\n");
	fake_write(f, "/sys/devices/platform/empty/modalias", "\n");
	/* "power" is every device's attribute group, never a device: not
	 * walked (a modalias there would be an event) */
	fake_write(f, PCI "/power/modalias", "pci:v00008086d00001234sv0sd0bc01sc00i00\n");
	fake_write(f, PCI "/power/control", "auto\n");
	fake_write(f, "/sys/devices/platform/i8042/serio0/modalias",
		   "serio:ty01pr00id00ex00\n");
	fake_symlink(f, "../../../../bus/serio", "/sys/devices/platform/i8042/serio0/subsystem");
	fake_symlink(f, "../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1",
		     "/sys/class/block/vda1");
	fake_symlink(f, "../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda",
		     "/sys/class/block/vda");

	strv_free(&events);
	CHECK(uevent_coldplug(&f->ops, record, &n) == 0);
	CHECK(n == 5);
	CHECK(events.n == 5);
	if (events.n == 5) {
		CHECK_STR(events.v[0], "add /devices/pci0000:00/0000:00:04.0 pci "
				       "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00");
		CHECK_STR(events.v[1], "add /devices/pci0000:00/0000:00:04.0/virtio1 virtio "
				       "virtio:d00000002v00001AF4");
		CHECK_STR(events.v[2], "add /devices/platform/i8042/serio0 serio "
				       "serio:ty01pr00id00ex00");
		CHECK_STR(events.v[3], "add /devices/pci0000:00/0000:00:04.0/virtio1/block/vda "
				       "block disk vda 254:0");
		CHECK_STR(events.v[4], "add /devices/pci0000:00/0000:00:04.0/virtio1/block/vda/"
				       "vda1 block partition vda1 254:1");
	}
	for (size_t i = 0; test_cur_failed && i < events.n; i++)
		printf("#   %s\n", events.v[i]);
	strv_free(&events);
	fake_ops_free(f);

	/* no /sys at all */
	f = fake_ops_new();
	CHECK(uevent_coldplug(&f->ops, record, &n) < 0);
	CHECK(strstr(err_msg(), "/sys/devices: No such file or directory") != NULL);
	fake_ops_free(f);
}

static struct fake_ops *adding;

/* Like a driver: loading for the PCI device makes its virtio child. */
static void add_child(const struct uevent *ev, void *userdata)
{
	if (strcmp(ev->subsystem, "pci") == 0) {
		fake_write(adding, PCI "/virtio2/modalias", "virtio:d00000001v00001AF4\n");
		fake_symlink(adding, "../../../../bus/virtio", PCI "/virtio2/subsystem");
	}
	record(ev, userdata);
}

static void test_coldplug_sees_children_added_by_driver(void)
{
	struct fake_ops *f = fake_ops_new();
	int n = 0;

	adding = f;
	fake_write(f, PCI "/modalias", "pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00\n");
	fake_symlink(f, "../../../bus/pci", PCI "/subsystem");
	strv_free(&events);
	CHECK(uevent_coldplug(&f->ops, add_child, &n) == 0);
	CHECK(n == 2);
	CHECK(events.n == 2 && strcmp(events.v[1], "add /devices/pci0000:00/0000:00:04.0/virtio2 "
						   "virtio virtio:d00000001v00001AF4") == 0);
	strv_free(&events);
	fake_ops_free(f);
}

static char *real_path(const char *p)
{
	return xstrdup(p);
}

static void count_only(const struct uevent *ev, void *userdata)
{
	(void)ev;
	(*(int *)userdata)++;
}

/* The machine's own sysfs: something is found, and how long it takes. */
static void test_coldplug_real_sys(void)
{
	struct sysops ops = { .path = real_path };
	struct timespec a, b;
	int n = 0;

	if (access("/sys/devices", R_OK) < 0)
		SKIP("no /sys");
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(uevent_coldplug(&ops, count_only, &n) == 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("# /sys: %d events in %.1f ms\n", n,
	       (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	CHECK(n > 0);
}

static void test_open_socket(void)
{
	int fd = uevent_open();
	if (fd == -EPERM || fd == -EPROTONOSUPPORT || fd == -EACCES)
		SKIP("no uevent netlink here");
	CHECK(fd >= 0);
	if (fd < 0) {
		printf("# %s\n", err_msg());
		return;
	}
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	char buf[16];
	ssize_t r = recv(fd, buf, sizeof(buf), 0); /* must not block */
	CHECK(r >= 0 || errno == EAGAIN);
	close(fd);
}

int main(void)
{
	RUN(test_parse_kernel_message);
	RUN(test_parse_garbage);
	RUN(test_coldplug_fake_sysfs);
	RUN(test_coldplug_sees_children_added_by_driver);
	RUN(test_coldplug_real_sys);
	RUN(test_open_socket);
	return test_done();
}
