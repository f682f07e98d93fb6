// SPDX-License-Identifier: GPL-2.0-or-later
/* `uniramfs import-config` on the shipped configs of initramfs-tools,
 * dracut and mkinitcpio (tests/unit/fixtures/import/), and on hostile
 * ones: what it prints is what uniramfs build reads, and it writes only
 * SYSROOT/etc/uniramfs.conf. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen/config.h"
#include "err.h"
#include "gen/import/import.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static char *fixtures, *tmpdir, *uniramfs;

/* the output, parsed back as uniramfs build would */
static void parse_back(const char *text, struct build_opts *o)
{
	char *copy = xstrdup(text);
	build_opts_init(o);
	CHECK(config_parse(o, "out", copy) == 0);
	free(copy);
}

static void check_golden(const char *name, const char *from)
{
	char *root = path_join(fixtures, name), *exp_path = xasprintf("%s.expected", root), *expected = NULL;
	struct buf out = { 0 };
	size_t len;
	CHECK(import_config(root, from, &out) == 0);
	CHECK(read_file(exp_path, &expected, &len) == 0);
	CHECK_STR(out.p, expected);
	free(expected);
	free(exp_path);
	free(root);
	buf_free(&out);
}

static void test_initramfs_tools_shipped(void)
{
	char *root = path_join(fixtures, "initramfs-tools");
	struct buf out = { 0 };
	struct build_opts o;
	check_golden("initramfs-tools", NULL);
	CHECK(import_config(root, "initramfs-tools", &out) == 0);
	parse_back(out.p, &o);
	CHECK(o.mode == MODE_GENERIC);
	CHECK(o.compress == COMP_ZSTD);
	CHECK_STR(o.cmdline, "resume=UUID=0b6c1d7e-2f4a-4c1e-9a39-6f3d3c2b1a00");
	/* initramfs-tools' busybox is the rescue shell uniramfs packs by default */
	CHECK(strstr(out.p, "# /etc/initramfs-tools/initramfs.conf:30: BUSYBOX=auto\n#   the same in "
			    "uniramfs: busybox, when the host has it, is the rescue shell\n"));
	CHECK(o.rescue.shell == RESCUE_SHELL_AUTO);
	build_opts_free(&o);
	buf_free(&out);
	free(root);
}

static void test_initramfs_tools_site(void)
{
	char *root = path_join(fixtures, "initramfs-tools-site");
	struct buf out = { 0 };
	struct build_opts o;
	check_golden("initramfs-tools-site", NULL);
	CHECK(import_config(root, NULL, &out) == 0);
	parse_back(out.p, &o);
	CHECK(o.mode == MODE_HOSTONLY);
	CHECK(o.compress == COMP_XZ);
	CHECK(o.compress_level == 19);
	CHECK(o.cmdline == NULL); /* RESUME=none */
	CHECK(o.rescue.shell == RESCUE_SHELL_NO); /* BUSYBOX=n */
	CHECK(o.add_modules.n == 5 && strv_contains(&o.add_modules, "btrfs") &&
	      strv_contains(&o.add_modules, "e1000e") && strv_contains(&o.add_modules, "dm_crypt"));
	/* conf.d's hidden and dpkg leftover files are not read */
	CHECK(!strstr(out.p, ".hidden") && !strstr(out.p, "dpkg-old") && !strstr(out.p, "netboot"));
	CHECK(strstr(out.p, "if [ -e /etc/hostname ]; then NFSROOT=auto; fi\n#   not carried over: not an assignment"));
	build_opts_free(&o);
	buf_free(&out);
	free(root);
}

static void test_dracut(void)
{
	char *root = path_join(fixtures, "dracut");
	struct buf out = { 0 };
	struct build_opts o;
	check_golden("dracut", "dracut");
	CHECK(import_config(root, "dracut", &out) == 0);
	parse_back(out.p, &o);
	/* fedora's hostonly=yes, then /etc's 02-suse.conf (hiding /usr/lib's) */
	CHECK(o.mode == MODE_GENERIC);
	CHECK(!strstr(out.p, "/usr/lib/dracut/dracut.conf.d/02-suse.conf"));
	CHECK(o.compress == COMP_XZ);
	CHECK(o.microcode == MICROCODE_NONE);
	/* add_drivers= replaced the earlier add_drivers+= */
	CHECK(o.add_modules.n == 3 && strv_contains(&o.add_modules, "btrfs") &&
	      strv_contains(&o.add_modules, "virtio_scsi") && !strv_contains(&o.add_modules, "nvme"));
	CHECK(o.omit_modules.n == 2);
	CHECK(o.add_files.n == 2 && strv_contains(&o.add_files, "/etc/crypttab"));
	CHECK(o.add_binaries.n == 1 && strv_contains(&o.add_binaries, "cryptsetup"));
	CHECK_STR(o.cmdline, "rd.luks.uuid=luks-1234 quiet");
	build_opts_free(&o);
	buf_free(&out);
	free(root);
}

static void test_mkinitcpio(void)
{
	char *root = path_join(fixtures, "mkinitcpio");
	struct buf out = { 0 };
	struct build_opts o;
	check_golden("mkinitcpio", NULL);
	CHECK(import_config(root, "mkinitcpio", &out) == 0);
	parse_back(out.p, &o);
	CHECK(o.mode == MODE_HOSTONLY); /* autodetect */
	CHECK(strstr(out.p, "#   not carried over: hooks keymap consolefont "));
	build_opts_free(&o);
	buf_free(&out);
	free(root);
}

static void test_choose_generator(void)
{
	char *both = path_join(tmpdir, "both"), *none = path_join(tmpdir, "none"), *expect;
	struct buf out = { 0 };
	write_under(both, "etc/initramfs-tools/initramfs.conf", "MODULES=dep\n");
	write_under(both, "etc/dracut.conf", "hostonly=yes\n");
	mkdir_p(none, 0755);
	CHECK(import_config(both, NULL, &out) < 0);
	expect = xasprintf("configs of several generators under %s: initramfs-tools "
			   "(/etc/initramfs-tools/initramfs.conf), dracut (/etc/dracut.conf): choose one with --from", both);
	CHECK_STR(err_msg(), expect);
	free(expect);
	CHECK(import_config(none, NULL, &out) < 0);
	expect = xasprintf("no initramfs-tools, dracut or mkinitcpio config under %s (give --from and --sysroot)",
			   none);
	CHECK_STR(err_msg(), expect);
	free(expect);
	CHECK(import_config(none, "mkinitcpio", &out) < 0);
	expect = xasprintf("no mkinitcpio config under %s (/etc/mkinitcpio.conf)", none);
	CHECK_STR(err_msg(), expect);
	free(expect);
	CHECK(import_config(none, "genkernel", &out) < 0);
	CHECK_STR(err_msg(), "--from 'genkernel': expected initramfs-tools, dracut or mkinitcpio");
	CHECK(import_config(both, "dracut", &out) == 0);
	buf_free(&out);
	free(both);
	free(none);
}

static void test_bad_syntax_named(void)
{
	char *root = path_join(tmpdir, "badquote");
	struct buf out = { 0 };
	write_under(root, "etc/dracut.conf", "hostonly=yes\n\nadd_drivers+=\" nvme\n");
	CHECK(import_config(root, NULL, &out) < 0);
	CHECK_STR(err_msg(), "/etc/dracut.conf:3: unterminated \" quote");
	write_under(root, "etc/dracut.conf", "omit_drivers=(floppy\n");
	CHECK(import_config(root, NULL, &out) < 0);
	CHECK_STR(err_msg(), "/etc/dracut.conf:1: unterminated array omit_drivers=(");
	buf_free(&out);
	free(root);
}

/* Values that would become keys of their own, or break the list
 * syntax, if copied: left out, each with its comment. */
static void test_hostile_values_cannot_inject(void)
{
	char *root = path_join(tmpdir, "hostile");
	struct buf out = { 0 };
	struct build_opts o;
	write_under(root, "etc/dracut.conf",
	    "kernel_cmdline=\"quiet\nmode = hostonly\"\n"
	    "add_drivers+=\" a,b ok \"\n"
	    "install_items+=\" /etc/x#y \"\n"
	    "kernel_cmdline+=\" $(rm -rf /) \"\n");
	CHECK(import_config(root, NULL, &out) == 0);
	parse_back(out.p, &o);
	CHECK(o.mode == MODE_GENERIC);
	CHECK(o.cmdline == NULL);
	CHECK(o.add_modules.n == 1 && strv_contains(&o.add_modules, "ok"));
	CHECK(o.add_files.n == 0);
	CHECK(strstr(out.p, "#   not carried over: 'a,b' is not carried over: a comma, # or control character"));
	CHECK(strstr(out.p, "#   not carried over: uses shell expansion"));
	/* the newline is shown as a blank in the comment, not obeyed */
	CHECK(strstr(out.p, "# /etc/dracut.conf:1: kernel_cmdline=\"quiet mode = hostonly\"\n"));
	build_opts_free(&o);
	buf_free(&out);
	free(root);
}

/* A word refused for its newline, and a hook name with one, become
 * comments whose every line stays a comment: the "cmdline = ..." after
 * the newline is shown, never obeyed (issue 24, item 4). */
static void test_refused_word_note_is_escaped(void)
{
	static const char *const confs[][2] = {
		{ "etc/mkinitcpio.conf", "MODULES=(ok 'x\ncmdline = init=/bin/sh rd.shell')\n"
					 "HOOKS=(base 'y\ncmdline = init=/bin/sh')\n" },
		{ "etc/dracut.conf", "add_drivers+=(ok 'x\ncmdline = init=/bin/sh rd.shell')\n" },
		{ "etc/initramfs-tools/initramfs.conf", "FSTYPE='x\ncmdline = init=/bin/sh rd.shell'\n" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(confs); i++) {
		char *root = xasprintf("%s/note%zu", tmpdir, i);
		struct buf out = { 0 };
		struct build_opts o;
		write_under(root, confs[i][0], confs[i][1]);
		CHECK(import_config(root, NULL, &out) == 0);
		parse_back(out.p, &o);
		CHECK(o.cmdline == NULL);
		CHECK(!strstr(out.p, "\ncmdline"));
		CHECK(strstr(out.p, "#   not carried over: 'x cmdline = init=/bin/sh rd.shell' is not carried over: "
					    "a comma, # or control character"));
		build_opts_free(&o);
		buf_free(&out);
		free(root);
	}
}

/* Links are followed inside the sysroot; a FIFO is never opened. */
static void test_links_and_fifos(void)
{
	char *root = path_join(tmpdir, "links"), *link, *fifo, *expect;
	struct buf out = { 0 };
	write_under(root, "etc/dracut.conf", "hostonly=yes\n");
	write_under(root, "etc/dracut.conf.d/.keep", "");
	link = path_join(root, "etc/dracut.conf.d/10-host.conf");
	/* on the host this is a real file; in the sysroot it is missing */
	CHECK(symlink("/etc/os-release", link) == 0);
	CHECK(import_config(root, NULL, &out) == 0);
	CHECK(!strstr(out.p, "10-host.conf"));
	buf_free(&out);
	memset(&out, 0, sizeof(out));
	fifo = path_join(root, "etc/dracut.conf.d/20-fifo.conf");
	CHECK(mkfifo(fifo, 0644) == 0);
	CHECK(import_config(root, NULL, &out) < 0);
	expect = xasprintf("/etc/dracut.conf.d/20-fifo.conf: not a regular file");
	CHECK_STR(err_msg(), expect);
	free(expect);
	buf_free(&out);
	free(fifo);
	free(link);
	free(root);
}

static void test_write(void)
{
	char *root = path_join(tmpdir, "write"), *cmd, *out = NULL, *expect, *data = NULL, *outside, *conf;
	size_t len;
	struct stat st;
	write_under(root, "etc/mkinitcpio.conf", "HOOKS=(base udev autodetect block filesystems)\nCOMPRESSION=\"lz4\"\n");
	cmd = xasprintf("%s import-config --sysroot %s --write 2>&1", uniramfs, root);
	CHECK(run_capture(cmd, &out) == 0);
	CHECK_STR(out, "");
	free(out);
	conf = path_join(root, "etc/uniramfs.conf");
	CHECK(read_file(conf, &data, &len) == 0 && strstr(data, "\ncompress = lz4\n"));
	CHECK(stat(conf, &st) == 0 && (st.st_mode & 0777) == 0644);
	free(data);
	/* a second time: kept */
	CHECK(run_capture(cmd, &out) == 1);
	expect = xasprintf("uniramfs: error: --write: %s exists (--force replaces it)\n", conf);
	CHECK_STR(out, expect);
	free(expect);
	free(out);
	free(cmd);
	/* --force over a link pointing out of the sysroot: the link is
	 * replaced, its target untouched */
	outside = path_join(tmpdir, "outside.conf");
	write_under(tmpdir, "outside.conf", "precious\n");
	unlink(conf);
	CHECK(symlink(outside, conf) == 0);
	cmd = xasprintf("%s import-config --sysroot %s --write --force 2>&1", uniramfs, root);
	CHECK(run_capture(cmd, &out) == 0);
	free(out);
	CHECK(lstat(conf, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(read_file(outside, &data, &len) == 0 && strcmp(data, "precious\n") == 0);
	free(data);
	free(cmd);
	cmd = xasprintf("%s import-config --sysroot %s --force 2>&1", uniramfs, root);
	CHECK(run_capture(cmd, &out) == 1);
	CHECK_STR(out, "uniramfs: error: import-config: --force goes with --write\n");
	free(out);
	free(cmd);
	free(outside);
	free(conf);
	free(root);
}

/* The network settings: initramfs-tools' BOOT=nfs, DEVICE= and NFSROOT=
 * become the command line of an NFS root; DEVICE= without BOOT=nfs would
 * bring the network up on every boot, so it stays a note; dracut's
 * network modules are the init's own work, its network configs are
 * packed but not read. */
static void test_network_settings(void)
{
	char *nfs = path_join(tmpdir, "it-nfs"), *dev = path_join(tmpdir, "it-dev"), *dr = path_join(tmpdir, "dr-net");
	struct buf out = { 0 };
	struct build_opts o;

	write_under(nfs, "etc/initramfs-tools/initramfs.conf",
		    "BOOT=nfs\nDEVICE=eth1\nNFSROOT=nfsserver.lan:/srv/root\n");
	CHECK(import_config(nfs, NULL, &out) == 0);
	CHECK(strstr(out.p, "# /etc/initramfs-tools/initramfs.conf:1: BOOT=nfs\n#   carried into the cmdline "
			    "line at the end\n\n# /etc/initramfs-tools/initramfs.conf:2: DEVICE=eth1\n#   carried "
			    "into the cmdline line at the end\n\n# /etc/initramfs-tools/initramfs.conf:3: "
			    "NFSROOT=nfsserver.lan:/srv/root\n#   carried into the cmdline line at the end\n"));
	parse_back(out.p, &o);
	CHECK_STR(o.cmdline, "root=/dev/nfs ip=:::::eth1:dhcp nfsroot=nfsserver.lan:/srv/root");
	build_opts_free(&o);
	buf_free(&out);

	write_under(dev, "etc/initramfs-tools/initramfs.conf",
		    "DEVICE='eth 1'\nNFSROOT='a b'\nBOOT=tftp\nDEVICE=eth1\nNFSROOT=10.0.0.1:/srv\nBOOT=local\n");
	CHECK(import_config(dev, NULL, &out) == 0);
	CHECK(strstr(out.p, "# /etc/initramfs-tools/initramfs.conf:4: DEVICE=eth1\n#   not carried over: "
			    "initramfs-tools uses it only for a network boot, which BOOT= does not make every boot: on "
			    "a command line that boots from NFS, add ip=:::::eth1:dhcp\n"));
	CHECK(strstr(out.p, "# /etc/initramfs-tools/initramfs.conf:6: BOOT=local\n#   the same in uniramfs: the "
			    "root is a local device unless the command line names a network root\n"));
	CHECK(strstr(out.p, "DEVICE='eth 1'\n#   not carried over: not an interface name\n"));
	CHECK(strstr(out.p, "NFSROOT='a b'\n#   not carried over: not auto or SERVER:PATH\n"));
	CHECK(strstr(out.p, "BOOT=tftp\n#   not carried over: not local or nfs\n"));
	parse_back(out.p, &o);
	/* nfsroot= counts only with root=/dev/nfs: harmless on a local boot */
	CHECK_STR(o.cmdline, "nfsroot=10.0.0.1:/srv");
	build_opts_free(&o);
	buf_free(&out);

	write_under(dr, "etc/dracut.conf",
		    "kernel_cmdline=\"ip=dhcp rd.neednet=1\"\nadd_dracutmodules+=\" network nfs crypt \"\n"
		    "install_items+=\" /etc/NetworkManager/system-connections/lan.nmconnection \"\n");
	CHECK(import_config(dr, "dracut", &out) == 0);
	CHECK(strstr(out.p, "# /etc/dracut.conf:2: add_dracutmodules+=\" network nfs crypt \"\n#   the same in "
			    "uniramfs: modules network nfs: the uniramfs init brings the network up itself when the "
			    "command line asks (ip=, rd.neednet=1, a network root), and a generic image holds the "
			    "usual NIC drivers and the NFS, iSCSI and NBD clients (hostonly: those of the host's own "
			    "network root)\n\n# /etc/dracut.conf:2: add_dracutmodules+=\" network nfs crypt \"\n#   "
			    "not carried over: crypt: uniramfs has no dracut modules"));
	CHECK(strstr(out.p, "#   packed, but the uniramfs init reads no NetworkManager, ifcfg or networkd file: its "
			    "network comes from ip=, nameserver= and the network root on the command line\n"));
	parse_back(out.p, &o);
	CHECK_STR(o.cmdline, "ip=dhcp rd.neednet=1");
	CHECK(o.add_files.n == 1);
	build_opts_free(&o);
	buf_free(&out);

	/* the modules that make an overlay's upper layer at boot: the tools */
	free(dr);
	dr = path_join(tmpdir, "dr-ovl");
	write_under(dr, "etc/dracut.conf", "add_dracutmodules+=\" overlayfs-crypt crypt \"\n");
	CHECK(import_config(dr, "dracut", &out) == 0);
	CHECK(strstr(out.p, "# /etc/dracut.conf:1: add_dracutmodules+=\" overlayfs-crypt crypt \"\n#   "
			    "modules overlayfs-crypt: cryptsetup, mkfs.ext4 and sfdisk for rd.overlay.crypt= and "
			    "a live medium's automatic overlay partition\noverlay-tools = yes\n"));
	CHECK(strstr(out.p, "not carried over: crypt: uniramfs has no dracut modules"));
	parse_back(out.p, &o);
	CHECK(o.overlay_tools);
	build_opts_free(&o);
	buf_free(&out);
	free(nfs);
	free(dev);
	free(dr);
}

int main(void)
{
	const char *src = getenv("UNIRAMFS_SRCDIR"), *bd = getenv("UNIRAMFS_BUILDDIR");
	char tmpl[] = "/tmp/uniramfs-test-import-XXXXXX";

	if (!src || !bd) {
		printf("1..0 # SKIP no source or build dir\n");
		return 0;
	}
	fixtures = path_join(src, "tests/unit/fixtures/import");
	uniramfs = path_join(bd, "uniramfs");
	tmpdir = xstrdup(mkdtemp(tmpl));
	RUN(test_initramfs_tools_shipped);
	RUN(test_initramfs_tools_site);
	RUN(test_dracut);
	RUN(test_mkinitcpio);
	RUN(test_choose_generator);
	RUN(test_bad_syntax_named);
	RUN(test_hostile_values_cannot_inject);
	RUN(test_refused_word_note_is_escaped);
	RUN(test_links_and_fifos);
	RUN(test_write);
	RUN(test_network_settings);
	{
		char *rm = xasprintf("rm -rf %s", tmpdir);
		if (system(rm) != 0)
			printf("# could not remove %s\n", tmpdir);
		free(rm);
	}
	free(fixtures);
	free(uniramfs);
	free(tmpdir);
	return test_done();
}
