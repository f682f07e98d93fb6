// SPDX-License-Identifier: GPL-2.0-or-later
/* Which Plymouth theme the host shows, read from plymouth's own files
 * (plymouth.h). The files are the host's, written by anyone with root on
 * it or by a package: every name taken from them is checked before it
 * becomes a path. */
#include "gen/features/plymouth.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "err.h"
#include "gen/features/feature_wanted.h"
#include "gen/host/sysroot.h"
#include "util.h"

#define THEMES "/usr/share/plymouth/themes"
#define NAME_MAX_LEN 64

bool plymouth_asked(const char *line)
{
	struct cmdline c = { 0 };
	const struct cmdline_param *en, *rd;
	bool off = false, v, asked;

	if (!line)
		return false;
	cmdline_parse(&c, line);
	en = cmdline_last(&c, "plymouth.enable");
	rd = cmdline_last(&c, "rd.plymouth");
	if (en && en->val && cmdline_parse_bool(en->val, &v) == 0 && !v)
		off = true;
	if (rd && rd->val && cmdline_parse_bool(rd->val, &v) == 0 && !v)
		off = true;
	asked = !off && (cmdline_has(&c, "splash") || cmdline_has(&c, "rhgb"));
	cmdline_free(&c);
	return asked;
}

bool plymouth_wanted(enum plymouth_mode mode, const char *cmdline, const char *sysroot, bool hostonly)
{
	char *d = sysroot_find_tool(sysroot, "plymouthd"), *theme = NULL;
	bool has = d != NULL;

	free(d);
	if (!has || mode == PLYMOUTH_NO)
		return false;
	if (mode == PLYMOUTH_YES || feature_wanted(false, cmdline, sysroot, hostonly, plymouth_asked))
		return true;
	/* a bad name wants it too: the build then fails naming it */
	has = plymouth_host_theme(sysroot, &theme) != 0;
	free(theme);
	return has;
}

char *plymouth_ini_get(const char *text, const char *section, const char *key)
{
	size_t klen = strlen(key), slen = strlen(section);
	bool in = false;

	for (const char *l = text; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		char *copy = xstrndup(l, n), *line = str_trim(copy);

		if (line[0] == '[') {
			in = strlen(line) == slen + 2 && !strncmp(line + 1, section, slen) && line[slen + 1] == ']';
		} else if (in && !strncmp(line, key, klen)) {
			char *v = line + klen;
			v += strspn(v, " \t");
			if (*v == '=') {
				char *r = xstrdup(str_trim(v + 1));
				free(copy);
				return r;
			}
		}
		free(copy);
		l = end ? end + 1 : NULL;
	}
	return NULL;
}

static bool name_ok(const char *n)
{
	size_t len = strlen(n);

	return len && len <= NAME_MAX_LEN && n[0] != '.' &&
	       strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

static bool installed(const char *sysroot, const char *name)
{
	char *p = xasprintf(THEMES "/%s/%s.plymouth", name, name), *host = NULL;
	struct stat st;
	bool ok = sysroot_path(sysroot, p, &host, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	free(host);
	return ok;
}

/* The Theme= of one of plymouth's files: 1 and *name when it names an
 * installed theme, 0 when not (absent, or not installed), or an error. */
static int theme_from(const char *sysroot, const char *file, char **name)
{
	char *data = NULL, *v;
	size_t len;
	int r = sysroot_read(sysroot, file, &data, &len);

	*name = NULL;
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	v = plymouth_ini_get(data, "Daemon", "Theme");
	free(data);
	if (!v || !*v) {
		free(v);
		return 0;
	}
	if (!name_ok(v)) {
		r = err_set("%s: bad Theme '%s' (a theme's name: letters, digits, ._-)", file, v);
		free(v);
		return r;
	}
	if (!installed(sysroot, v)) {
		free(v);
		return 0;
	}
	*name = v;
	return 1;
}

int plymouth_host_theme(const char *sysroot, char **name)
{
	static const char *const files[] = { "/etc/plymouth/plymouthd.conf",
					     "/usr/share/plymouth/plymouthd.defaults" };
	char *host = NULL, target[256];
	struct stat st;
	int r;

	*name = NULL;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if ((r = theme_from(sysroot, files[i], name)) != 0)
			return r;
	/* the link plymouth-set-default-theme made on older systems */
	if (sysroot_path(sysroot, THEMES, &host, &st) == 0) {
		char *link = path_join(host, "default.plymouth");
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		free(link);
		if (n > 0) {
			char *base, *dot;
			target[n] = '\0';
			base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
			dot = strstr(base, ".plymouth");
			if (dot && !dot[9]) {
				*dot = '\0';
				if (name_ok(base) && installed(sysroot, base))
					*name = xstrdup(base);
			}
		}
	}
	free(host);
	return *name != NULL;
}

int plymouth_theme_name(const char *sysroot, const char *theme, char **name)
{
	int r;

	*name = NULL;
	if (theme) {
		if (!name_ok(theme))
			return err_set("plymouth-theme '%s' is not a theme's name (letters, digits, ._-)", theme);
		if (!installed(sysroot, theme))
			return err_set("plymouth-theme %s: " THEMES "/%s/%s.plymouth is not installed", theme,
				       theme, theme);
		*name = xstrdup(theme);
		return 0;
	}
	if ((r = plymouth_host_theme(sysroot, name)) < 0)
		return r;
	if (!*name)
		*name = xstrdup("text");
	return 0;
}
