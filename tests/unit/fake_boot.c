// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_boot.h"
#include "must.h"
#include "err.h"
#include "init/core/kmsg.h"

struct fake_ops *fake_boot_tree;
const char *fake_boot_kver = KVER;
int fake_boot_spawns;
char *fake_boot_ext4;
char *fake_boot_kernel_env[] = { "HOME=/", "TERM=linux", NULL };

int fake_boot_uname(char *buf, size_t len)
{
	snprintf(buf, len, "%s", fake_boot_kver);
	return 0;
}

pid_t fake_boot_spawn(const char *path, char *const argv[], char *const envp[])
{
	pid_t pid;

	(void)envp;
	strv_push_owned(&fake_boot_tree->log, xasprintf("spawn %s %s", path, argv[0]));
	if (fake_boot_spawns <= 0)
		return err_errno(ENOSYS, "fork");
	fake_boot_spawns--;
	pid = fork();
	if (pid == 0)
		_exit(0);
	return pid;
}

bool fake_boot_make_ext4(void)
{
	char cmd[512];

	if (fake_boot_ext4)
		return true;
	fake_boot_ext4 = xasprintf("%s/uniramfs-test-ext4-%d.img",
				   getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "mkfs.ext4 -q -F -U " UUID " -L rootfs %s 8M >/dev/null 2>&1", fake_boot_ext4);
	if (system(cmd) != 0) {
		free(fake_boot_ext4);
		fake_boot_ext4 = NULL;
		return false;
	}
	return true;
}

void fake_boot_remove_ext4(void)
{
	if (fake_boot_ext4) {
		unlink(fake_boot_ext4);
		free(fake_boot_ext4);
		fake_boot_ext4 = NULL;
	}
}

void fake_boot_copy_into(struct fake_ops *f, const char *src, const char *dst)
{
	char *real = fake_path(f, dst), *cmd;

	fake_write(f, dst, "");
	cmd = xasprintf("cp %s %s", src, real);
	MUST(system(cmd) == 0);
	free(cmd);
	free(real);
}

void fake_boot_virtio_disk(struct fake_ops *f, const char *root_image)
{
	fake_write(f, VIRTIO "/virtio1/modalias", "virtio:d00000002v00001AF4\n");
	fake_symlink(f, "../../../../bus/virtio", VIRTIO "/virtio1/subsystem");
	fake_write(f, VIRTIO "/virtio1/block/vda/dev", "254:0\n");
	fake_write(f, VIRTIO "/virtio1/block/vda/uevent", "DEVTYPE=disk\nDEVNAME=vda\n");
	fake_write(f, VIRTIO "/virtio1/block/vda/vda1/dev", "254:1\n");
	fake_write(f, VIRTIO "/virtio1/block/vda/vda1/uevent", "DEVTYPE=partition\nDEVNAME=vda1\n");
	fake_symlink(f, "../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda",
		     "/sys/class/block/vda");
	fake_symlink(f, "../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1",
		     "/sys/class/block/vda1");
	fake_write(f, "/dev/vda", "");
	fake_boot_copy_into(f, root_image, "/dev/vda1");
}

void fake_boot_virtio_part2(struct fake_ops *f, const char *image)
{
	fake_write(f, VIRTIO "/virtio1/block/vda/vda2/dev", "254:2\n");
	fake_write(f, VIRTIO "/virtio1/block/vda/vda2/uevent", "DEVTYPE=partition\nDEVNAME=vda2\n");
	fake_symlink(f, "../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda2",
		     "/sys/class/block/vda2");
	fake_boot_copy_into(f, image, "/dev/vda2");
}

struct fake_ops *fake_boot_setup(const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();
	char *p;

	fake_boot_tree = f;
	fake_boot_kver = KVER;
	fake_boot_spawns = 0;
	fake_write(f, "/proc/cmdline", cmdline);
	fake_write(f, "/etc/uniramfs/kver", KVER "\n");
	fake_write(f, "/dev/kmsg", "");
	fake_mkdir(f, "/run");
	fake_write(f, MODDIR "/kernel/drivers/block/virtio_blk.ko", "");
	fake_write(f, MODDIR "/kernel/fs/ext4/ext4.ko", "");
	fake_write(f, MODDIR "/kernel/lib/crc16.ko", "");
	fake_write(f, MODDIR "/modules.dep",
		   "kernel/drivers/block/virtio_blk.ko:\n"
		   "kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko\n"
		   "kernel/lib/crc16.ko:\n");
	fake_write(f, MODDIR "/modules.alias",
		   "alias virtio:d00000002v* virtio_blk\n"
		   "alias fs-ext4 ext4\n");
	fake_write(f, MODDIR "/modules.softdep", "");
	fake_write(f, MODDIR "/modules.builtin", "");

	fake_write(f, VIRTIO "/modalias", "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00\n");
	fake_symlink(f, "../../../bus/pci", VIRTIO "/subsystem");
	fake_write(f, "/sys/devices/platform/pcspkr/modalias", "platform:pcspkr\n");
	fake_boot_virtio_disk(f, fake_boot_ext4);

	fake_mkdir(f, "/sysroot");
	fake_write(f, "/sysroot/sbin/init", "#!/bin/true\n");
	p = fake_path(f, "/sysroot/sbin/init");
	chmod(p, 0755);
	free(p);
	return f;
}

int fake_boot_run(struct fake_ops *f, struct init *in, const struct initops *xops, char **envp)
{
	char *argv[] = { "/init", NULL };

	memset(in, 0, sizeof(*in));
	in->ops = &f->ops;
	in->xops = xops;
	return init_run(in, 1, argv, envp);
}

bool fake_boot_logged(const char *text)
{
	const struct buf *b = kmsg_kept();
	bool ok = b->p && strstr(b->p, text);

	if (!ok)
		printf("# not logged: %s\n", text);
	return ok;
}

char *fake_boot_read(struct fake_ops *f, const char *p)
{
	return fake_read(f, p);
}
