// SPDX-License-Identifier: GPL-2.0-or-later
/* What the API does not cover, said at build time: the host's
 * initramfs-tools hooks and dracut modules are what its packages expect
 * an initramfs to do. Each one that neither uniramfs itself nor a
 * plugin's `replaces` answers is named before the administrator reboots
 * into an image without it. */
#include "gen/plugins/plugin.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gen/host/sysroot.h"
#include "log.h"

#define ITOOLS_HOOKS "/usr/share/initramfs-tools/hooks"
#define DRACUT_MODULES "/usr/lib/dracut/modules.d"

/* covered: what answers it in uniramfs (or why nothing needs to);
 * NULL: not covered, and named only when the host has tool (a program,
 * or a path: what dracut's own check() of the module requires) and the
 * root's filesystem is fstype (what the hook or module checks), each
 * when given. A name ending in '*' is a prefix. Read from Debian 12's
 * initramfs-tools 0.142, cryptsetup-initramfs 2.6 and dracut 059. */
#define OPT_IN "not in use: dracut packs it only when asked (its check() returns 255)"
static const struct cover {
	const char *gen, *name, *covered, *tool, *fstype;
} table[] = {
	{ "initramfs-tools", "cryptroot", "LUKS from crypttab (docs/unlock.md)", NULL, NULL },
	{ "initramfs-tools", "cryptroot-unlock", "SSH unlock (ssh-unlock)", NULL, NULL },
	{ "initramfs-tools", "dropbear", "SSH unlock (ssh-unlock)", NULL, NULL },
	{ "initramfs-tools", "dmsetup", "device-mapper through cryptsetup and lvm", NULL, NULL },
	/* LVM is uniramfs's own plugin (plugins/lvm.conf), whose replaces
	 * covers these; turned off, they are named when the host has lvm */
	{ "initramfs-tools", "lvm2", NULL, "lvm", NULL },
	{ "initramfs-tools", "mdadm", "md RAID", NULL, NULL },
	{ "initramfs-tools", "fsck", "fsck before the root mount", NULL, NULL },
	{ "initramfs-tools", "resume", "resume=", NULL, NULL },
	{ "initramfs-tools", "kmod", "modules through libkmod", NULL, NULL },
	{ "initramfs-tools", "udev", "the init's own device handling", NULL, NULL },
	{ "initramfs-tools", "keymap", "the console's keymap and font", NULL, NULL },
	{ "initramfs-tools", "console_setup", "the console's keymap and font", NULL, NULL },
	{ "initramfs-tools", "zz-busybox", "the rescue shell (busybox)", NULL, NULL },
	{ "initramfs-tools", "busybox", "the rescue shell (busybox)", NULL, NULL },
	{ "initramfs-tools", "klibc-utils", "not needed: the init is a C program", NULL, NULL },
	{ "initramfs-tools", "iscsi", "iSCSI roots (iscsistart)", NULL, NULL },
	{ "initramfs-tools", "nbd", "NBD roots (nbd-client)", NULL, NULL },
	{ "initramfs-tools", "nbd-client", "NBD roots (nbd-client)", NULL, NULL },
	{ "initramfs-tools", "clevis", "clevis's Tang pin (not its tpm2 pin)", NULL, NULL },
	{ "initramfs-tools", "amd64_microcode", "the early microcode segment", NULL, NULL },
	{ "initramfs-tools", "intel_microcode", "the early microcode segment", NULL, NULL },
	{ "initramfs-tools", "thermal", "not needed: it packs PowerMac fan drivers only", NULL, NULL },
	{ "dracut", "00bash", "not needed: no shell on the normal path", NULL, NULL },
	{ "dracut", "00dash", "not needed: no shell on the normal path", NULL, NULL },
	{ "dracut", "00mksh", "not needed: no shell on the normal path", NULL, NULL },
	{ "dracut", "00systemd*", "not needed: the init is uniramfs-init, the root's systemd takes over", NULL, NULL },
	{ "dracut", "01systemd-*", "not needed: the init is uniramfs-init, the root's systemd takes over", NULL, NULL },
	{ "dracut", "98dracut-systemd", "not needed: dracut's own init", NULL, NULL },
	{ "dracut", "99base", "not needed: dracut's own init", NULL, NULL },
	{ "dracut", "99fs-lib", "not needed: dracut's own init", NULL, NULL },
	{ "dracut", "99uefi-lib", "not needed: dracut's own library", NULL, NULL },
	{ "dracut", "99img-lib", "not needed: dracut's own library", NULL, NULL },
	{ "dracut", "30convertfs", "not needed: converts a root to merged /usr", NULL, NULL },
	{ "dracut", "06dbus-broker", "not needed: for systemd in the initramfs", NULL, NULL },
	{ "dracut", "06dbus-daemon", "not needed: for systemd in the initramfs", NULL, NULL },
	{ "dracut", "09dbus", "not needed: for systemd in the initramfs", NULL, NULL },
	{ "dracut", "95terminfo", "not needed: for dracut's shell", NULL, NULL },
	{ "dracut", "98syslog", "the init's log in /run/uniramfs/log", NULL, NULL },
	{ "dracut", "99memstrack", "not needed: dracut's memory debugging", NULL, NULL },
	{ "dracut", "03rescue", "the rescue shell (busybox)", NULL, NULL },
	{ "dracut", "05busybox", "the rescue shell (busybox)", NULL, NULL },
	{ "dracut", "95debug", "the rescue shell (busybox)", NULL, NULL },
	{ "dracut", "09console-setup", "the console's keymap and font", NULL, NULL },
	{ "dracut", "10i18n", "the console's keymap and font", NULL, NULL },
	{ "dracut", "35network-legacy", "the init's network (ip=, DHCP)", NULL, NULL },
	{ "dracut", "35network-manager", "the init's network (ip=, DHCP)", NULL, NULL },
	{ "dracut", "40network", "the init's network (ip=, DHCP)", NULL, NULL },
	{ "dracut", "90crypt", "LUKS", NULL, NULL },
	{ "dracut", "90dm", "device-mapper through cryptsetup and lvm", NULL, NULL },
	{ "dracut", "90lvm", NULL, "lvm", NULL },
	{ "dracut", "90mdraid", "md RAID", NULL, NULL },
	{ "dracut", "90overlayfs", "rd.overlay (an overlay over the root)", NULL, NULL },
	{ "dracut", "90dmsquash-live", "live roots (root=live:, rd.live.*, iso-scan/filename=)", NULL, NULL },
	{ "dracut", "90dmsquash-live-autooverlay", "the live medium's overlay partition (overlay-tools)", NULL, NULL },
	{ "dracut", "90livenet", "live roots over HTTP(S) (root=live:http://)", NULL, NULL },
	{ "dracut", "90overlay-root", "rootovl (a tmpfs over the root, as rd.overlay)", NULL, NULL },
	{ "dracut", "90kernel-modules", "modules (generic table or hostonly)", NULL, NULL },
	{ "dracut", "90kernel-modules-extra", "modules (generic table or hostonly)", NULL, NULL },
	{ "dracut", "90kernel-network-modules", "modules (generic table or hostonly)", NULL, NULL },
	{ "dracut", "90qemu", "modules (generic table or hostonly)", NULL, NULL },
	{ "dracut", "90qemu-net", "modules (generic table or hostonly)", NULL, NULL },
	{ "dracut", "91fido2", "LUKS2 tokens (fido2)", NULL, NULL },
	{ "dracut", "91pkcs11", "LUKS2 tokens (pkcs11)", NULL, NULL },
	{ "dracut", "91tpm2-tss", "LUKS2 tokens (tpm2)", NULL, NULL },
	{ "dracut", "95iscsi", "iSCSI roots (iscsistart)", NULL, NULL },
	{ "dracut", "95nbd", "NBD roots (nbd-client)", NULL, NULL },
	{ "dracut", "95nfs", "NFS roots", NULL, NULL },
	{ "dracut", "95nvmf", "NVMe over TCP roots (rd.nvmf.*; not FC, RDMA or NBFT)", NULL, NULL },
	{ "dracut", "95resume", "resume=", NULL, NULL },
	{ "dracut", "95rootfs-block", "root= on a block device", NULL, NULL },
	{ "dracut", "95udev-rules", "the init's own device handling", NULL, NULL },
	{ "dracut", "98usrmount", "/usr from the root's fstab", NULL, NULL },
	{ "dracut", "99shutdown", "uniramfs-shutdown", NULL, NULL },
	/* opt-in: dracut.conf's add_dracutmodules is not read (a limit) */
	{ "dracut", "00warpclock", OPT_IN, NULL, NULL },
	{ "dracut", "01fips", OPT_IN, NULL, NULL },
	{ "dracut", "02caps", OPT_IN, NULL, NULL },
	{ "dracut", "04watchdog", OPT_IN, NULL, NULL },
	{ "dracut", "04watchdog-modules", OPT_IN, NULL, NULL },
	{ "dracut", "45url-lib", OPT_IN, NULL, NULL },
	{ "dracut", "80lvmmerge", OPT_IN, NULL, NULL },
	{ "dracut", "80lvmthinpool-monitor", OPT_IN, NULL, NULL },
	{ "dracut", "91crypt-loop", OPT_IN, NULL, NULL },
	{ "dracut", "96securityfs", OPT_IN, NULL, NULL },
	{ "dracut", "97masterkey", OPT_IN, NULL, NULL },
	{ "dracut", "98ecryptfs", OPT_IN, NULL, NULL },
	{ "dracut", "98integrity", OPT_IN, NULL, NULL },
	{ "dracut", "98pollcdrom", OPT_IN, NULL, NULL },
	/* not covered, and only in use where the tool is, or the root's
	 * filesystem */
	{ "initramfs-tools", "btrfs", NULL, NULL, "btrfs" },
	{ "initramfs-tools", "xfs", NULL, NULL, "xfs" },
	{ "dracut", "45ifcfg", NULL, "/etc/sysconfig/network-scripts", NULL },
	{ "dracut", "95fstab-sys", NULL, "/etc/fstab.sys", NULL },
	{ "dracut", "95virtfs", NULL, NULL, "9p" },
	{ "dracut", "90dmsquash-live-ntfs", NULL, "ntfs-3g", NULL },
	{ "dracut", "95virtiofs", NULL, NULL, "virtiofs" },
	{ "dracut", "03modsign", NULL, "/lib/modules/keys", NULL },
	{ "dracut", "06rngd", NULL, "rngd", NULL },
	{ "dracut", "35connman", NULL, "connmand", NULL },
	{ "dracut", "50drm", NULL, "plymouthd", NULL },
	{ "dracut", "50plymouth", NULL, "plymouthd", NULL },
	{ "dracut", "62bluetooth", NULL, "bluetoothd", NULL },
	{ "dracut", "80cms", NULL, "cmsfs-fuse", NULL },
	{ "dracut", "81cio_ignore", NULL, "cio_ignore", NULL },
	{ "dracut", "90btrfs", NULL, "btrfs", "btrfs" },
	{ "dracut", "90dmraid", NULL, "dmraid", NULL },
	{ "dracut", "90multipath", NULL, "multipath", NULL },
	{ "dracut", "90nvdimm", NULL, "ndctl", NULL },
	{ "dracut", "90ppcmac", NULL, "pmac-fan", NULL },
	{ "dracut", "91crypt-gpg", OPT_IN, NULL, NULL },
	{ "dracut", "91pcsc", NULL, "pcscd", NULL },
	{ "dracut", "91zipl", NULL, "zipl", NULL },
	{ "dracut", "95cifs", NULL, "mount.cifs", NULL },
	{ "dracut", "95dasd*", NULL, "dasdinfo", NULL },
	{ "dracut", "95dcssblk", NULL, "chzdev", NULL },
	{ "dracut", "95fcoe*", NULL, "fipvlan", NULL },
	{ "dracut", "95qeth_rules", NULL, "chzdev", NULL },
	{ "dracut", "95ssh-client", OPT_IN, NULL, NULL },
	{ "dracut", "95zfcp*", NULL, "chzdev", NULL },
	{ "dracut", "95znet", NULL, "chzdev", NULL },
	{ "dracut", "97biosdevname", NULL, "biosdevname", NULL },
	{ "dracut", "98selinux", NULL, "load_policy", NULL },
};

static const struct cover *lookup(const char *gen, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		size_t n = strlen(table[i].name);
		if (strcmp(table[i].gen, gen))
			continue;
		if (table[i].name[n - 1] == '*' ? !strncmp(name, table[i].name, n - 1) : !strcmp(name, table[i].name))
			return &table[i];
	}
	return NULL;
}

static bool replaced(const struct plugins *ps, const char *gen, const char *name)
{
	char *want = xasprintf("%s:%s", gen, name);
	bool found = false;

	for (size_t i = 0; !found && ps && i < ps->n; i++)
		found = strv_contains(&ps->v[i].replaces.v, want);
	free(want);
	return found;
}

/* A program the tool search finds, or a path that exists. */
static bool host_has(const char *sysroot, const char *tool)
{
	struct stat st;
	char *p;

	if (tool[0] != '/') {
		p = sysroot_find_tool(sysroot, tool);
		free(p);
		return p != NULL;
	}
	if (sysroot_path(sysroot, tool, &p, &st) < 0) {
		err_clear();
		return false;
	}
	free(p);
	return true;
}

static int scan(const struct plugins *ps, const char *sysroot, const struct strv *fstypes, const char *gen,
		const char *dir, struct strv *out)
{
	struct dirent **list = NULL;
	struct stat st;
	char *host;
	int n, r = sysroot_path(sysroot, dir, &host, &st);

	if (r < 0 || !S_ISDIR(st.st_mode)) {
		if (r == 0)
			free(host);
		err_clear();
		return 0; /* that generator is not installed */
	}
	n = scandir(host, &list, NULL, alphasort);
	free(host);
	if (n < 0)
		return err_errno(errno, "%s", dir);
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		const struct cover *c = name[0] == '.' ? NULL : lookup(gen, name);

		if (name[0] == '.' || replaced(ps, gen, name)) {
			/* the package's own plugin answers it */
		} else if (c && c->covered) {
			log_debug("%s:%s: %s", gen, name, c->covered);
		} else if (c && c->tool && !host_has(sysroot, c->tool)) {
			log_debug("%s:%s: not in use (no %s)", gen, name, c->tool);
		} else if (c && c->fstype && !strv_contains(fstypes, c->fstype)) {
			log_debug("%s:%s: not in use (the root is not %s)", gen, name, c->fstype);
		} else {
			char *s = xasprintf("%s:%s", gen, name);
			strv_push(out, s);
			free(s);
		}
		free(list[i]);
	}
	free(list);
	return 0;
}

int plugins_uncovered(const struct plugins *ps, const char *sysroot, const struct plugin_facts *f, char **text)
{
	struct strv out = { 0 };
	struct buf b = { 0 };
	int r = scan(ps, sysroot, &f->fstypes, "initramfs-tools", ITOOLS_HOOKS, &out);

	if (r == 0)
		r = scan(ps, sysroot, &f->fstypes, "dracut", DRACUT_MODULES, &out);
	*text = NULL;
	if (r == 0 && out.n) {
		for (size_t i = 0; i < out.n; i++)
			buf_printf(&b, "%s%s", i ? " " : "", out.v[i]);
		*text = b.p;
		log_notice("hostonly: %zu initramfs hook%s of this host ha%s no uniramfs counterpart "
			   "(built in, or a plugin's replaces; docs/plugins.md): %s",
			   out.n, out.n == 1 ? "" : "s", out.n == 1 ? "s" : "ve", b.p);
	}
	strv_free(&out);
	return r;
}
