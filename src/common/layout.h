/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_LAYOUT_H
#define UNIRAMFS_LAYOUT_H

/* What the generator (src/gen) and the init (src/init) must agree on:
 * where things are in the image, and the orders both walk. One list for
 * both, so they cannot drift apart. Each list is an initializer:
 *   static const char *const dirs[] = { LAYOUT_TOOL_DIRS }; */

/* Hooks: LAYOUT_HOOKS_DIR/STAGE/NAME (docs/hooks.md), the stages in
 * boot order. */
#define LAYOUT_HOOKS_DIR "/usr/lib/uniramfs/hooks"
#define LAYOUT_HOOK_STAGES "cmdline", "pre-udev", "pre-mount", "mount", "pre-pivot"

/* Where tools (cryptsetup, lvm, mdadm, e2fsck) are looked for, on the
 * host when packing and in the image when running: the same path. */
#define LAYOUT_TOOL_DIRS "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"
/* The same, as the PATH the init gives its tools, hooks and shell (the
 * common/test_layout unit test keeps the two equal). */
#define LAYOUT_TOOL_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* modprobe.d directories in kmod's order (modprobe.d(5): SYSCONFDIR,
 * /run, /usr/local/lib, DISTCONFDIR, /lib): a file name in an earlier
 * one hides the same name in a later one. */
#define LAYOUT_MODPROBE_DIRS                                                              \
	"/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d", \
		"/lib/modprobe.d"

/* The image's own files. */
#define LAYOUT_KVER_FILE "/etc/uniramfs/kver"       /* the kernel it was built for */
#define LAYOUT_CMDLINE_FILE "/etc/uniramfs/cmdline" /* baked command line defaults */
/* The squashfs segment (src/gen/squash.h): the file, and where the
 * init mounts it; the main segment's symlinks point below the mount.
 * The modules that mount it (and what modules.dep says they need) stay
 * in the main segment; the init loads them by name, as modprobe would,
 * so modprobe.d options and loop.max_part= on the command line apply. */
#define LAYOUT_SQUASH_FILE "/uniramfs.sqfs"
#define LAYOUT_SQUASH_DIR "/uniramfs.sqfs.d"
#define LAYOUT_SQUASH_MODULE_NAMES "loop", "squashfs"
/* Beside the squashfs, in its uncompressed segment: the files most boots
 * read, which the kernel only copies (no decompression at unpack, none at
 * use) and whose reading needs no mount; each one's place in the main
 * segment is a symlink to LAYOUT_STORED_DIR/PATH. */
#define LAYOUT_STORED_DIR "/uniramfs.stored"
/* The program left in /run/initramfs for systemd-shutdown to return to. */
#define LAYOUT_SHUTDOWN "/lib/uniramfs/shutdown"
#define LAYOUT_CRYPTTAB "/etc/crypttab"             /* hostonly LUKS devices */
/* Present when the image holds cryptsetup's LUKS2 token plugins (one
 * line: their directory): the init then tries a device's tokens first. */
#define LAYOUT_TOKENS_FILE "/etc/uniramfs/luks-tokens"
/* A hostonly image's record of the machine it was made for (key=value
 * lines: root, fstype, drivers, fallback): the init names it when the
 * root is not found, since that is then the likely reason. */
#define LAYOUT_HOSTONLY_FILE "/etc/uniramfs/hostonly"
/* The plugins' boot-time rows (docs/plugins.md, "Boot-time rows"): one
 * line each, tab-separated, lists comma-separated, "-" for none:
 *   layer PLUGIN BLKID-TYPE PROGRAM MODULES OPTIONS
 *   root  PLUGIN PREFIX     PROGRAM MODULES -
 * The generator writes it; the init reads it (src/init/stack/plugin_rows.c). */
#define LAYOUT_PLUGIN_ROWS_FILE "/etc/uniramfs/plugin-rows"
/* The console for the passphrase prompt: KEYMAP= and FONT= lines naming
 * what the two files hold (docs/cmdline.md, "Console"). */
#define LAYOUT_VCONSOLE_FILE "/etc/uniramfs/vconsole"
#define LAYOUT_KEYMAP_FILE "/etc/uniramfs/keymap.bmap" /* common/bkeymap.h */
#define LAYOUT_FONT_FILE "/etc/uniramfs/font.psf"      /* PSF1 or PSF2, uncompressed */
/* FONT_MAP's console map and FONT_UNIMAP's Unicode map, as kbd's setfont
 * reads them (-m, -u), uncompressed */
#define LAYOUT_FONT_MAP_FILE "/etc/uniramfs/font.map"
#define LAYOUT_FONT_UNIMAP_FILE "/etc/uniramfs/font.unimap"

/* Remote unlock over SSH (docs/unlock.md): present when the image can
 * start dropbear; one line, "hostkeys=image" (packed, hostonly) or
 * "hostkeys=boot" (dropbear -R makes them at boot). */
#define LAYOUT_SSH_FILE "/etc/uniramfs/ssh"
/* The rescue shell's password: one crypt(3) hash, 0600 (gen/features/rescue.c,
 * init/stages/rescue.c). No file: the shell asks for none. */
#define LAYOUT_RESCUE_PASSWORD_FILE "/etc/uniramfs/rescue-password"
#define LAYOUT_SSH_HOSTKEY_DIR "/etc/dropbear"
#define LAYOUT_SSH_HOSTKEYS "dropbear_ed25519_host_key", "dropbear_ecdsa_host_key"
#define LAYOUT_SSH_AUTHORIZED_KEYS "/root/.ssh/authorized_keys"
/* Every login runs this (a link to /init: the init's answering client),
 * which answers the init's prompt on this socket. */
#define LAYOUT_ASKPASS "/bin/uniramfs-askpass"
#define LAYOUT_ASKPASS_NAME "uniramfs-askpass"
#define LAYOUT_ASKPASS_SOCKET "/run/uniramfs/askpass.sock"

/* The kernel's request_module runs the program named in
 * LAYOUT_MODPROBE_SYSCTL; in the image that is this link to /init,
 * which answers from the image's module index when called by this name
 * (init/modprobe.c). The init points the kernel at it while it runs and
 * gives the old value back before switch_root. */
#define LAYOUT_MODPROBE "/usr/lib/uniramfs/modprobe"
#define LAYOUT_MODPROBE_NAME "modprobe"
#define LAYOUT_MODPROBE_SYSCTL "/proc/sys/kernel/modprobe"

#endif
