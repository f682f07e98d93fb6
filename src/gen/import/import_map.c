// SPDX-License-Identifier: GPL-2.0-or-later
/* What each generator's settings become: initramfs-tools'
 * initramfs.conf and modules, dracut's dracut.conf(.d), mkinitcpio's
 * mkinitcpio.conf, statement by statement, as uniramfs.conf keys or a
 * comment saying why not (import.c reads the files and writes the result). */
#include <stdlib.h>
#include <string.h>

#include "gen/import/import_priv.h"

/* A value that can stand as one word of the kernel command line. */
static bool cmdline_word(const char *v)
{
	return *v && !strpbrk(v, " \t\"'\\") && !conv_has_ctl(v);
}

/* DEVICE=: the interface initramfs-tools' ipconfig configures when it
 * brings the network up, for BOOT=nfs (or ip=). As ip=…:DEVICE:dhcp it
 * would bring the network up on every boot: it_finish keeps it only when
 * the configuration makes every boot a network boot. */
static void it_device(struct conv *c, const struct shell_assign *a, const char *v)
{
	char *p;

	if (!*v) {
		conv_same(c, a, "no interface named: every Ethernet interface tries, the first to get an address is "
			  "used");
		return;
	}
	if (!cmdline_word(v) || strlen(v) > 15 || strpbrk(v, "/:")) {
		conv_skip(c, a, "not an interface name");
		return;
	}
	p = xasprintf("ip=:::::%s:dhcp", v);
	conv_add(c, a, "cmdline", p, NULL)->net_only = true;
	free(p);
}

/* NFSROOT=auto (DHCP's root-path) or SERVER:PATH, used by an NFS boot:
 * the kernel's nfsroot=, which the init reads only with root=/dev/nfs,
 * initramfs-tools' own switch to BOOT=nfs. */
static void it_nfsroot(struct conv *c, const struct shell_assign *a, const char *v)
{
	char *p;

	if (!*v || strcmp(v, "auto") == 0) {
		conv_same(c, a, "auto: with root=/dev/nfs and no nfsroot=, DHCP's root-path names the NFS root");
		return;
	}
	if (!cmdline_word(v) || (v[0] != '/' && !strchr(v, ':'))) {
		conv_skip(c, a, "not auto or SERVER:PATH");
		return;
	}
	p = xasprintf("nfsroot=%s", v);
	conv_add(c, a, "cmdline", p, NULL);
	free(p);
}

void it_finish(struct conv *c)
{
	bool nfs = false;

	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].key && !c->items[i].dropped && !strcmp(c->items[i].key, "cmdline") &&
		    !strcmp(c->items[i].value, "root=/dev/nfs"))
			nfs = true;
	for (size_t i = 0; i < c->n && !nfs; i++) {
		struct item *it = &c->items[i];
		if (!it->net_only || !it->key)
			continue;
		free(it->note);
		it->note = xasprintf("initramfs-tools uses it only for a network boot, which BOOT= does not make "
				     "every boot: on a command line that boots from NFS, add %s", it->value);
		free(it->key);
		free(it->value);
		it->key = it->value = NULL;
	}
}

int it_assign(void *u, const struct shell_assign *a)
{
	struct conv *c = u;
	const char *v = conv_scalar(a);

	if (!a->name)
		return conv_skip(c, a, "not an assignment: import-config does not run shell code"), 0;
	if (a->expands)
		return conv_skip(c, a, "uses shell expansion ($ or `), which import-config does not run"), 0;
	if (strcmp(a->name, "MODULES") == 0) {
		if (strcmp(v, "most") == 0)
			conv_add_mode(c, a, false, "most: the drivers any machine may need");
		else if (strcmp(v, "dep") == 0)
			conv_add_mode(c, a, true, "dep: the drivers this machine needs");
		else if (strcmp(v, "list") == 0)
			conv_skip(c, a, "uniramfs has no list-only mode: the modules file's modules are added to its own "
				   "choice");
		else if (strcmp(v, "netboot") == 0)
			conv_add_mode(c, a, false, "netboot: the generic image holds the usual NIC drivers and the NFS, "
				      "iSCSI and NBD clients, with the disk drivers too");
		else
			conv_skip(c, a, "not most, dep, netboot or list");
	} else if (strcmp(a->name, "COMPRESS") == 0) {
		conv_add_compress(c, a, v);
	} else if (strcmp(a->name, "COMPRESSLEVEL") == 0) {
		char *end;
		long l = strtol(v, &end, 10);
		if (*v && !*end && l >= 0 && l <= 22)
			conv_add(c, a, "compress-level", v, NULL);
		else
			conv_skip(c, a, "not a level 0-22");
	} else if (strcmp(a->name, "BUSYBOX") == 0) {
		/* initramfs-tools' busybox is its rescue shell too */
		if (strcmp(v, "n") == 0)
			conv_add(c, a, "rescue-shell", "no", NULL);
		else if (strcmp(v, "y") == 0)
			conv_add(c, a, "rescue-shell", "yes", NULL);
		else if (strcmp(v, "auto") == 0 || !*v)
			conv_same(c, a, "busybox, when the host has it, is the rescue shell");
		else
			conv_skip(c, a, "not y, n or auto");
	} else if (strcmp(a->name, "KEYMAP") == 0) {
		if (strcmp(v, "y") == 0)
			conv_skip(c, a, "uniramfs packs no keymap: passphrases are read with the kernel's");
		else
			conv_same(c, a, "no keymap");
	} else if (strcmp(a->name, "FSTYPE") == 0) {
		struct strv w = { 0 };
		if (strcmp(v, "auto") == 0 || !*v) {
			conv_same(c, a, "the root's filesystem is found at build and boot time");
		} else {
			strv_split(&w, v, ",");
			conv_add_list(c, a, "add-modules", &w, "the filesystem modules");
		}
		strv_free(&w);
	} else if (strcmp(a->name, "RESUME") == 0) {
		if (strcmp(v, "none") == 0 || !*v) {
			conv_same(c, a, "no resume= parameter, no resume");
		} else if (strcmp(v, "auto") == 0) {
			conv_skip(c, a, "uniramfs resumes from the resume= parameter (hostonly images take the host's "
				   "swap from there)");
		} else if (strchr(v, ' ') || conv_has_ctl(v)) {
			conv_skip(c, a, "not a device name");
		} else {
			char *p = xasprintf("resume=%s", v);
			conv_add(c, a, "cmdline", p, NULL);
			free(p);
		}
	} else if (strcmp(a->name, "DEVICE") == 0) {
		conv_replace_earlier(c, a);
		it_device(c, a, v);
	} else if (strcmp(a->name, "NFSROOT") == 0) {
		conv_replace_earlier(c, a);
		it_nfsroot(c, a, v);
	} else if (strcmp(a->name, "BOOT") == 0) {
		conv_replace_earlier(c, a);
		if (strcmp(v, "local") == 0 || !*v)
			conv_same(c, a, "the root is a local device unless the command line names a network root");
		else if (strcmp(v, "nfs") == 0)
			conv_add(c, a, "cmdline", "root=/dev/nfs", NULL);
		else
			conv_skip(c, a, "not local or nfs");
	} else if (strcmp(a->name, "RUNSIZE") == 0) {
		conv_skip(c, a, "the uniramfs init sizes /run itself");
	} else {
		conv_skip(c, a, "not an initramfs-tools setting import-config knows");
	}
	return 0;
}

/* /etc/initramfs-tools/modules: "module [options]" per line */
void it_modules(struct conv *c, char *data)
{
	unsigned line = 0;
	for (char *l = data, *next; l; l = next) {
		struct shell_assign a = { 0 };
		struct strv w = { 0 };
		char *t;
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		line++;
		t = str_trim(l);
		if (!*t || *t == '#')
			continue;
		a.text = t;
		a.line = line;
		a.append = true;
		strv_split(&w, t, " \t");
		if (w.n) {
			struct strv first = { 0 };
			strv_push(&first, w.v[0]);
			conv_add_list(c, &a, "add-modules", &first, NULL);
			strv_free(&first);
		}
		if (w.n > 1)
			conv_skip(c, &a, "module options: give them in /etc/modprobe.d/");
		strv_free(&w);
	}
}

/* --- dracut: dracut.conf, dracut.conf.d/ --------------------------- */

static const char *const dracut_paths[] = {
	"prefix", "environment", "environmentconfdir", "dbus", "dbusinterfaces", "dbusservices", "dbussession",
	"dbussystem", "dbussystemservices", "dbusconfdir", "dbusinterfacesconfdir", "dbusservicesconfdir",
	"dbussessionconfdir", "dbussystemconfdir", "dbussystemservicesconfdir", "modulesload",
	"modulesloadconfdir", "sysctld", "sysctldconfdir", "systemdutildir", "systemdutilconfdir",
	"systemdcatalog", "systemdntpunits", "systemdntpunitsconfdir", "systemdportable",
	"systemdportableconfdir", "systemdsystemunitdir", "systemdsystemconfdir", "systemduser",
	"systemduserconfdir", "sysusers", "sysusersconfdir", "udevdir", "tmpfilesdir", "depmodd",
	"depmodconfdir", "sbat",
};

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return true;
	return false;
}

/* dracut's modules for a network boot: the uniramfs init has their
 * work built in, and brings the network up when the command line asks. */
static const char *const dracut_net_modules[] = {
	"network", "network-legacy", "network-manager", "systemd-networkd", "connman", "net-lib", "ifcfg",
	"kernel-network-modules", "qemu-net", "url-lib", "nfs", "iscsi", "nbd",
};

/* dracut's modules that make an overlay's upper layer at boot: uniramfs's
 * overlay-tools plugin packs what they pack */
static const char *const dracut_overlay_modules[] = { "overlayfs-crypt", "dmsquash-live-autooverlay" };

static void dracut_modules(struct conv *c, const struct shell_assign *a)
{
	struct strv w = { 0 };
	struct buf net = { 0 }, other = { 0 }, ovl = { 0 };

	conv_words_of(a, &w);
	for (size_t i = 0; i < w.n; i++) {
		struct buf *b = in_list(w.v[i], dracut_net_modules, ARRAY_SIZE(dracut_net_modules)) ? &net
				: in_list(w.v[i], dracut_overlay_modules, ARRAY_SIZE(dracut_overlay_modules)) ? &ovl
				: &other;
		buf_printf(b, "%s%s", b->len ? " " : "", w.v[i]);
	}
	if (ovl.len) {
		char *why = xasprintf("modules %s: cryptsetup, mkfs.ext4 and sfdisk for rd.overlay.crypt= "
				      "and a live medium's automatic overlay partition", ovl.p);
		conv_add(c, a, "overlay-tools", "yes", why);
		free(why);
	}
	if (net.len) {
		char *why = xasprintf("modules %s: the uniramfs init brings the network up itself when the command "
				      "line asks (ip=, rd.neednet=1, a network root), and a generic image holds the "
				      "usual NIC drivers and the NFS, iSCSI and NBD clients (hostonly: those of the "
				      "host's own network root)", net.p);
		conv_same(c, a, why);
		free(why);
	}
	if (other.len || (!net.len && !ovl.len)) {
		char *why = xasprintf("%s%suniramfs has no dracut modules: LUKS, LVM, md, resume and fsck are built "
				      "into its init; anything else is add-hook", other.len ? other.p : "",
				      other.len ? ": " : "");
		conv_skip(c, a, why);
		free(why);
	}
	buf_free(&net);
	buf_free(&other);
	buf_free(&ovl);
	strv_free(&w);
}

int dracut_assign(void *u, const struct shell_assign *a)
{
	struct conv *c = u;
	const char *n = a->name, *v = conv_scalar(a);

	if (!n)
		return conv_skip(c, a, "not an assignment: import-config does not run shell code"), 0;
	if (a->expands)
		return conv_skip(c, a, "uses shell expansion ($ or `), which import-config does not run"), 0;
	if (!strcmp(n, "add_drivers") || !strcmp(n, "force_drivers") || !strcmp(n, "filesystems")) {
		conv_add_words(c, a, "add-modules", NULL);
	} else if (!strcmp(n, "drivers")) {
		conv_add_words(c, a, "add-modules", "dracut takes only these; uniramfs adds them to its own choice");
	} else if (!strcmp(n, "omit_drivers")) {
		conv_add_words(c, a, "omit-modules", NULL);
	} else if (!strcmp(n, "hostonly")) {
		if (!strcmp(v, "yes") || !strcmp(v, "no"))
			conv_add_mode(c, a, !strcmp(v, "yes"), NULL);
		else
			conv_skip(c, a, "expected yes or no");
	} else if (!strcmp(n, "compress")) {
		conv_add_compress(c, a, v);
	} else if (!strcmp(n, "kernel_cmdline")) {
		conv_replace_earlier(c, a);
		if (conv_has_ctl(v))
			conv_skip(c, a, "a control character cannot be written in uniramfs.conf");
		else if (*v)
			conv_add(c, a, "cmdline", v, NULL);
		else
			conv_same(c, a, "empty: nothing to set");
	} else if (!strcmp(n, "early_microcode")) {
		if (!strcmp(v, "yes") || !strcmp(v, "no"))
			conv_add(c, a, "microcode", !strcmp(v, "yes") ? "auto" : "none", NULL);
		else
			conv_skip(c, a, "expected yes or no");
	} else if (!strcmp(n, "install_items")) {
		/* paths are files; bare names are programs dracut finds in PATH */
		struct strv w = { 0 }, files = { 0 }, bins = { 0 };
		bool netconf = false;
		conv_words_of(a, &w);
		for (size_t i = 0; i < w.n; i++) {
			strv_push(w.v[i][0] == '/' ? &files : &bins, w.v[i]);
			netconf |= str_has_prefix(w.v[i], "/etc/NetworkManager/") ||
				   str_has_prefix(w.v[i], "/etc/sysconfig/network-scripts/") ||
				   str_has_prefix(w.v[i], "/etc/systemd/network/");
		}
		if (files.n || !bins.n)
			conv_add_list(c, a, "add-files", &files,
				      netconf ? "packed, but the uniramfs init reads no NetworkManager, ifcfg or networkd "
						"file: its network comes from ip=, nameserver= and the network root on the "
						"command line"
					      : NULL);
		if (bins.n)
			conv_add_list(c, a, "add-binaries", &bins, NULL);
		strv_free(&w);
		strv_free(&files);
		strv_free(&bins);
	} else if (!strcmp(n, "install_optional_items")) {
		conv_skip(c, a, "uniramfs has no optional files (add-files and add-binaries fail on a missing one): add "
			   "the ones this machine has by hand");
	} else if (!strcmp(n, "add_dracutmodules") || !strcmp(n, "dracutmodules")) {
		dracut_modules(c, a);
	} else if (!strcmp(n, "omit_dracutmodules")) {
		conv_skip(c, a, "uniramfs has no dracut modules: LUKS, LVM, md, resume and fsck are built into its init; "
			   "anything else is add-hook");
	} else if (!strcmp(n, "reproducible")) {
		conv_same(c, a, "images are always reproducible (SOURCE_DATE_EPOCH is honoured)");
	} else if (!strncmp(n, "i18n_", 5) || !strcmp(n, "keyboard_vars")) {
		conv_skip(c, a, "uniramfs packs no keymaps or console fonts");
	} else if (!strcmp(n, "stdloglvl") || !strcmp(n, "sysloglvl") || !strcmp(n, "fileloglvl") ||
		   !strcmp(n, "kmsgloglvl") || !strcmp(n, "logfile")) {
		conv_skip(c, a, "dracut's own logging: uniramfs build -v gives more messages");
	} else if (!strcmp(n, "hostonly_cmdline")) {
		conv_skip(c, a, "uniramfs bakes no root= into the image unless given as cmdline");
	} else if (in_list(n, dracut_paths, ARRAY_SIZE(dracut_paths))) {
		conv_same(c, a, "one of dracut's own paths");
	} else {
		conv_skip(c, a, "not a dracut setting import-config knows");
	}
	return 0;
}

/* --- mkinitcpio: mkinitcpio.conf ----------------------------------- */

static void mkinitcpio_hooks(struct conv *c, const struct shell_assign *a)
{
	static const char *const builtin[] = { "base", "udev", "systemd", "modconf", "block", "filesystems",
					       "fsck", "encrypt", "sd-encrypt", "lvm2", "mdadm_udev", "resume",
					       "usr", "microcode", "keyboard", "kms" };
	struct strv w = { 0 };
	struct buf done = { 0 }, other = { 0 };
	bool autodetect = false;

	conv_words_of(a, &w);
	for (size_t i = 0; i < w.n; i++) {
		if (!strcmp(w.v[i], "autodetect"))
			autodetect = true;
		else if (in_list(w.v[i], builtin, ARRAY_SIZE(builtin)))
			buf_printf(&done, "%s%s", done.len ? " " : "", w.v[i]);
		else
			buf_printf(&other, "%s%s", other.len ? " " : "", w.v[i]);
	}
	conv_add_mode(c, a, autodetect, autodetect ? "autodetect: the drivers this machine needs" : "no autodetect");
	if (done.len) {
		char *why = xasprintf("hooks %s: the uniramfs init does this itself", done.p);
		conv_same(c, a, why);
		free(why);
	}
	if (other.len) {
		char *why = xasprintf("hooks %s (no keymaps, fonts or network in uniramfs; a hook of your own is "
				      "add-hook)", other.p);
		conv_skip(c, a, why);
		free(why);
	}
	buf_free(&done);
	buf_free(&other);
	strv_free(&w);
}

int mkinitcpio_assign(void *u, const struct shell_assign *a)
{
	struct conv *c = u;
	const char *n = a->name;

	if (!n)
		return conv_skip(c, a, "not an assignment: import-config does not run shell code"), 0;
	if (a->expands)
		return conv_skip(c, a, "uses shell expansion ($ or `), which import-config does not run"), 0;
	if (!strcmp(n, "MODULES")) {
		/* NAME? is "if it exists": uniramfs skips missing modules anyway */
		struct strv w = { 0 };
		conv_words_of(a, &w);
		for (size_t i = 0; i < w.n; i++)
			if (str_has_suffix(w.v[i], "?"))
				w.v[i][strlen(w.v[i]) - 1] = '\0';
		conv_add_list(c, a, "add-modules", &w, NULL);
		strv_free(&w);
	} else if (!strcmp(n, "BINARIES")) {
		conv_add_words(c, a, "add-binaries", NULL);
	} else if (!strcmp(n, "FILES")) {
		conv_add_words(c, a, "add-files", NULL);
	} else if (!strcmp(n, "HOOKS")) {
		mkinitcpio_hooks(c, a);
	} else if (!strcmp(n, "COMPRESSION")) {
		conv_add_compress(c, a, conv_scalar(a));
	} else if (!strcmp(n, "COMPRESSION_OPTIONS")) {
		if (a->words.n)
			conv_skip(c, a, "compressor options (compress-level sets the level)");
		else
			conv_same(c, a, "empty: nothing to set");
	} else if (!strcmp(n, "MODULES_DECOMPRESS")) {
		conv_skip(c, a, "uniramfs packs modules as they are installed");
	} else {
		conv_skip(c, a, "not a mkinitcpio setting import-config knows");
	}
	return 0;
}

/* --- files -------------------------------------------------------- */

/* A regular file inside the sysroot: links followed inside it, a FIFO
 * or device never opened. 1 read, 0 missing, -errno (err_* set) on error. */
