// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel command line as the kernel splits it, and every spelling
 * the init accepts folded into struct options. */
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "log.h"
#include "init/core/options.h"
#include "test.h"

static struct buf warnings;

static void sink(int level, const char *msg, void *userdata)
{
	(void)userdata;
	if (level <= LOG_WARNING)
		buf_printf(&warnings, "%s\n", msg);
}

static const char *val(const struct cmdline *c, const char *key)
{
	const struct cmdline_param *p = cmdline_last(c, key);
	return p ? (p->val ? p->val : "(none)") : "(absent)";
}

static void test_tokenise(void)
{
	struct cmdline c = { 0 };

	cmdline_parse(&c, "  BOOT_IMAGE=/vmlinuz root=UUID=1234  ro quiet\tsplash\n");
	CHECK(c.n == 5);
	CHECK_STR(c.p[0].key, "BOOT_IMAGE");
	CHECK_STR(c.p[0].val, "/vmlinuz");
	CHECK_STR(val(&c, "root"), "UUID=1234");
	CHECK_STR(val(&c, "ro"), "(none)");
	CHECK_STR(val(&c, "splash"), "(none)");
	CHECK_STR(val(&c, "nothere"), "(absent)");
	CHECK(c.init_args.n == 0);
	cmdline_free(&c);
}

static void test_quotes(void)
{
	struct cmdline c = { 0 };

	/* A quoted value, a quoted whole word, quotes inside a value. */
	cmdline_parse(&c, "rootflags=\"subvol=@ root,noatime\" \"foo=bar baz\" "
			  "a=\"x\"y init=\"/sbin/my init\" \"bare word\"");
	CHECK_STR(val(&c, "rootflags"), "subvol=@ root,noatime");
	CHECK_STR(val(&c, "foo"), "bar baz");
	CHECK_STR(val(&c, "a"), "x\"y");
	CHECK_STR(val(&c, "init"), "/sbin/my init");
	CHECK_STR(val(&c, "bare word"), "(none)");
	cmdline_free(&c);
}

static void test_dashdash(void)
{
	struct cmdline c = { 0 };

	cmdline_parse(&c, "root=/dev/vda1 -- single rd.debug x=1");
	CHECK(c.n == 1);
	CHECK(!cmdline_has(&c, "rd.debug"));
	CHECK(c.init_args.n == 3);
	CHECK_STR(c.init_args.v[0], "single");
	CHECK_STR(c.init_args.v[1], "rd.debug");
	CHECK_STR(c.init_args.v[2], "x=1");
	CHECK(c.init_args.v[3] == NULL);
	cmdline_free(&c);

	/* "--=x" is a parameter, not the end. */
	cmdline_parse(&c, "--=x quiet");
	CHECK(c.n == 2);
	CHECK(c.init_args.n == 0);
	cmdline_free(&c);
}

static void test_layers_last_wins(void)
{
	struct cmdline c = { 0 };

	cmdline_parse_layers(&c, "root=LABEL=baked rd.timeout=5 quiet", "root=/dev/sda2 root=/dev/sda3");
	CHECK_STR(val(&c, "root"), "/dev/sda3");
	CHECK_STR(val(&c, "rd.timeout"), "5");
	CHECK(cmdline_has(&c, "quiet"));
	cmdline_free(&c);
	cmdline_parse_layers(&c, NULL, NULL);
	CHECK(c.n == 0);
	cmdline_free(&c);
}

static void test_values(void)
{
	bool b = false;
	long v = 7;

	CHECK(cmdline_parse_bool("1", &b) == 0 && b);
	CHECK(cmdline_parse_bool("off", &b) == 0 && !b);
	CHECK(cmdline_parse_bool("Yes", &b) == 0 && b);
	CHECK(cmdline_parse_bool("maybe", &b) < 0);
	CHECK(cmdline_parse_int("30", 0, 100, &v) == 0 && v == 30);
	CHECK(cmdline_parse_int("abc", 0, 100, &v) < 0 && v == 30);
	CHECK(cmdline_parse_int("5s", 0, 100, &v) < 0);
	CHECK(cmdline_parse_int("101", 0, 100, &v) < 0);
	CHECK(cmdline_parse_int("", 0, 100, &v) < 0);
}

static void parse(struct options *o, const char *text)
{
	struct cmdline c = { 0 };
	cmdline_parse(&c, text);
	options_parse(o, &c);
	cmdline_free(&c);
}

static void test_options_defaults(void)
{
	struct options o;

	parse(&o, "");
	CHECK(o.root == NULL);
	CHECK(!o.rw);
	CHECK(o.timeout == DEFAULT_ROOT_TIMEOUT);
	CHECK(o.shell);
	CHECK(o.panic == DEFAULT_PANIC_WAIT);
	CHECK(o.loglevel == -1);
	CHECK(o.breaks == 0);
	CHECK(o.fstab);
	options_free(&o);
}

static void test_options_root(void)
{
	struct options o;

	parse(&o, "root=/dev/sda1 rootfstype=ext4 rootflags=noatime,subvol=@ rw "
		  "init=/lib/systemd/systemd resume=UUID=abc resume_offset=1234 noresume");
	CHECK_STR(o.root, "/dev/sda1");
	CHECK_STR(o.rootfstype, "ext4");
	CHECK_STR(o.rootflags, "noatime,subvol=@");
	CHECK(o.rw);
	CHECK_STR(o.init, "/lib/systemd/systemd");
	CHECK_STR(o.resume, "UUID=abc");
	CHECK(o.resume_offset == 1234);
	CHECK(o.noresume);
	options_free(&o);

	parse(&o, "rw ro");
	CHECK(!o.rw);
	options_free(&o);
}

static void test_options_timeouts(void)
{
	struct options o;

	parse(&o, "rootwait rd.timeout=5");
	CHECK(o.timeout == -1);
	options_free(&o);
	parse(&o, "rd.timeout=7 rootdelay=90");
	CHECK(o.timeout == 7);
	options_free(&o);
	parse(&o, "rootdelay=90");
	CHECK(o.timeout == 90);
	options_free(&o);
	parse(&o, "rd.retry=12");
	CHECK(o.timeout == 12);
	options_free(&o);
	parse(&o, "rd.timeout=0");
	CHECK(o.timeout == -1);
	options_free(&o);
}

static void test_options_bad_values_warn(void)
{
	struct options o;

	buf_free(&warnings);
	parse(&o, "rd.timeout=abc loglevel=9 rd.shell=perhaps panic=x rd.break=nowhere");
	CHECK(o.timeout == DEFAULT_ROOT_TIMEOUT);
	CHECK(o.loglevel == -1);
	CHECK(o.shell);
	CHECK(o.panic == DEFAULT_PANIC_WAIT);
	CHECK(o.breaks == 0);
	CHECK_STR(warnings.p,
		  "ignoring rd.timeout=abc: not a number of seconds\n"
		  "ignoring loglevel=9: not a log level 0-7\n"
		  "ignoring rd.shell=perhaps: not a boolean (use 1 or 0)\n"
		  "ignoring panic=x: not a number of seconds\n"
		  "ignoring rd.break=nowhere: unknown break point 'nowhere'\n");
	options_free(&o);
	buf_free(&warnings);
}

static void test_options_ssh(void)
{
	struct options o;

	parse(&o, "root=/dev/vda");
	CHECK(o.ssh && o.ssh_port == 22);
	options_free(&o);
	parse(&o, "rd.ssh=0 rd.ssh.port=2222");
	CHECK(!o.ssh && o.ssh_port == 2222);
	CHECK(o.modparam_mod.n == 0); /* not a parameter of a module "rd" */
	options_free(&o);
	buf_free(&warnings);
	parse(&o, "rd.ssh.port=0 rd.ssh.port=65536 rd.ssh.port=22x");
	CHECK(o.ssh_port == 22);
	CHECK_STR(warnings.p, "ignoring rd.ssh.port=0: not a port number 1-65535\n"
			      "ignoring rd.ssh.port=65536: not a port number 1-65535\n"
			      "ignoring rd.ssh.port=22x: not a port number 1-65535\n");
	options_free(&o);
	buf_free(&warnings);
}

/* the splash: splash (or rhgb), unless plymouth.enable=0 or rd.plymouth=0 */
static void test_options_plymouth(void)
{
	struct options o;

	parse(&o, "root=/dev/vda");
	CHECK(!o.splash && o.plymouth);
	options_free(&o);
	parse(&o, "quiet splash");
	CHECK(o.splash && o.plymouth);
	options_free(&o);
	parse(&o, "rhgb plymouth.enable=0");
	CHECK(o.splash && !o.plymouth);
	CHECK(o.modparam_mod.n == 0); /* not a parameter of a module "plymouth" */
	options_free(&o);
	parse(&o, "splash rd.plymouth=0 rd.plymouth=1");
	CHECK(o.splash && o.plymouth);
	options_free(&o);
	buf_free(&warnings);
	parse(&o, "splash rd.plymouth=maybe");
	CHECK(o.plymouth);
	CHECK_STR(warnings.p, "ignoring rd.plymouth=maybe: not a boolean (use 1 or 0)\n");
	options_free(&o);
	buf_free(&warnings);
}

static void test_options_logging(void)
{
	struct options o;

	parse(&o, "quiet loglevel=3 rd.debug");
	CHECK(o.quiet && o.debug && o.loglevel == 3);
	options_free(&o);
	parse(&o, "debug");
	CHECK(o.debug);
	options_free(&o);
}

static void test_options_breaks(void)
{
	struct options o;

	parse(&o, "rd.break");
	CHECK(o.breaks == BRK_PRE_PIVOT);
	options_free(&o);
	parse(&o, "break");
	CHECK(o.breaks == BRK_PRE_MOUNT);
	options_free(&o);
	parse(&o, "rd.break=cmdline rd.break=pre-udev break=premount,bottom");
	CHECK(o.breaks == (BRK_CMDLINE | BRK_PRE_UDEV | BRK_PRE_MOUNT | BRK_PRE_PIVOT));
	options_free(&o);
	parse(&o, "break=postmount");
	CHECK(o.breaks == BRK_MOUNT);
	options_free(&o);
	parse(&o, "break=y");
	CHECK(o.breaks == BRK_PRE_MOUNT);
	options_free(&o);
	parse(&o, "rd.break=pre-mount rd.break=mount break=top");
	CHECK(o.breaks == (BRK_PRE_MOUNT | BRK_MOUNT | BRK_CMDLINE));
	options_free(&o);
}

static void test_options_shell_panic(void)
{
	struct options o;

	parse(&o, "rd.shell=0 panic=-1");
	CHECK(!o.shell);
	CHECK(o.panic == -1);
	options_free(&o);
	parse(&o, "rd.shell=0 rd.shell");
	CHECK(o.shell);
	options_free(&o);
}

static void test_options_modules(void)
{
	struct options o;

	parse(&o, "rd.driver.pre=virtio_pci,virtio_blk earlymodules=nvme "
		  "rd.modules_force_load=foo,xfs rd.driver.blacklist=floppy modprobe.blacklist=nouveau,radeon blacklist=pcspkr "
		  "i915.modeset=0 snd-hda-intel.power_save=1 usbcore.autosuspend "
		  "rd.luks.uuid=1 fsck.mode=skip systemd.unit=rescue.target net.ifnames=0 "
		  "rd.md=0 .bad=1 x.=2");
	CHECK(o.driver_pre.n == 5);
	CHECK_STR(o.driver_pre.v[0], "virtio_pci");
	CHECK_STR(o.driver_pre.v[1], "virtio_blk");
	CHECK_STR(o.driver_pre.v[2], "nvme");
	/* booster's spelling, not a parameter of a module "rd" */
	CHECK_STR(o.driver_pre.v[3], "foo");
	CHECK_STR(o.driver_pre.v[4], "xfs");
	CHECK(o.blacklist.n == 4);
	CHECK_STR(o.blacklist.v[0], "floppy");
	CHECK_STR(o.blacklist.v[1], "nouveau");
	CHECK_STR(o.blacklist.v[2], "radeon");
	CHECK_STR(o.blacklist.v[3], "pcspkr");
	CHECK(o.modparam_mod.n == 3 && o.modparam_arg.n == 3);
	CHECK_STR(o.modparam_mod.v[0], "i915");
	CHECK_STR(o.modparam_arg.v[0], "modeset=0");
	CHECK_STR(o.modparam_mod.v[1], "snd_hda_intel");
	CHECK_STR(o.modparam_arg.v[1], "power_save=1");
	CHECK_STR(o.modparam_mod.v[2], "usbcore");
	CHECK_STR(o.modparam_arg.v[2], "autosuspend");
	CHECK_STR(o.fsck_mode, "skip");
	options_free(&o);
}

/* The layers' options are the stack's (init/stack/test_stack); the network's
 * are not read yet: none of them is taken for a module parameter. */
static void test_options_of_others(void)
{
	struct options o;

	parse(&o, "rd.luks.uuid=abcd rd.luks.uuid=ef01 rd.lvm.vg=vg0 rd.md.uuid=1:2 rd.md=0 "
		  "rd.iscsi.initiator=iqn ip=dhcp nfsroot=10.0.0.1:/srv netroot=iscsi:x rd.neednet "
		  "rd.fstab=0 rd.skipfsck fsck.repair=yes cryptdevice=UUID=1:root "
		  "cryptkey=rootfs:/key disablehooks=lvm2,mdadm -- single");
	CHECK(o.modparam_mod.n == 0);
	CHECK(!o.fstab && o.skipfsck);
	CHECK_STR(o.fsck_repair, "yes");
	CHECK(o.disablehooks.n == 2);
	CHECK(o.init_args.n == 1);
	CHECK_STR(o.init_args.v[0], "single");
	options_free(&o);
}

/* Other generators' and systemd's options the init does not act on:
 * named in a warning, never taken silently (nor as module parameters). */
static void test_options_unsupported_warned(void)
{
	struct options o;

	buf_free(&warnings);
	parse(&o, "bridge=br0:eth0,eth1 bond=bond0:eth0 team vlan=vlan5:eth0");
	/* bridge=, bond=, vlan= are the network's (netvirt.h) */
	CHECK_STR(warnings.p,
		  "ignoring team: uniramfs sets up no team interface (it needs teamd): use bond=\n");
	CHECK(o.modparam_mod.n == 0);
	options_free(&o);
	buf_free(&warnings);
}

/* systemd's (and dracut's) /usr and root discovery words: taken, not
 * warned about nor passed on as module parameters. */
static void test_options_usr_gpt_auto(void)
{
	struct options o;

	buf_free(&warnings);
	parse(&o, "mount.usr=/dev/vdb mount.usrflags=ro mount.usrfstype=ext4");
	CHECK(warnings.len == 0);
	CHECK_STR(o.usr, "/dev/vdb");
	CHECK_STR(o.usrflags, "ro");
	CHECK_STR(o.usrfstype, "ext4");
	CHECK(o.gpt_auto);
	CHECK(o.modparam_mod.n == 0);
	options_free(&o);
	parse(&o, "rd.systemd.gpt_auto=0");
	CHECK(!o.gpt_auto && o.modparam_mod.n == 0);
	options_free(&o);
	parse(&o, "rd.systemd.gpt_auto=0 systemd.gpt_auto");
	CHECK(o.gpt_auto);
	options_free(&o);
	buf_free(&warnings);
}

static void test_options_unknown_ignored(void)
{
	struct options o;

	buf_free(&warnings);
	parse(&o, "splash vt.handoff=7 whatever=1 = ==");
	CHECK(warnings.len == 0);
	CHECK(o.root == NULL);
	options_free(&o);
}

/* dracut's live and overlay words: root=live: names the medium, and a
 * live root gets a tmpfs above it unless rd.overlay says otherwise. */
static void test_options_live_overlay(void)
{
	struct options o;

	parse(&o, "root=live:/dev/disk/by-label/dracut");
	CHECK(o.live);
	CHECK_STR(o.root, "/dev/disk/by-label/dracut");
	CHECK_STR(o.overlay, "");
	options_free(&o);

	parse(&o, "rd.live.image root=LABEL=ISO rd.live.dir=Live rd.live.squashimg=fs.img rd.overlay=0");
	CHECK(o.live);
	CHECK_STR(o.root, "LABEL=ISO");
	CHECK_STR(o.live_dir, "Live");
	CHECK_STR(o.live_squashimg, "fs.img");
	CHECK_STR(o.overlay, "0");
	options_free(&o);

	parse(&o, "root=/dev/vda rd.overlay=LABEL=OVERLAY");
	CHECK(!o.live);
	CHECK_STR(o.overlay, "LABEL=OVERLAY");
	options_free(&o);

	parse(&o, "root=/dev/vda rd.live.overlay.overlayfs");
	CHECK_STR(o.overlay, "");
	options_free(&o);

	/* dracut's older rd.live.overlay=, after a bare rd.overlay (TEST-30) */
	parse(&o, "rd.overlay root=live:/dev/disk/by-label/dracut rd.live.image "
		  "rd.live.overlay=LABEL=persist");
	CHECK_STR(o.overlay, "LABEL=persist");
	options_free(&o);

	/* dracut 059's rootovl: a boolean, a tmpfs overlay */
	parse(&o, "root=/dev/nfs rootovl");
	CHECK_STR(o.overlay, "");
	options_free(&o);
	parse(&o, "root=/dev/nfs rootovl=0");
	CHECK_STR(o.overlay, "0");
	options_free(&o);

	/* rd.overlay.crypt= alone asks for the overlay (TEST-21) */
	parse(&o, "root=LABEL=dracut rd.overlay.crypt=LABEL=CRYPT");
	CHECK_STR(o.overlay_crypt, "LABEL=CRYPT");
	CHECK_STR(o.overlay, "");
	options_free(&o);
}

int main(void)
{
	log_init("test", LOG_DEBUG);
	log_set_sink(sink, NULL);
	RUN(test_tokenise);
	RUN(test_quotes);
	RUN(test_dashdash);
	RUN(test_layers_last_wins);
	RUN(test_values);
	RUN(test_options_defaults);
	RUN(test_options_root);
	RUN(test_options_timeouts);
	RUN(test_options_bad_values_warn);
	RUN(test_options_logging);
	RUN(test_options_breaks);
	RUN(test_options_shell_panic);
	RUN(test_options_modules);
	RUN(test_options_of_others);
	RUN(test_options_unsupported_warned);
	RUN(test_options_usr_gpt_auto);
	RUN(test_options_unknown_ignored);
	RUN(test_options_ssh);
	RUN(test_options_plymouth);
	RUN(test_options_live_overlay);
	buf_free(&warnings);
	return test_done();
}
