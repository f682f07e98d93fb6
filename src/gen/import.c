// SPDX-License-Identifier: GPL-2.0-or-later
/* initramfs-tools, dracut and mkinitcpio settings as uniramfs.conf keys.
 * Every statement read becomes either a key line or a comment saying why
 * it is not carried over, under a comment naming the file and line it
 * came from, so the result can be checked line by line against the old
 * config. The keys are those of config.c's table: the output is checked
 * by parsing it with config_parse before it is given out. */
#include "import.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "shell_assign.h"
#include "sysroot.h"

/* a config file bigger than this is not a config file */
#define IMPORT_MAX_FILE (1024 * 1024)

struct item {
	char *where;  /* FILE:LINE: TEXT */
	char *var;    /* the source setting, for NAME= replacing earlier NAME+= */
	char *key;    /* uniramfs key, or NULL: not carried over */
	char *value;
	char *note;
	bool same;    /* not carried over since uniramfs does this anyway */
	bool dropped;
};

struct conv {
	const char *sysroot;
	const char *file; /* inside the sysroot, for messages */
	struct strv files;
	struct item *items;
	size_t n, cap;
};

static char *show(const char *text)
{
	struct buf b = { 0 };
	size_t n = 0;
	buf_append(&b, "", 0);
	for (const char *c = text; *c && n < 160; c++, n++) {
		char ch = (unsigned char)*c < 0x20 || *c == 0x7f ? ' ' : *c;
		buf_append(&b, &ch, 1);
	}
	if (strlen(text) > 160)
		buf_append(&b, "...", 3);
	return b.p;
}

static struct item *add(struct conv *c, const struct shell_assign *a, const char *key, const char *value,
			const char *note)
{
	struct item *it;
	char *text = show(a->text);

	c->items = grow_array(c->items, &c->cap, c->n + 1, sizeof(*c->items));
	it = &c->items[c->n++];
	memset(it, 0, sizeof(*it));
	it->where = xasprintf("%s:%u: %s", c->file, a->line, text);
	free(text);
	it->var = a->name ? xstrdup(a->name) : NULL;
	it->key = key ? xstrdup(key) : NULL;
	it->value = value ? xstrdup(value) : NULL;
	it->note = note ? xstrdup(note) : NULL;
	return it;
}

static void skip(struct conv *c, const struct shell_assign *a, const char *why)
{
	add(c, a, NULL, NULL, why);
}

/* Nothing to carry over: uniramfs behaves so without a setting. */
static void same(struct conv *c, const struct shell_assign *a, const char *why)
{
	add(c, a, NULL, NULL, why)->same = true;
}

/* NAME= (not +=) replaces what earlier lines gave NAME */
static void replace_earlier(struct conv *c, const struct shell_assign *a)
{
	if (a->append || !a->name)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].var && strcmp(c->items[i].var, a->name) == 0 && c->items[i].key)
			c->items[i].dropped = true;
}

/* The words of a value: an array's, or a string's split at blanks as
 * the generators split their lists. */
static void words_of(const struct shell_assign *a, struct strv *w)
{
	if (a->array) {
		for (size_t i = 0; i < a->words.n; i++)
			strv_push(w, a->words.v[i]);
	} else if (a->words.n) {
		strv_split(w, a->words.v[0], " \t\n");
	}
}

static const char *scalar(const struct shell_assign *a)
{
	return a->words.n ? a->words.v[0] : "";
}

static bool has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* One list key from words; a word uniramfs.conf cannot hold (a comma
 * separates its items) is left out with its own comment. */
static void add_list(struct conv *c, const struct shell_assign *a, const char *key, struct strv *w, const char *note)
{
	struct buf v = { 0 };
	size_t n = 0;

	replace_earlier(c, a);
	for (size_t i = 0; i < w->n; i++) {
		if (strchr(w->v[i], ',') || has_ctl(w->v[i]) || strchr(w->v[i], '#')) {
			char *why = xasprintf("'%s' is not carried over: a comma, # or control character cannot be "
					      "written in a uniramfs.conf list", w->v[i]);
			skip(c, a, why);
			free(why);
			continue;
		}
		buf_printf(&v, "%s%s", n++ ? "," : "", w->v[i]);
	}
	if (n)
		add(c, a, key, v.p, note);
	else if (w->n == 0)
		same(c, a, "empty: nothing to set");
	buf_free(&v);
}

static void add_words(struct conv *c, const struct shell_assign *a, const char *key, const char *note)
{
	struct strv w = { 0 };
	words_of(a, &w);
	add_list(c, a, key, &w, note);
	strv_free(&w);
}

/* zstd, xz, lz4, gzip and none are what uniramfs writes. */
static void add_compress(struct conv *c, const struct shell_assign *a, const char *v)
{
	static const char *const names[][2] = {
		{ "zstd", "zstd" }, { "xz", "xz" }, { "lz4", "lz4" }, { "gzip", "gzip" },
		{ "pigz", "gzip" }, { "cat", "none" }, { "none", "none" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(v, names[i][0]) == 0) {
			add(c, a, "compress", names[i][1], NULL);
			return;
		}
	if (!*v) {
		same(c, a, "empty: the default (zstd)");
		return;
	}
	skip(c, a, "uniramfs compresses with zstd, xz, lz4, gzip or none (no compressor command lines): the "
		   "default (zstd) stays");
}

static void add_mode(struct conv *c, const struct shell_assign *a, bool hostonly, const char *note)
{
	add(c, a, "mode", hostonly ? "hostonly" : "generic", note);
}

/* --- initramfs-tools: initramfs.conf, conf.d/, modules ------------- */

static int it_assign(void *u, const struct shell_assign *a)
{
	struct conv *c = u;
	const char *v = scalar(a);

	if (!a->name)
		return skip(c, a, "not an assignment: import-config does not run shell code"), 0;
	if (a->expands)
		return skip(c, a, "uses shell expansion ($ or `), which import-config does not run"), 0;
	if (strcmp(a->name, "MODULES") == 0) {
		if (strcmp(v, "most") == 0)
			add_mode(c, a, false, "most: the drivers any machine may need");
		else if (strcmp(v, "dep") == 0)
			add_mode(c, a, true, "dep: the drivers this machine needs");
		else if (strcmp(v, "list") == 0)
			skip(c, a, "uniramfs has no list-only mode: the modules file's modules are added to its own "
				   "choice");
		else
			skip(c, a, "no network root in uniramfs");
	} else if (strcmp(a->name, "COMPRESS") == 0) {
		add_compress(c, a, v);
	} else if (strcmp(a->name, "COMPRESSLEVEL") == 0) {
		char *end;
		long l = strtol(v, &end, 10);
		if (*v && !*end && l >= 0 && l <= 22)
			add(c, a, "compress-level", v, NULL);
		else
			skip(c, a, "not a level 0-22");
	} else if (strcmp(a->name, "BUSYBOX") == 0) {
		skip(c, a, "the uniramfs init needs no shell (add-binaries = busybox packs one)");
	} else if (strcmp(a->name, "KEYMAP") == 0) {
		if (strcmp(v, "y") == 0)
			skip(c, a, "uniramfs packs no keymap: passphrases are read with the kernel's");
		else
			same(c, a, "no keymap");
	} else if (strcmp(a->name, "FSTYPE") == 0) {
		struct strv w = { 0 };
		if (strcmp(v, "auto") == 0 || !*v) {
			same(c, a, "the root's filesystem is found at build and boot time");
		} else {
			strv_split(&w, v, ",");
			add_list(c, a, "add-modules", &w, "the filesystem modules");
		}
		strv_free(&w);
	} else if (strcmp(a->name, "RESUME") == 0) {
		if (strcmp(v, "none") == 0 || !*v) {
			same(c, a, "no resume= parameter, no resume");
		} else if (strcmp(v, "auto") == 0) {
			skip(c, a, "uniramfs resumes from the resume= parameter (hostonly images take the host's "
				   "swap from there)");
		} else if (strchr(v, ' ') || has_ctl(v)) {
			skip(c, a, "not a device name");
		} else {
			char *p = xasprintf("resume=%s", v);
			add(c, a, "cmdline", p, NULL);
			free(p);
		}
	} else if (strcmp(a->name, "DEVICE") == 0 || strcmp(a->name, "NFSROOT") == 0) {
		skip(c, a, "no network or NFS root in uniramfs");
	} else if (strcmp(a->name, "RUNSIZE") == 0) {
		skip(c, a, "the uniramfs init sizes /run itself");
	} else {
		skip(c, a, "not an initramfs-tools setting import-config knows");
	}
	return 0;
}

/* /etc/initramfs-tools/modules: "module [options]" per line */
static void it_modules(struct conv *c, char *data)
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
			add_list(c, &a, "add-modules", &first, NULL);
			strv_free(&first);
		}
		if (w.n > 1)
			skip(c, &a, "module options: give them in /etc/modprobe.d/");
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

static int dracut_assign(void *u, const struct shell_assign *a)
{
	struct conv *c = u;
	const char *n = a->name, *v = scalar(a);

	if (!n)
		return skip(c, a, "not an assignment: import-config does not run shell code"), 0;
	if (a->expands)
		return skip(c, a, "uses shell expansion ($ or `), which import-config does not run"), 0;
	if (!strcmp(n, "add_drivers") || !strcmp(n, "force_drivers") || !strcmp(n, "filesystems")) {
		add_words(c, a, "add-modules", NULL);
	} else if (!strcmp(n, "drivers")) {
		add_words(c, a, "add-modules", "dracut takes only these; uniramfs adds them to its own choice");
	} else if (!strcmp(n, "omit_drivers")) {
		add_words(c, a, "omit-modules", NULL);
	} else if (!strcmp(n, "hostonly")) {
		if (!strcmp(v, "yes") || !strcmp(v, "no"))
			add_mode(c, a, !strcmp(v, "yes"), NULL);
		else
			skip(c, a, "expected yes or no");
	} else if (!strcmp(n, "compress")) {
		add_compress(c, a, v);
	} else if (!strcmp(n, "kernel_cmdline")) {
		replace_earlier(c, a);
		if (has_ctl(v))
			skip(c, a, "a control character cannot be written in uniramfs.conf");
		else if (*v)
			add(c, a, "cmdline", v, NULL);
		else
			same(c, a, "empty: nothing to set");
	} else if (!strcmp(n, "early_microcode")) {
		if (!strcmp(v, "yes") || !strcmp(v, "no"))
			add(c, a, "microcode", !strcmp(v, "yes") ? "auto" : "none", NULL);
		else
			skip(c, a, "expected yes or no");
	} else if (!strcmp(n, "install_items")) {
		/* paths are files; bare names are programs dracut finds in PATH */
		struct strv w = { 0 }, files = { 0 }, bins = { 0 };
		words_of(a, &w);
		for (size_t i = 0; i < w.n; i++)
			strv_push(w.v[i][0] == '/' ? &files : &bins, w.v[i]);
		if (files.n || !bins.n)
			add_list(c, a, "add-files", &files, NULL);
		if (bins.n)
			add_list(c, a, "add-binaries", &bins, NULL);
		strv_free(&w);
		strv_free(&files);
		strv_free(&bins);
	} else if (!strcmp(n, "install_optional_items")) {
		skip(c, a, "uniramfs has no optional files (add-files and add-binaries fail on a missing one): add "
			   "the ones this machine has by hand");
	} else if (!strcmp(n, "add_dracutmodules") || !strcmp(n, "dracutmodules") || !strcmp(n, "omit_dracutmodules")) {
		skip(c, a, "uniramfs has no dracut modules: LUKS, LVM, md, resume and fsck are built into its init; "
			   "anything else is add-hook");
	} else if (!strcmp(n, "reproducible")) {
		same(c, a, "images are always reproducible (SOURCE_DATE_EPOCH is honoured)");
	} else if (!strncmp(n, "i18n_", 5) || !strcmp(n, "keyboard_vars")) {
		skip(c, a, "uniramfs packs no keymaps or console fonts");
	} else if (!strcmp(n, "stdloglvl") || !strcmp(n, "sysloglvl") || !strcmp(n, "fileloglvl") ||
		   !strcmp(n, "kmsgloglvl") || !strcmp(n, "logfile")) {
		skip(c, a, "dracut's own logging: uniramfs build -v gives more messages");
	} else if (!strcmp(n, "hostonly_cmdline")) {
		skip(c, a, "uniramfs bakes no root= into the image unless given as cmdline");
	} else if (in_list(n, dracut_paths, ARRAY_SIZE(dracut_paths))) {
		same(c, a, "one of dracut's own paths");
	} else {
		skip(c, a, "not a dracut setting import-config knows");
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

	words_of(a, &w);
	for (size_t i = 0; i < w.n; i++) {
		if (!strcmp(w.v[i], "autodetect"))
			autodetect = true;
		else if (in_list(w.v[i], builtin, ARRAY_SIZE(builtin)))
			buf_printf(&done, "%s%s", done.len ? " " : "", w.v[i]);
		else
			buf_printf(&other, "%s%s", other.len ? " " : "", w.v[i]);
	}
	add_mode(c, a, autodetect, autodetect ? "autodetect: the drivers this machine needs" : "no autodetect");
	if (done.len) {
		char *why = xasprintf("hooks %s: the uniramfs init does this itself", done.p);
		same(c, a, why);
		free(why);
	}
	if (other.len) {
		char *why = xasprintf("hooks %s (no keymaps, fonts or network in uniramfs; a hook of your own is "
				      "add-hook)", other.p);
		skip(c, a, why);
		free(why);
	}
	buf_free(&done);
	buf_free(&other);
	strv_free(&w);
}

static int mkinitcpio_assign(void *u, const struct shell_assign *a)
{
	struct conv *c = u;
	const char *n = a->name;

	if (!n)
		return skip(c, a, "not an assignment: import-config does not run shell code"), 0;
	if (a->expands)
		return skip(c, a, "uses shell expansion ($ or `), which import-config does not run"), 0;
	if (!strcmp(n, "MODULES")) {
		/* NAME? is "if it exists": uniramfs skips missing modules anyway */
		struct strv w = { 0 };
		words_of(a, &w);
		for (size_t i = 0; i < w.n; i++)
			if (str_has_suffix(w.v[i], "?"))
				w.v[i][strlen(w.v[i]) - 1] = '\0';
		add_list(c, a, "add-modules", &w, NULL);
		strv_free(&w);
	} else if (!strcmp(n, "BINARIES")) {
		add_words(c, a, "add-binaries", NULL);
	} else if (!strcmp(n, "FILES")) {
		add_words(c, a, "add-files", NULL);
	} else if (!strcmp(n, "HOOKS")) {
		mkinitcpio_hooks(c, a);
	} else if (!strcmp(n, "COMPRESSION")) {
		add_compress(c, a, scalar(a));
	} else if (!strcmp(n, "COMPRESSION_OPTIONS")) {
		if (a->words.n)
			skip(c, a, "compressor options (compress-level sets the level)");
		else
			same(c, a, "empty: nothing to set");
	} else if (!strcmp(n, "MODULES_DECOMPRESS")) {
		skip(c, a, "uniramfs packs modules as they are installed");
	} else {
		skip(c, a, "not a mkinitcpio setting import-config knows");
	}
	return 0;
}

/* --- files -------------------------------------------------------- */

/* A regular file inside the sysroot: links followed inside it, a FIFO
 * or device never opened. 1 read, 0 missing, -1 error. */
static int read_in_sysroot(const char *sysroot, const char *path, char **data)
{
	struct stat st;
	char *real = NULL, *host;
	size_t len;
	int r;

	errno = 0;
	if (sysroot_resolve(sysroot, path, NULL, NULL, &real, &st) < 0) {
		/* missing, or a link to what the sysroot does not have, is
		 * no file, as for the generator that reads it there */
		if (errno == ENOENT)
			return 0;
		return err_wrap("%s", path);
	}
	if (!S_ISREG(st.st_mode)) {
		free(real);
		return S_ISDIR(st.st_mode) ? 0 : err_set("%s: not a regular file", path);
	}
	if (st.st_size > IMPORT_MAX_FILE) {
		free(real);
		return err_set("%s: %lld bytes is too large for a config file", path, (long long)st.st_size);
	}
	host = path_join(sysroot, real);
	free(real);
	r = read_file(host, data, &len);
	free(host);
	if (r < 0)
		return err_errno(r, "%s", path);
	if (memchr(*data, '\0', len)) {
		free(*data);
		return err_set("%s: NUL byte (is this a text file?)", path);
	}
	return 1;
}

static int parse_one(struct conv *c, const char *path, shell_assign_fn fn)
{
	char *data = NULL;
	int r = read_in_sysroot(c->sysroot, path, &data);
	if (r <= 0)
		return r;
	strv_push(&c->files, path);
	c->file = path;
	if (fn)
		r = shell_assignments(path, data, fn, c);
	else
		it_modules(c, data), r = 0;
	free(data);
	return r < 0 ? r : 1;
}

static bool conf_d_name(const char *name, const char *suffix)
{
	if (name[0] == '.' || str_has_suffix(name, "~") || strstr(name, ".dpkg-") || strstr(name, ".ucf-"))
		return false;
	return !suffix || str_has_suffix(name, suffix);
}

/* The files of dir (inside the sysroot) ending in suffix, by name; for
 * dracut, /etc's file of a name hides /usr/lib's. */
static void list_dir(const char *sysroot, const char *dir, const char *suffix, struct strv *names)
{
	char *real = NULL, *host;
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (sysroot_resolve(sysroot, dir, NULL, NULL, &real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return;
	}
	host = path_join(sysroot, real);
	d = opendir(host);
	while (d && (e = readdir(d)))
		if (conf_d_name(e->d_name, suffix) && !strv_contains(names, e->d_name))
			strv_push(names, e->d_name);
	if (d)
		closedir(d);
	free(host);
	free(real);
}

static int read_dir(struct conv *c, const char *const *dirs, size_t ndirs, const char *suffix, shell_assign_fn fn)
{
	struct strv names = { 0 };
	int r = 0;

	for (size_t i = 0; i < ndirs; i++)
		list_dir(c->sysroot, dirs[i], suffix, &names);
	strv_sort_uniq(&names);
	for (size_t i = 0; r == 0 && i < names.n; i++) {
		for (size_t j = 0; j < ndirs; j++) {
			char *p = path_join(dirs[j], names.v[i]);
			r = parse_one(c, p, fn);
			free(p);
			if (r != 0)
				break; /* read (1) or failed: the first directory wins */
		}
		if (r > 0)
			r = 0;
	}
	strv_free(&names);
	return r < 0 ? r : 0;
}

static int read_initramfs_tools(struct conv *c)
{
	static const char *const confd[] = { "/etc/initramfs-tools/conf.d" };
	int r = parse_one(c, "/etc/initramfs-tools/initramfs.conf", it_assign);
	if (r >= 0)
		r = read_dir(c, confd, 1, NULL, it_assign);
	if (r >= 0)
		r = parse_one(c, "/etc/initramfs-tools/modules", NULL);
	return r < 0 ? r : 0;
}

static int read_dracut(struct conv *c)
{
	static const char *const confd[] = { "/etc/dracut.conf.d", "/usr/lib/dracut/dracut.conf.d" };
	/* dracut reads /etc's and /usr/lib's conf.d as one set, by name,
	 * after dracut.conf; /etc's file of a name hides /usr/lib's */
	int r = parse_one(c, "/etc/dracut.conf", dracut_assign);
	if (r >= 0)
		r = read_dir(c, confd, 2, ".conf", dracut_assign);
	return r < 0 ? r : 0;
}

static int read_mkinitcpio(struct conv *c)
{
	static const char *const confd[] = { "/etc/mkinitcpio.conf.d" };
	int r = parse_one(c, "/etc/mkinitcpio.conf", mkinitcpio_assign);
	if (r >= 0)
		r = read_dir(c, confd, 1, ".conf", mkinitcpio_assign);
	return r < 0 ? r : 0;
}

struct source {
	const char *name;
	const char *marker; /* its main config file */
	int (*read)(struct conv *c);
};

static const struct source sources[] = {
	{ "initramfs-tools", "/etc/initramfs-tools/initramfs.conf", read_initramfs_tools },
	{ "dracut", "/etc/dracut.conf", read_dracut },
	{ "mkinitcpio", "/etc/mkinitcpio.conf", read_mkinitcpio },
};

static int choose(const char *sysroot, const char *from, const struct source **src)
{
	struct buf found = { 0 };
	size_t n = 0;

	if (from) {
		for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
			if (!strcmp(from, sources[i].name)) {
				*src = &sources[i];
				return 0;
			}
		return err_set("--from '%s': expected initramfs-tools, dracut or mkinitcpio", from);
	}
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++) {
		char *p = path_join(sysroot, sources[i].marker);
		if (access(p, F_OK) == 0) {
			buf_printf(&found, "%s%s (%s)", n ? ", " : "", sources[i].name, sources[i].marker);
			*src = &sources[i];
			n++;
		}
		free(p);
	}
	if (n == 1) {
		buf_free(&found);
		return 0;
	}
	if (n == 0)
		return err_set("no initramfs-tools, dracut or mkinitcpio config under %s (give --from and --sysroot)",
			       sysroot);
	err_set("configs of several generators under %s: %s: choose one with --from", sysroot, found.p);
	buf_free(&found);
	return -1;
}

/* A value as uniramfs.conf reads it back: quoted when it has a # after
 * a blank or edge blanks or quotes the parser would strip. */
static char *quote(const char *v)
{
	size_t n = strlen(v);
	bool need = n && (v[0] == ' ' || v[n - 1] == ' ' || v[0] == '"' || v[0] == '\'' || strstr(v, " #") ||
			  strstr(v, "\t#") || v[0] == '#');
	if (!need)
		return xstrdup(v);
	if (!strchr(v, '"'))
		return xasprintf("\"%s\"", v);
	if (!strchr(v, '\''))
		return xasprintf("'%s'", v);
	return NULL;
}

static void emit(struct conv *c, const struct source *src, struct buf *out)
{
	struct buf cmd = { 0 };
	const char *cmd_where = NULL;

	buf_printf(out, "# uniramfs.conf made by `uniramfs import-config` from %s's configuration:\n", src->name);
	for (size_t i = 0; i < c->files.n; i++)
		buf_printf(out, "#   %s\n", c->files.v[i]);
	buf_printf(out, "# Each setting names the line it comes from; one that uniramfs cannot\n"
			"# carry over stays a comment saying why. See uniramfs.conf(5).\n");
	for (size_t i = 0; i < c->n; i++) {
		struct item *it = &c->items[i];
		char *q;
		buf_printf(out, "\n# %s\n", it->where);
		if (!it->key) {
			buf_printf(out, "#   %s: %s\n", it->same ? "the same in uniramfs" : "not carried over", it->note);
			continue;
		}
		if (it->dropped) {
			buf_printf(out, "#   not carried over: a later %s= replaces it\n", it->var);
			continue;
		}
		if (!strcmp(it->key, "cmdline")) {
			/* one key holds the whole command line */
			buf_printf(&cmd, "%s%s", cmd.len ? " " : "", it->value);
			buf_printf(out, "#   carried into the cmdline line at the end\n");
			cmd_where = it->where;
			continue;
		}
		q = quote(it->value);
		if (it->note)
			buf_printf(out, "#   %s\n", it->note);
		if (q)
			buf_printf(out, "%s = %s\n", it->key, q);
		else
			buf_printf(out, "#   not carried over: a value with both kinds of quote\n");
		free(q);
	}
	if (cmd_where) {
		char *q = quote(cmd.p);
		buf_printf(out, "\n# the kernel command line the settings above give\n");
		if (q)
			buf_printf(out, "cmdline = %s\n", q);
		else
			buf_printf(out, "#   not carried over: a value with both kinds of quote\n");
		free(q);
	}
	buf_free(&cmd);
}

int import_config(const char *sysroot, const char *from, struct buf *out)
{
	struct conv c = { .sysroot = sysroot ? sysroot : "/" };
	const struct source *src = NULL;
	int r = choose(c.sysroot, from, &src);

	if (r == 0)
		r = src->read(&c);
	if (r == 0 && c.files.n == 0)
		r = err_set("no %s config under %s (%s)", src->name, c.sysroot, src->marker);
	if (r == 0) {
		/* what we print must be what uniramfs build reads */
		struct build_opts o;
		char *copy;
		emit(&c, src, out);
		copy = xstrdup(out->p);
		build_opts_init(&o);
		r = config_parse(&o, "import-config output", copy);
		if (r < 0)
			err_wrap("internal error, please report");
		build_opts_free(&o);
		free(copy);
	}
	for (size_t i = 0; i < c.n; i++) {
		free(c.items[i].where);
		free(c.items[i].var);
		free(c.items[i].key);
		free(c.items[i].value);
		free(c.items[i].note);
	}
	free(c.items);
	strv_free(&c.files);
	return r;
}
