// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mountinit: the /sbin/init of dracut TEST-44's replay root, in front of
 * testinit.  Where TEST-44's root has systemd mount an xfs /mnt from its
 * fstab, this mounts what mountinit.mount=DEV:DIR:TYPE names, read-only:
 * the kernel then asks the root's own /sbin/modprobe for fs-TYPE, which
 * can load only from the modules the initramfs exported (the root has
 * none).  It says how the mount went on the console and becomes testinit
 * (same pid, same argv), which reports as on every root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096], spec[256] = "", *dir, *type;
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	FILE *out = fopen("/dev/console", "we");

	(void)argc;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *w = strtok(buf, " \n"); w; w = strtok(NULL, " \n"))
		if (!strncmp(w, "mountinit.mount=", 16))
			snprintf(spec, sizeof(spec), "%s", w + 16);
	if (out && *spec && (dir = strchr(spec, ':')) && (type = strchr(dir + 1, ':'))) {
		*dir++ = '\0';
		*type++ = '\0';
		if (mount(spec, dir, type, MS_RDONLY, NULL) < 0)
			fprintf(out, "MOUNTINIT: mount %s on %s (%s): %s\n", spec, dir, type,
				strerror(errno));
		else
			fprintf(out, "MOUNTINIT: mount %s on %s (%s): ok\n", spec, dir, type);
		fflush(out);
	}
	if (out)
		fclose(out);
	execv("/sbin/testinit", argv);
	return 127;
}
