// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_net.h"

int fake_net_tool_status;

static int logged_run(const char *path, char *const argv[], char *const envp[], const void *input,
		      size_t len)
{
	struct buf b = { 0 };

	(void)envp;
	(void)input;
	(void)len;
	buf_printf(&b, "run %s", path);
	if (argv[0][0] == '@')
		buf_printf(&b, " (as %s)", argv[0]);
	for (size_t i = 1; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	strv_push(&fake_boot_tree->log, b.p);
	buf_free(&b);
	return fake_net_tool_status;
}

const struct initops fake_net_initops = {
	.run = logged_run,
	.uname_release = fake_boot_uname,
	.free_initramfs = fake_free_initramfs,
	.reboot = fake_reboot,
	.spawn = fake_boot_spawn,
};

int fake_net_run(struct fake_ops *f, struct init *in)
{
	return fake_boot_run(f, in, &fake_net_initops, fake_boot_kernel_env);
}

/* Append text to a file of the tree. */
static void append(struct fake_ops *f, const char *p, const char *text)
{
	char *old = fake_boot_read(f, p), *t = xasprintf("%s%s", old ? old : "", text);

	fake_write(f, p, t);
	free(t);
	free(old);
}

void fake_net_module(struct fake_ops *f, const char *ko, const char *deps)
{
	char *p = xasprintf(MODDIR "/%s", ko), *line = xasprintf("%s:%s%s\n", ko, deps ? " " : "",
								deps ? deps : "");

	fake_write(f, p, "");
	append(f, MODDIR "/modules.dep", line);
	free(line);
	free(p);
}

static void nic(struct fake_ops *f, unsigned i)
{
	char *dev = xasprintf("/sys/devices/pci0000:00/0000:00:%02x.0/virtio%u", 3 + i, 2 + i);
	char *p, *v;

	p = xasprintf("%s/modalias", dev);
	fake_write(f, p, "virtio:d00000001v00001AF4\n");
	free(p);
	p = xasprintf("%s/subsystem", dev);
	fake_symlink(f, "../../../../bus/virtio", p);
	free(p);
	p = xasprintf("/sys/class/net/eth%u/type", i);
	fake_write(f, p, "1\n");
	free(p);
	p = xasprintf("/sys/class/net/eth%u/ifindex", i);
	v = xasprintf("%u\n", 2 + i);
	fake_write(f, p, v);
	free(v);
	free(p);
	p = xasprintf("/sys/class/net/eth%u/address", i);
	v = xasprintf("52:54:00:12:34:%02x\n", 0x56 + i);
	fake_write(f, p, v);
	free(v);
	free(p);
	free(dev);
}

struct fake_ops *fake_net_setup(const char *cmdline, unsigned nics)
{
	struct fake_ops *f = fake_boot_setup(cmdline);
	char *p;

	fake_net_module(f, "kernel/drivers/net/virtio_net.ko", NULL);
	append(f, MODDIR "/modules.alias", "alias virtio:d00000001v* virtio_net\n");
	for (unsigned i = 0; i < nics; i++)
		nic(f, i);
	fake_write(f, "/sys/class/net/lo/type", "772\n");
	fake_write(f, "/sys/class/net/lo/ifindex", "1\n");
	fake_write(f, "/sys/class/net/lo/address", "00:00:00:00:00:00\n");
	fake_write(f, "/usr/sbin/iscsistart", "");
	p = fake_path(f, "/usr/sbin/iscsistart");
	chmod(p, 0755);
	free(p);
	return f;
}

void fake_net_tool(struct fake_ops *f, const char *path)
{
	char *p;

	fake_write(f, path, "");
	p = fake_path(f, path);
	chmod(p, 0755);
	free(p);
}
