// SPDX-License-Identifier: GPL-2.0-or-later
/* /run/initramfs/shutdown: at the end of a shutdown, systemd-shutdown
 * (like dracut's and mkinitcpio's) pivots back into /run/initramfs,
 * leaves the old root at /oldroot and executes /shutdown VERB. From
 * here, outside the root, the root can really be unmounted: then the
 * device-mapper devices (LVM, LUKS) below it are removed and md arrays
 * stopped, so that every layer is clean before the power goes. Static,
 * no library, nothing read from the old root. An array whose metadata
 * mdmon keeps holds the old root (the root's mdmon runs from it): that
 * root ends read-only, and mdmon confirms the array clean (md_clean.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <linux/major.h>
#include <linux/raid/md_u.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "md_clean.h"
#include "plan.h"

#define OLDROOT "/oldroot"
/* mdadm --wait-clean allows as long */
#define MD_CLEAN_TIMEOUT_MS 20000

static int kmsg = -1;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char msg[512];
	int n;
	va_list ap;

	va_start(ap, fmt);
	n = snprintf(msg, sizeof(msg), "<5>uniramfs-shutdown: ");
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (kmsg < 0 || write(kmsg, msg, strlen(msg)) < 0)
		fprintf(stderr, "%s\n", msg + 3);
}

/* Unmount everything of the old root, on top first; what will not go
 * (still busy) is made read-only so that its filesystem is clean. */
static int unmount_old_root(void)
{
	int left = 0;

	for (int pass = 0; pass < 3; pass++) {
		char *mi = NULL;
		size_t len;
		struct strv mounts = { 0 };
		int r = read_file("/proc/self/mountinfo", &mi, &len);
		if (r < 0) {
			say("cannot read /proc/self/mountinfo: %s", strerror(-r));
			return r;
		}
		shutdown_mounts_below(mi, OLDROOT, &mounts);
		free(mi);
		left = 0;
		for (size_t i = 0; i < mounts.n; i++)
			if (umount2(mounts.v[i], 0) < 0) {
				if (pass == 2) {
					say("%s stays busy (%s): remounting it read-only", mounts.v[i], strerror(errno));
					mount(NULL, mounts.v[i], NULL, MS_REMOUNT | MS_RDONLY, NULL);
				}
				left++;
			}
		strv_free(&mounts);
		if (!left)
			break;
	}
	if (!left)
		say("the old root is unmounted");
	return left ? -1 : 0;
}

/* Remove every device-mapper device not in use; a stack (LVM on LUKS)
 * loses one layer a pass. */
static void remove_dm(void)
{
	int fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	for (int pass = 0; pass < 8; pass++) {
		struct dm_ioctl dmi = { 0 };
		struct {
			struct dm_ioctl h;
			char names[16384];
		} list = { 0 };
		struct dm_name_list *n;

		list.h.version[0] = DM_VERSION_MAJOR;
		list.h.data_size = sizeof(list);
		list.h.data_start = sizeof(list.h);
		if (ioctl(fd, DM_LIST_DEVICES, &list) < 0)
			break;
		n = (struct dm_name_list *)((char *)&list + list.h.data_start);
		if (list.h.data_size <= list.h.data_start || n->dev == 0) {
			say("no device-mapper devices left");
			break;
		}
		dmi.version[0] = DM_VERSION_MAJOR;
		dmi.data_size = sizeof(dmi);
		dmi.data_start = sizeof(dmi);
		if (ioctl(fd, DM_REMOVE_ALL, &dmi) < 0)
			say("removing device-mapper devices: %s", strerror(errno));
	}
	close(fd);
}

static void stop_md(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char dev[300];
		int fd;
		if (strncmp(e->d_name, "md", 2) != 0)
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", e->d_name);
		fd = open(dev, O_RDONLY | O_CLOEXEC | O_EXCL);
		if (fd < 0)
			continue;
		if (ioctl(fd, STOP_ARRAY, NULL) == 0)
			say("stopped %s", dev);
		else
			say("cannot stop %s: %s", dev, strerror(errno));
		close(fd);
	}
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	enum shutdown_verb verb = VERB_POWEROFF;

	kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (shutdown_verb_parse(argc > 1 ? argv[1] : NULL, &verb) < 0)
		say("%s: powering off", err_msg());
	say("back in the initramfs for %s", argc > 1 ? argv[1] : "poweroff");
	sync();
	unmount_old_root();
	remove_dm();
	md_wait_clean("/sys/block", "/run/mdadm", MD_CLEAN_TIMEOUT_MS, say);
	stop_md();
	sync();
	reboot(shutdown_verb_cmd(verb));
	/* kexec with no kernel loaded, or reboot refused */
	say("reboot(2): %s; powering off", strerror(errno));
	reboot(RB_POWER_OFF);
	return 1;
}
