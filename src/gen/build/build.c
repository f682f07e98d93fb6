// SPDX-License-Identifier: GPL-2.0-or-later
/* `uniramfs build`: choose what goes in (init, modules, binaries, files),
 * then stream it sorted as one cpio through the compressor into an
 * unnamed file that only becomes the image once complete. */
#include "gen/build/build.h"

#include "buildconf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cpio.h"
#include "cmdline.h"
#include "err.h"
#include "gen/build/build_kdump.h"
#include "gen/build/build_priv.h"
#include "gen/build/opts.h"
#include "gen/compress/compress.h"
#include "gen/elf/elf.h"
#include "gen/elf/elf_ldcache.h"
#include "gen/features/console.h"
#include "gen/features/early_gen.h"
#include "gen/features/livetools.h"
#include "gen/features/measure.h"
#include "gen/features/nettools.h"
#include "gen/features/livehttps.h"
#include "gen/features/plymouth.h"
#include "gen/features/overlaytools.h"
#include "gen/features/rescue.h"
#include "gen/features/ssh.h"
#include "gen/features/stack.h"
#include "gen/host/companion.h"
#include "gen/host/space.h"
#include "gen/host/sysroot.h"
#include "gen/hostonly/hostonly.h"
#include "gen/image/format_gen_init_cpio.h"
#include "gen/image/image.h"
#include "gen/image/microcode.h"
#include "gen/image/output.h"
#include "gen/image/squash.h"
#include "gen/modules/kernel_tree.h"
#include "gen/modules/modules.h"
#include "gen/modules/modules_priv.h"
#include "gen/plugins/plugin.h"
#include "layout.h"
#include "log.h"
#include "nameset.h"

static int resolve_kver(struct plan *p)
{
	struct utsname u;
	struct stat st;

	if (p->o->kernel_tree) {
		if (p->o->kmoddir)
			return err_set("--kernel-tree and --kmoddir both name the modules: give one");
		if (kernel_tree_open(&p->kt, p->o->kernel_tree, p->o->kver) < 0)
			return err_code();
		p->kver = xstrdup(p->kt.kver);
		p->kmoddir = p->kt.kmoddir ? xstrdup(p->kt.kmoddir) : NULL;
		return 0;
	}
	if (p->o->kver) {
		p->kver = xstrdup(p->o->kver);
	} else {
		if (uname(&u) < 0)
			return err_errno(errno, "uname");
		p->kver = xstrdup(u.release);
	}
	if (strchr(p->kver, '/') || strcmp(p->kver, "..") == 0 || strcmp(p->kver, ".") == 0)
		return err_set("bad kernel version '%s'", p->kver);
	if (p->o->kmoddir) {
		p->kmoddir = xstrdup(p->o->kmoddir);
		if (stat(p->kmoddir, &st) < 0 || !S_ISDIR(st.st_mode))
			return err_set("kernel version '%s' not found: no module directory %s", p->kver,
				       p->kmoddir);
		return 0;
	}
	/* resolved inside the sysroot: Arch's /lib is a link to usr/lib, and
	 * an absolute link there must not lead to the host's own modules */
	char *rel = xasprintf("/lib/modules/%s", p->kver);
	if (sysroot_path(p->sysroot, rel, &p->kmoddir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		char *shown = build_host_path(p, rel);
		err_clear();
		free(p->kmoddir);
		p->kmoddir = NULL;
		err_set("kernel version '%s' not found: no module directory %s", p->kver, shown);
		free(shown);
		free(rel);
		return err_code();
	}
	free(rel);
	return 0;
}

/* Debian and its children name the image initrd.img-KVER; the rest
 * (Fedora, Arch with kernel-install, SUSE) initramfs-KVER.img. */
char *build_image_name(const char *sysroot, const char *kver)
{
	char *deb = path_join(sysroot, "/etc/debian_version");
	char *name = access(deb, F_OK) == 0 ? xasprintf("initrd.img-%s", kver) : xasprintf("initramfs-%s.img", kver);
	free(deb);
	return name;
}

static void resolve_output(struct plan *p)
{
	char *name;
	if (p->o->output) {
		p->output = xstrdup(p->o->output);
		return;
	}
	if (p->o->kdump) {
		p->output = build_kdump_output(p->sysroot, p->kver);
		return;
	}
	name = build_image_name(p->sysroot, p->kver);
	p->output = path_join("/boot", name);
	free(name);
}

/* The init sits next to uniramfs in a build tree; installed, it is in
 * the libexec directory. */
static char *find_init(const struct build_opts *o)
{
	static const char *const beside[] = { "uniramfs-init", "src/init/uniramfs-init",
					      "../init/uniramfs-init" };
	char *c;

	if (o->init)
		return xstrdup(o->init);
	c = companion_find(beside, ARRAY_SIZE(beside), "uniramfs-init", X_OK);
	return c ? c : xstrdup(UNIRAMFS_LIBEXECDIR "/uniramfs-init");
}

/* The program the init leaves in /run/initramfs for systemd-shutdown
 * to return to (src/shutdown/); found as the init is. An image without
 * it still boots: the old root is then unmounted by systemd alone. */
static char *find_shutdown(void)
{
	static const char *const beside[] = { "src/shutdown/uniramfs-shutdown", "uniramfs-shutdown",
					      "../shutdown/uniramfs-shutdown" };

	return companion_find(beside, ARRAY_SIZE(beside), "uniramfs-shutdown", X_OK);
}

/* os-release(5) format. systemd's in_initrd() is true where this file
 * is, so a systemd program the image carries (systemd-cryptsetup, a
 * hook's systemd-ask-password) knows it runs in an initrd; it is not
 * handed over (the initramfs is freed at switch_root). The same bytes in
 * every image of a version: images stay reproducible. */
static const char initrd_release[] =
	"NAME=\"uniramfs\"\n"
	"ID=uniramfs\n"
	"VERSION=\"" UNIRAMFS_VERSION "\"\n"
	"VERSION_ID=" UNIRAMFS_VERSION "\n"
	"PRETTY_NAME=\"uniramfs " UNIRAMFS_VERSION " initramfs\"\n";

static int add_skeleton(struct plan *p)
{
	static const char *const dirs[] = { "/dev", "/proc", "/sys", "/run", "/sysroot", "/tmp", "/etc", "/root" };
	char *init = find_init(p->o);
	char *kver = xasprintf("%s\n", p->kver);
	int r = image_add_file(p->img, "/init", init, 0755, 0);

	if (r < 0)
		err_wrap("init program (use --init FILE)");
	free(init);
	/* the kernel's request_module answered by the init (init/modprobe.c) */
	if (r == 0)
		r = image_add_symlink(p->img, LAYOUT_MODPROBE, "/init");
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(dirs); i++)
		r = image_add_dir(p->img, dirs[i], strcmp(dirs[i], "/tmp") == 0 ? 01777 : 0755);
	if (r == 0)
		r = image_add_node(p->img, "/dev/console", S_IFCHR | 0600, 5, 1);
	if (r == 0)
		r = image_add_node(p->img, "/dev/null", S_IFCHR | 0666, 1, 3);
	if (r == 0)
		r = image_add_data(p->img, "/etc/uniramfs/kver", kver, strlen(kver), 0644);
	if (r == 0)
		r = image_add_data(p->img, "/etc/initrd-release", initrd_release,
				   sizeof(initrd_release) - 1, 0644);
	free(kver);
	/* a kdump image reboots from the initramfs: no real init to hand
	 * the shutdown program over to */
	if (r == 0 && !p->o->init && !p->o->kdump) {
		char *shutdown = find_shutdown();
		if (shutdown)
			r = image_add_file(p->img, LAYOUT_SHUTDOWN, shutdown, 0755, 0);
		else
			log_info("no uniramfs-shutdown: the image has no /run/initramfs/shutdown to leave");
		free(shutdown);
	}
	return r;
}

/* A kernel without module support (m NULL) needs none of them. */
static int want_module(struct modules *m, const char *name)
{
	return m ? modules_add(m, name, false) : 0;
}

/* The record the init names when a hostonly image does not find its
 * root: on other hardware that is the likely reason, and the fallback
 * image the way out. */
static int add_hostonly_record(struct plan *p, const struct hostonly *h)
{
	struct buf b = { 0 };
	int r;

	buf_printf(&b, "root=%s\nfstype=%s\ndrivers=", h->root_dev ? h->root_dev : "",
		   h->fstypes.n ? h->fstypes.v[0] : "");
	for (size_t i = 0; i < h->modules.n; i++)
		buf_printf(&b, "%s%s", i ? "," : "", h->modules.v[i]);
	buf_printf(&b, "\n");
	if (p->fallback)
		buf_printf(&b, "fallback=%s\n", p->fallback);
	r = image_add_data(p->img, LAYOUT_HOSTONLY_FILE, b.p, b.len, 0644);
	buf_free(&b);
	return r;
}

static int add_hostonly(struct plan *p, struct modules *m)
{
	struct hostonly h = { 0 };
	int r = hostonly_detect(p->sysroot, &h);

	/* SSH needs the NICs the root does not */
	if (r == 0 && p->ssh.on)
		r = hostonly_nics(p->sysroot, &h);
	if (r < 0) {
		hostonly_free(&h);
		return err_wrap("hostonly");
	}
	for (size_t i = 0; r == 0 && i < h.modules.n; i++)
		r = want_module(m, h.modules.v[i]);
	/* bond=, vlan=, bridge= in --cmdline: their drivers, though no
	 * interface of the host is one (the host's own links are found
	 * with the network root, hostonly_netvirt.c) */
	if (r == 0 && p->o->cmdline) {
		static const char *const links[][2] = { { "bond", "bonding" }, { "vlan", "8021q" },
							{ "bridge", "bridge" } };
		struct cmdline c = { 0 };
		cmdline_parse(&c, p->o->cmdline);
		for (size_t i = 0; r == 0 && i < ARRAY_SIZE(links); i++)
			if (cmdline_has(&c, links[i][0]))
				r = want_module(m, links[i][1]);
		cmdline_free(&c);
	}
	for (size_t i = 0; r == 0 && i < h.modaliases.n; i++)
		r = want_module(m, h.modaliases.v[i]);
	for (size_t i = 0; r == 0 && i < h.fstypes.n; i++) {
		/* filesystems register "fs-TYPE" aliases; ext4 serves ext2/3 */
		char *alias = xasprintf("fs-%s", h.fstypes.v[i]);
		r = want_module(m, alias);
		free(alias);
	}
	/* A layer's own modules (dm_mod, dm_crypt, md_mod, raid456...) are
	 * in h.modules, decided where the layer is found (hostonly.c);
	 * what its tools need beyond them, the stack's plan says. */
	if (r == 0)
		r = add_hostonly_record(p, &h);
	if (r == 0) {
		struct strv extra = { 0 };
		stack_plan_hostonly(&p->stack, p->sysroot, &h);
		early_plan_hostonly(&p->early, &h);
		net_plan_hostonly(&p->net, &h);
		plugin_facts_hostonly(&p->facts, &h);
		stack_plan_modules(&p->stack, &extra);
		measure_plan_hostonly(p->sysroot, &extra);
		for (size_t i = 0; r == 0 && i < extra.n; i++)
			r = want_module(m, extra.v[i]);
		strv_free(&extra);
	}
	log_info("hostonly: root %s (%s), %zu drivers, %zu device aliases%s%s", h.root_dev ? h.root_dev : "?",
		 h.fstypes.n ? h.fstypes.v[0] : "?", h.modules.n, h.modaliases.n,
		 h.resume_dev ? ", resume " : "", h.resume_dev ? h.resume_dev : "");
	hostonly_free(&h);
	return r;
}

/* uniramfs's features that the plugins' if-feature asks (after hostonly
 * and ssh_plan_decide, which decide them): clevis when wanted and its
 * plugin's programs are there, ssh-unlock when it is on. */
static int plugin_features(struct plan *p)
{
	int r = stack_clevis_decide(&p->stack, &p->plugins, p->sysroot);

	strv_free(&p->facts.features);
	if (r == 0 && p->stack.clevis_on)
		strv_push(&p->facts.features, "clevis");
	if (r == 0 && p->stack.clevis_on && stack_clevis_tpm2_wanted(&p->stack))
		strv_push(&p->facts.features, "clevis-tpm2");
	if (p->ssh.on)
		strv_push(&p->facts.features, "ssh-unlock");
	/* the crash kernel's image: the dump, and what the root needs; the
	 * host's running command line (splash) is not the crash kernel's */
	if (r == 0 && p->o->kdump) {
		const char *prog, *where;
		strv_push(&p->facts.features, "kdump");
		if (plugins_feature_missing(&p->plugins, p->sysroot, "kdump", &prog, &where))
			r = err_set("--kdump: %s is not installed (%s)%s", prog, where,
				    strcmp(prog, "makedumpfile") ? "" : "; apt install makedumpfile");
		return r;
	}
	if (overlay_tools_wanted(p->o->overlay_tools, p->o->cmdline, p->sysroot,
				 p->o->mode == MODE_HOSTONLY))
		strv_push(&p->facts.features, "overlay-tools");
	if (live_https_wanted(p->o->live_https, p->o->cmdline, p->sysroot, p->o->mode == MODE_HOSTONLY))
		strv_push(&p->facts.features, "live-https");
	if (plymouth_wanted(p->o->plymouth, p->o->cmdline, p->sysroot, p->o->mode == MODE_HOSTONLY))
		strv_push(&p->facts.features, "plymouth");
	else if (r == 0 && p->o->plymouth == PLYMOUTH_YES)
		r = err_set("plymouth = yes, but plymouthd is not installed (apt install plymouth)");
	return r;
}

static int want_builtin(void *ctx, const char *module, bool required)
{
	char *name = modname_normalize(module);
	bool has = nameset_has(ctx, name);

	free(name);
	return has || !required ? 0 : err_set("module '%s': the kernel has no module support and it is not built in", module);
}

/* An optional module goes into a generic image when the kernel has it;
 * a hostonly image leaves it to hostonly, which packed the root's own. */
static int want_plugin_module(void *ctx, const char *module, bool required)
{
	struct plan *p = ctx;

	if (!required && p->o->mode == MODE_HOSTONLY)
		return 0;
	return modules_add(p->mods, module, required);
}

/* Without module support the image has no modules, only the list of
 * built-in ones (for a rescue shell's modprobe, and so the init knows);
 * a module asked for must be one of them. */
static int add_builtin_only(struct plan *p)
{
	struct nameset builtin = { 0 };
	char *data = NULL, *line, *save, *dst;
	size_t len;
	int r = 0;

	if (p->kt.builtin && read_file(p->kt.builtin, &data, &len) == 0) {
		for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *name = modname_from_path(line);
			nameset_put(&builtin, name, NULL);
			free(name);
		}
		dst = xasprintf("/lib/modules/%s/modules.builtin", p->kver);
		r = image_add_file(p->img, dst, p->kt.builtin, 0644, 0);
		free(dst);
	}
	for (size_t i = 0; r == 0 && i < p->o->add_modules.n; i++) {
		char *name = modname_normalize(p->o->add_modules.v[i]);
		if (!nameset_has(&builtin, name))
			r = err_set("module '%s': kernel %s has no module support (CONFIG_MODULES is off) "
				    "and %s", p->o->add_modules.v[i], p->kver,
				    p->kt.builtin ? "it is not in its modules.builtin" : "no modules.builtin");
		free(name);
	}
	if (r == 0 && p->o->mode == MODE_HOSTONLY)
		r = add_hostonly(p, NULL);
	if (r == 0)
		r = plugin_features(p);
	if (r == 0) {
		plugins_select(&p->plugins, p->sysroot, &p->facts);
		r = plugins_each_module(&p->plugins, want_builtin, &builtin);
	}
	nameset_free(&builtin);
	free(data);
	return r;
}

/* The splash on this machine: the DRM drivers bound to its displays,
 * with their firmware (modinfo's), which hostonly did not pack for the
 * root. */
static int add_host_drm(struct plan *p, struct modules *m)
{
	struct strv drm = { 0 };
	char *sysfs = path_join(p->sysroot, "/sys");
	int r = 0;

	plymouth_host_drm(sysfs, &drm);
	for (size_t i = 0; r == 0 && i < drm.n; i++) {
		log_info("plymouth: this machine's display driver %s", drm.v[i]);
		r = modules_add(m, drm.v[i], false);
	}
	strv_free(&drm);
	free(sysfs);
	return r;
}

static int add_modules(struct plan *p)
{
	struct modules *m = NULL;
	static const char *const mpdirs[] = { LAYOUT_MODPROBE_DIRS };
	struct buf mp = { 0 };
	char *fw;
	int r;

	if (!p->kmoddir)
		return add_builtin_only(p);
	fw = xasprintf("/lib/firmware/updates/%s:/lib/firmware/updates:/lib/firmware/%s:/lib/firmware", p->kver,
		       p->kver);
	for (size_t i = 0; i < ARRAY_SIZE(mpdirs); i++)
		buf_printf(&mp, "%s%s", i ? ":" : "", mpdirs[i]);
	r = modules_open(&m, p->sysroot, p->kmoddir, p->kver, fw);

	if (r == 0) {
		modules_omit(m, &p->o->omit_modules);
		if (p->o->mode != MODE_HOSTONLY)
			modules_summarize_missing_firmware(m);
		r = p->o->mode == MODE_HOSTONLY ? add_hostonly(p, m) : modules_add_generic(m);
	}
	for (size_t i = 0; r == 0 && i < p->o->add_modules.n; i++)
		r = modules_add(m, p->o->add_modules.v[i], true);
	/* after hostonly: its facts are the plugins' conditions */
	if (r == 0)
		r = plugin_features(p);
	if (r == 0) {
		plugins_select(&p->plugins, p->sysroot, &p->facts);
		p->mods = m;
		r = plugins_each_module(&p->plugins, want_plugin_module, p);
		p->mods = NULL;
	}
	if (r == 0 && p->o->mode == MODE_HOSTONLY && strv_contains(&p->facts.features, "plymouth"))
		r = add_host_drm(p, m);
	/* what the init loads to mount the squashfs stays outside it; a
	 * kernel config that says =m is no promise the module is there */
	static const char *const squash_mods[] = { LAYOUT_SQUASH_MODULE_NAMES };
	for (size_t i = 0; r == 0 && p->squash.on && i < ARRAY_SIZE(squash_mods); i++) {
		r = modules_add(m, squash_mods[i], false);
		if (r == 0 && !modules_available(m, squash_mods[i]))
			r = squash_plan_refuse(&p->squash, p->o->squashfs,
					       "the module %s is not in the image", squash_mods[i]);
		if (r == 0)
			r = modules_closure(m, squash_mods[i], &p->squash.keep);
	}
	/* the disks and the filesystem of most roots, stored plain beside
	 * the squashfs: a boot that needs nothing else never mounts it
	 * (bench/results/floor.md); each one costs every boot only its
	 * copy at unpack, about 1 ms a MB */
	static const char *const common_root_mods[] = {
		"virtio_pci", "virtio_blk", "virtio_scsi", "ahci", "nvme", "sd_mod", "ext4", "crc32c_generic",
	};
	for (size_t i = 0; r == 0 && p->squash.on && i < ARRAY_SIZE(common_root_mods); i++)
		if (modules_available(m, common_root_mods[i]))
			r = modules_closure(m, common_root_mods[i], &p->squash.store);
	/* and what most boots copy (the shutdown program) or must have
	 * without the mount (busybox, the rescue shell), which would cost
	 * every boot its decompression in the main segment */
	if (r == 0 && p->squash.on) {
		strv_push(&p->squash.store_files, LAYOUT_SHUTDOWN);
		strv_push(&p->squash.store_files, "/bin/busybox");
	}
	if (r == 0)
		r = modules_emit(m, p->img, mp.p);
	if (r == 0)
		p->nmodules = modules_count(m);
	if (m)
		modules_free(m);
	free(fw);
	buf_free(&mp);
	return r;
}

static int add_binaries(struct plan *p)
{
	struct elf_resolver *er;
	int r = 0;

	if (!p->o->add_binaries.n)
		return 0;
	er = elf_resolver_new(p->sysroot);
	for (size_t i = 0; r == 0 && i < p->o->add_binaries.n; i++)
		r = elf_add_binary(er, p->img, p->o->add_binaries.v[i]);
	elf_resolver_free(er);
	return r;
}

/* mkinitcpio's fallback preset: the same name with "-fallback" before a
 * final ".img" (initramfs-KVER-fallback.img), else at its end
 * (initrd.img-KVER-fallback). */
/* Secrets in the image go wherever the image goes: say where. */
static void say_readable(const char *image, bool keys, bool hostkeys)
{
	char *dir = xstrdup(image), *slash = strrchr(dir, '/');

	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	log_notice("%s holds %s%s%s: the image in %s is readable by anyone with the disk unless %s is "
		   "encrypted, and so is every copy of it (an ESP, a backup); docs/unlock.md says what it exposes",
		   image, keys ? "LUKS key material" : "", keys && hostkeys ? " and " : "",
		   hostkeys ? "this machine's SSH host keys" : "", slash ? dir : ".", slash ? dir : ".");
	free(dir);
}

static char *fallback_path(const char *output)
{
	size_t n = strlen(output);

	if (str_has_suffix(output, ".img"))
		return xasprintf("%.*s-fallback.img", (int)(n - 4), output);
	return xasprintf("%s-fallback", output);
}

/* The generic image first: the hostonly one names it, so it must exist
 * before that is written, and a failure leaves both old images. */
static int build_fallback(const struct plan *p)
{
	struct build_opts g = *p->o;

	g.mode = MODE_GENERIC;
	g.fallback = 0;
	g.kver = p->kver;
	g.output = p->fallback;
	return build_image(&g);
}

int build_image(const struct build_opts *o)
{
	struct build_opts kd;
	int r = o->kdump ? build_kdump_opts(&kd, o) : 0;

	if (r < 0)
		return r;
	if (o->kdump)
		o = &kd;

	struct plan p = { .o = o, .stack.clevis = o->clevis, .early.kdump = o->kdump };

	squash_plan_init(&p.squash);
	struct timespec t0, t1;
	uint64_t size = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	p.sysroot = o->sysroot ? o->sysroot : "/";
	p.img = image_new();
	r = early_check(&o->add_hooks);
	if (r == 0)
		r = compression_check_built_in(o->compress);
	if (r == 0)
		r = resolve_kver(&p);
	if (r == 0 && o->format == FORMAT_GEN_INIT_CPIO && !o->output)
		r = err_set("--format gen_init_cpio needs -o LIST (the list, its files in LIST.d)");
	if (r == 0 && o->uki && o->format != FORMAT_CPIO)
		r = err_set("--uki needs an image, not a --format gen_init_cpio list");
	if (r == 0 && o->uki)
		r = output_check(o->uki);
	if (r == 0)
		r = uki_check(o);
	if (r == 0 && o->uki && !o->output) {
		/* the image lives only inside the UKI */
		int fd;
		p.output = xasprintf("%s.initrd-XXXXXX", o->uki);
		fd = mkstemp(p.output);
		if (fd < 0)
			r = err_errno(errno, "%s", p.output);
		else
			close(fd);
	} else if (r == 0) {
		resolve_output(&p);
		r = output_check(p.output);
	}
	if (r == 0 && o->fallback) {
		if (o->mode != MODE_HOSTONLY)
			r = err_set("--fallback goes with --hostonly (a generic image needs no fallback)");
		else if (o->uki)
			r = err_set("--fallback goes with an image file, not --uki (a UKI holds one image)");
		else
			p.fallback = fallback_path(p.output);
	}
	/* a plugin is a stranger's file: read and checked before any work */
	if (r == 0) {
		char *own = plugins_own_dir();
		r = plugins_read_all(&p.plugins, own, p.sysroot, &o->plugins);
		free(own);
	}
	if (r == 0 && p.fallback)
		r = build_fallback(&p);
	if (r == 0)
		r = add_skeleton(&p);
	if (r == 0)
		r = build_decide_squash(&p);
	if (r == 0)
		r = ssh_plan_decide(&p.ssh, p.sysroot, o->ssh_unlock, o->ssh_hostkeys, o->mode == MODE_HOSTONLY);
	if (r == 0)
		r = add_modules(&p);
	if (r == 0)
		r = add_binaries(&p);
	if (r == 0)
		r = plugins_check_needed(&p.plugins, p.sysroot, &p.facts);
	if (r == 0)
		r = plugins_add(&p.plugins, p.img, p.sysroot, p.kver);
	if (r == 0 && o->mode == MODE_HOSTONLY) {
		char *uncovered;
		r = plugins_uncovered(&p.plugins, p.sysroot, &p.facts, &uncovered);
		free(uncovered);
	}
	if (r == 0)
		r = rescue_plan_add(p.img, p.sysroot, &o->rescue);
	if (r == 0) {
		p.stack.keyfile_pattern = &o->keyfile_pattern;
		p.stack.lvm = plugins_pack_program(&p.plugins, "lvm");
		p.stack.thin_check = plugins_pack_program(&p.plugins, "thin_check");
		p.stack.cache_check = plugins_pack_program(&p.plugins, "cache_check");
		r = stack_plan_add(&p.stack, p.img, p.sysroot, &o->add_keys);
	}
	if (r == 0)
		r = net_plan_add(&p.net, p.img, p.sysroot);
	if (r == 0)
		r = live_tools_add(p.img, p.sysroot, o->mode == MODE_HOSTONLY, o->cmdline);
	if (r == 0 && strv_contains(&p.facts.features, "plymouth"))
		r = plymouth_plan_add(p.img, p.sysroot, o->plymouth_theme);
	if (r == 0)
		r = ssh_plan_add(&p.ssh, p.img, p.sysroot);
	if (r == 0)
		r = console_plan_settings(&p.console, p.sysroot, o->cmdline, o->mode == MODE_HOSTONLY);
	if (r == 0)
		r = console_plan_add(&p.console, p.img, p.sysroot);
	if (r == 0)
		r = add_host_files(p.img, &o->add_files);
	if (r == 0) {
		/* the baked line: hostonly's netroot=/ip= before the user's */
		char *cmdline = net_plan_cmdline(&p.net, o->cmdline);
		r = early_plan_add(&p.early, p.img, p.sysroot, &o->add_hooks, cmdline);
		free(cmdline);
	}
	/* last of the contents: every feature and plugin has packed its
	 * programs, so every library ld.so.conf brought in is known */
	if (r == 0)
		r = elf_ldcache_add(p.img, p.sysroot);
	if (r == 0)
		r = squash_plan_build(&p.squash, p.img, o->compress, o->compress_level, build_source_date_epoch());
	if (r == 0)
		r = o->format == FORMAT_GEN_INIT_CPIO ? build_write_list(&p, &size) : build_write_image(&p, &size);
	if (r == 0 && o->uki)
		r = uki_write(p.o, p.sysroot, p.kver, p.output);
	if (o->uki && !o->output && p.output)
		unlink(p.output);
	if (r == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		log_notice("wrote %s: kernel %s, %s, %zu modules, %zu entries, %llu bytes, %s, %.2f s", p.output, p.kver,
			   o->kdump ? "kdump" : o->mode == MODE_HOSTONLY ? "hostonly" : "generic", p.nmodules, image_count(p.img),
			   (unsigned long long)size,
			   o->format == FORMAT_GEN_INIT_CPIO ? "gen_init_cpio list" : compression_name(o->compress),
			   (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (p.stack.keys.n || p.ssh.hostkeys)
			say_readable(o->uki ? o->uki : p.output, p.stack.keys.n > 0, p.ssh.hostkeys);
		char *net = net_plan_summary(&p.net);
		if (net)
			log_notice("network root%s: %s", o->mode == MODE_HOSTONLY ? "" : "s", net);
		free(net);
	}
	image_free(p.img);
	stack_plan_free(&p.stack);
	early_plan_free(&p.early);
	net_plan_free(&p.net);
	ssh_plan_free(&p.ssh);
	console_plan_free(&p.console);
	squash_plan_free(&p.squash);
	plugins_free(&p.plugins);
	plugin_facts_free(&p.facts);
	free(p.kver);
	free(p.kmoddir);
	kernel_tree_close(&p.kt);
	free(p.output);
	free(p.fallback);
	return r;
}
