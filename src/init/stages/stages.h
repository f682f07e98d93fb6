/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STAGES_STAGES_H
#define UNIRAMFS_INIT_STAGES_STAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "init/init.h"
#include "layout.h"

/* The stages of the boot, each called by sequence.c in turn: the API
 * filesystems, the root, resume, fsck, a separate /usr, hooks,
 * switch_root, and the failure path. None of them waits on the loop
 * for devices: sequence.c does, through rootwait.c (which runs the queued
 * jobs meanwhile). */

/* stage_mounts.c */
int stage_mounts(struct init *in);
void stage_console(struct init *in);

/* kmodhelper.c: the kernel's request_module runs the image's modprobe
 * link (LAYOUT_MODPROBE) from stage_mounts on, when the image has it;
 * switch_root gives the sysctl its old value back (the kernel's
 * default, /sbin/modprobe) for the root's own modprobe. Never fail the
 * boot. */
void kmod_helper_set(struct init *in);
void kmod_helper_restore(struct init *in);

/* pcrphase.c: "enter-initrd" into PCR 11 once the TPM's driver is
 * loaded, before any unlock, when rd.uniramfs.measure=1 or (without the
 * word) systemd-stub measured the boot; "leave-initrd" before
 * switch_root when the first went in. Never fail the boot: a warning
 * says what was not measured. */
void pcrphase_enter(struct init *in);
void pcrphase_leave(struct init *in);

/* vconsole.c: the image's keymap and font on the virtual console, before
 * any prompt (in->keymap names the keymap loaded). Never fails the boot. */
void stage_vconsole(struct init *in);
/* plymouth.c: the splash, with `splash` (remote/plymouth.h does the talking) */
void stage_plymouth(struct init *in);

/* modexport.c: rd.driver.export, after the pre-pivot hooks: the
 * image's /lib/modules/KVER copied onto a tmpfs on the root's
 * /lib/modules, for a root without modules of its own. Never fails the
 * boot: a warning says why not. */
void export_modules(struct init *in);

/* livemount.c: root=live: the root device is a live medium, whose image
 * is mounted on /sysroot read-only (the overlay stage then puts a layer
 * above it). 0, or an error naming what it looked for. */
int mount_live(struct init *in);
/* An image file (a medium's, or one downloaded: httproot.c) as the live
 * root on /sysroot: a squashfs holding LiveOS/rootfs.img has that one
 * mounted in turn. 0 or a negative code (err set). */
int mount_live_file(struct init *in, const char *path);

/* livescan.c: boot=live with no live-media=: the block devices are looked
 * at, as they come, for rd.live.dir/rd.live.squashimg (live/filesystem.
 * squashfs); step: 1 one has it (made root=, and known to root_seen), 0
 * none yet, < 0 an error (err set); ready: a device not looked at yet. */
struct livescan {
	struct strv looked; /* "NAME:TYPE" of each device looked at */
	struct strv seen;   /* "/dev/NAME (TYPE)", for the failure report */
};
int livescan_step(struct init *in, struct livescan *st);
bool livescan_ready(const struct init *in, const void *st);
/* The wait ended without it: what was looked for, and on what. */
void livescan_report(struct init *in, const struct livescan *st);
void livescan_free(struct livescan *st);

/* livecheck.c: a live image's length against its header (livesize.h):
 * 0, or -EIO naming what (a path, a device) when it is truncated, or
 * -EINVAL when its header is impossible; *type is then "iso9660" or
 * "squashfs". When it is neither, *type is NULL and the error (err set)
 * says what it starts with: the caller decides whether that is one. */
int live_check_size(int fd, unsigned long long have, const char *what, const char **type);
/* Its first bytes in hex, for a message. */
void live_first_bytes(int fd, char *out, size_t len);
/* The medium before it is mounted: an ISO's length, then with
 * rd.live.check its implanted MD5 sum (checkisomd5). */
int live_check_md5(struct init *in, const struct blockdev *bd);
int live_check_medium(struct init *in, const struct blockdev *bd);

/* liveram.c: the kernel's MemAvailable in bytes (0: not known), the RAM
 * a live image copied or downloaded into /run may take. */
unsigned long long live_mem_available(struct init *in);
/* liveram.c: rd.live.ram: src (on medium, a device name for messages)
 * copied to dst in /run, refused with the sizes when the RAM left is
 * short; then, once the copy is mounted, the medium mounted at dir let
 * go (and an ISO file's device with it). */
int live_ram_copy(struct init *in, const char *medium, const char *src, const char *dst);
void live_ram_release(struct init *in, const char *medium, const char *dir);

/* isoscan.c: iso-scan/filename=: the registry's subscriber (arg: struct
 * init) that looks for the ISO file on each device with a filesystem,
 * and puts it on a loop device when found. isoscan_wanted: asked and a
 * sound name (else said and dropped); isoscan_report: for the failure
 * report, each device looked on and what it had; isoscan_done: the
 * loop's descriptor closed, the list freed. */
bool isoscan_name_valid(const char *name);
bool isoscan_wanted(struct init *in);
void isoscan_seen(void *in, enum dev_change what, const struct blockdev *bd);
void isoscan_report(struct init *in);
void isoscan_done(struct init *in);

/* loopdev.c: a free loop device on the open file (name: its path, for
 * messages and the device's lo_file_name), read-only and cleared with its
 * last user; the returned descriptor must stay open until a mount holds
 * the device. dev gets "/dev/loopN". */
int loop_attach(const struct sysops *ops, int file, const char *name, char *dev, size_t devlen);
/* loop loaded, if it is a module of the image (before loop_attach). */
void loop_module(struct init *in);

/* squashmount.c: the squashfs segment, when the image has one, mounted
 * on LAYOUT_SQUASH_DIR when first wanted (squashlazy.h): in->ops and
 * in->xops become the tables that do so. Before any other use of them. */
void squash_prepare(struct init *in);
/* Mount it now (a reader the tables do not see: plymouthd's themes,
 * the modules copied to the root): 0, or a negative code, said. */
int squash_need(struct init *in);
/* Before switch_root: detach it (the init's children may still use it). */
void unmount_squash(struct init *in);

/* rootmount.c */
/* The registry's subscriber that finds root= (arg: struct init), and
 * forgets it if it goes away. */
void root_seen(void *in, enum dev_change what, const struct blockdev *bd);
/* The root's wait ended without it: a btrfs root short of members is
 * taken as it is with rootflags=degraded (true, with a warning), or
 * named with the count of devices it has and wants (false). */
bool root_timed_out(struct init *in);
int mount_root(struct init *in);

/* gptroot.c: root discovery (Discoverable Partitions Specification) */
/* No root= (or root=gpt-auto, which it clears) and discovery is not
 * turned off (rd.systemd.gpt_auto=0): true. */
bool gptroot_wanted(struct init *in);
/* The search, for rootwait.c's gptroot_wait: begin reads what the
 * firmware says; step looks at the devices (last: when they last
 * changed, last_activity): 1 the root is chosen (made root=, and known
 * to root_seen), -1 refused or none by end (said why), 0 to wait on
 * until *until (-1: forever) or gptroot_ready(in, st). */
struct gptroot {
	char loader[37]; /* LoaderDevicePartUUID */
	bool have_loader;
	char *disk;      /* its disk ("sda"), once seen */
	bool said_skip;  /* a no-auto partition was named */
};
void gptroot_begin(struct init *in, struct gptroot *st);
int gptroot_step(struct init *in, struct gptroot *st, long long end, long long last,
		 long long *until);
bool gptroot_ready(const struct init *in, const void *st);
void gptroot_free(struct gptroot *st);
/* The usr partition on the root's disk (discovery took the root) as a
 * device spec, *ro if its read-only attribute is set; NULL: none. */
char *gptroot_usr(struct init *in, bool *ro);

/* netmount.c: the NFS root on /sysroot, the network up. 0 or a negative code (err
 * set: the server, the interface and its address, what mount said). */
int mount_net_root(struct init *in);

/* httproot.c: root=live:http(s)://…: the image downloaded into
 * /run/initramfs (within the RAM left), checked against rd.live.sha256=,
 * then mount_live_file. 0 or a negative code (err set: the URL, what the
 * server did or what the image was). */
int mount_http_root(struct init *in);

/* pluginroot.c: root= claimed by a plugin's root row: its program
 * mounts the rest of root= on /sysroot. 0 or a negative code (err_msg
 * says why). */
int mount_plugin_root(struct init *in, const struct plugin_row *r);

/* ibftboot.c: root=ibft, rd.iscsi.firmware, rd.iscsi.ibft, ip=ibft: the
 * firmware's table read (iscsi_ibft loaded first) into the network's
 * ip= (its NIC, by MAC) and the iSCSI root's target, before the network
 * comes up. A missing or broken table is said; the boot goes on. */
void ibft_boot(struct init *in);
/* netblock.c: netup's on_up (arg: struct init) for an iSCSI or NBD
 * root: queues the iscsistart or nbd-client job. */
void netblock_up(void *in);
/* root=nbd:… or root=iscsi:… names the network disk itself: root=
 * becomes the device that session brings. */
void use_netroot_device(struct init *in);
/* nvmfconnect.c: netup's on_up for an NVMe over TCP root: queues the
 * job that connects its targets. */
void nvmf_up(struct init *in);

/* udevdb.c: udev's database entries for every dm device, so the root's
 * udev treats them as set up (the number written, or a negative code,
 * err set). */
int udevdb_write(const struct sysops *ops);

/* cryptnames.c: once the root is mounted, each LUKS mapping of this
 * boot takes the name the root's /etc/crypttab gives its device. Never
 * fails the boot: what cannot be renamed is warned about. */
void cryptnames_match_root(struct init *in);

/* switchroot.c: returns only on failure (or in a test, 0 after the fake
 * execve). */
int switch_root(struct init *in);
int write_state(struct init *in);

/* failure.c */
void report_devices(struct init *in);
/* Shell, then retry (returns 0), or wait and reboot (returns a negative
 * code, the reboot's, only when the reboot returned). Only sequence.c
 * and rootwait.c (its waits) call it. */
int failure(struct init *in, bool can_retry);
void run_break(struct init *in, unsigned brk, const char *name);

/* rescue.c: who gets the shell (docs/cmdline.md, "After a failure").
 * Does the command line let a shell start (at a break point
 * rd.emergency does not apply)? 0, or -EPERM after saying why not. */
int rescue_wanted(struct init *in, bool at_break);
/* The image's rescue password asked and checked (3 tries), or without
 * one, no shell after an automatic unlock (docs/unlock.md) unless the
 * owner opted in. 0: the shell may start; a negative code after saying
 * why not. */
int rescue_authorized(struct init *in);
/* Does typed match the crypt(3) hash? */
bool rescue_password_ok(const char *typed, const char *hash);

/* resume.c */
enum swap_sig {
	SWAP_NONE,     /* no swap signature at all */
	SWAP_PLAIN,    /* SWAPSPACE2 / SWAP-SPACE: an ordinary swap area */
	SWAP_KERNEL,   /* S1SUSPEND / S2SUSPEND: the kernel's hibernation image */
	SWAP_USWSUSP,  /* ULSUSPEND: uswsusp's userspace image */
};
/* What the last 10 bytes of a swap header page say. */
enum swap_sig swap_signature(const char tail[10]);
/* The registry's subscriber (arg: struct init): the resume= device,
 * the moment it appears, is resumed from when it holds a kernel image
 * (returns only if that did not happen). */
void resume_seen(void *in, enum dev_change what, const struct blockdev *bd);
/* The root is there: is there a resume= still to wait for? Says so
 * (or why not: noresume, a spec not understood). */
bool resume_begin(struct init *in);
/* When the wait for it may end: rd.resume.timeout after the devices
 * last changed (not before since, the time the wait began). */
long long resume_quiet_until(const struct init *in, long long since);
/* The wait is over; settled: it ended on the quiet time, not the
 * root's timeout. Warns when the device never came. */
void resume_end(struct init *in, bool settled);

/* fsck.c */
/* The checker's argv for fstype per fsck.mode=/fsck.repair= (NULL when
 * skipped or fstype needs none): argv[0] the tool's name. */
char **fsck_argv(const struct options *o, const char *fstype, const char *devnode);
/* Check a device before it is mounted. 0: go on (clean, fixed, no
 * checker, skipped); < 0 (err set): the failure path. Exit status 2
 * reboots. */
int fsck_device(struct init *in, const struct blockdev *bd, const char *fstype);
/* fsck_device for the root, with the type mount_root will use. */
int fsck_root(struct init *in);

/* overlay.c: rd.overlay: the root mounted on /sysroot becomes the lower
 * layer of an overlay there (a tmpfs or a device above). 0 when not
 * asked or done; an error only when the overlay cannot be mounted (the
 * root is then back on /sysroot). */
int stage_overlay(struct init *in);

/* usrmount.c */
/* One fstab line: fields unescaped (\040 and the other octal escapes). */
struct fstab_entry {
	char *spec, *file, *type, *opts;
	int passno;
	const char *from; /* who named it, for messages: "/sysroot/etc/fstab", "mount.usr=" */
	int lineno;       /* its line in an fstab, 0 for the others */
	char *line;       /* that line as written, printable, for messages (NULL for the others) */
};
/* The entry for mountpoint in fstab text (comments, blank lines, tabs
 * and spaces handled). 0 found, 1 not there. */
int fstab_find(const char *text, const char *mountpoint, struct fstab_entry *e);
void fstab_entry_free(struct fstab_entry *e);
/* After the root: the /usr to mount, if any: mount.usr= on the command
 * line, else the root's /etc/fstab's, else (root discovery) the usr
 * partition of the root's disk. 1 (e filled), 0 none (or noauto,
 * rd.fstab=0), < 0 (err set): a spec uniramfs does not understand. */
int usr_entry(struct init *in, struct fstab_entry *e);
/* Check and mount it on /sysroot + its mount point (/usr, an
 * x-initrd.mount entry's); its device must have come. 0, or a negative
 * code (err set). */
int mount_fstab_entry(struct init *in, const struct fstab_entry *e);

/* hooks.c */
#define HOOKS_DIR LAYOUT_HOOKS_DIR
/* Every executable in HOOKS_DIR/STAGE, in name order, with the state in
 * their environment. A hook that fails is logged; the boot goes on. */
void run_hooks(struct init *in, const char *stage);

#endif
