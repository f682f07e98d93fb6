// SPDX-License-Identifier: GPL-2.0-or-later
/* initramfs-tools, dracut and mkinitcpio settings as uniramfs.conf keys.
 * Every statement read becomes either a key line or a comment saying why
 * it is not carried over, under a comment naming the file and line it
 * came from, so the result can be checked line by line against the old
 * config. The keys are those of config.c's table: the output is checked
 * by parsing it with config_parse before it is given out. */
#include "gen/import/import.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/config.h"
#include "gen/host/shell_assign.h"
#include "gen/host/sysroot.h"
#include "gen/import/import_priv.h"

/* --- initramfs-tools: initramfs.conf, conf.d/, modules ------------- */

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
		it_finish(c);
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
	return err_code();
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
		conv_comment(out, "   %s", c->files.v[i]);
	buf_printf(out, "# Each setting names the line it comes from; one that uniramfs cannot\n"
			"# carry over stays a comment saying why. See uniramfs.conf(5).\n");
	for (size_t i = 0; i < c->n; i++) {
		struct item *it = &c->items[i];
		char *q;
		buf_append(out, "\n", 1);
		conv_comment(out, " %s", it->where);
		if (!it->key) {
			conv_comment(out, "   %s: %s", it->same ? "the same in uniramfs" : "not carried over", it->note);
			continue;
		}
		if (it->dropped) {
			conv_comment(out, "   not carried over: a later %s= replaces it", it->var);
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
			conv_comment(out, "   %s", it->note);
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
