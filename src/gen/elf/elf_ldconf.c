// SPDX-License-Identifier: GPL-2.0-or-later
/* The loaders' own configuration: the library directories of
 * sysroot/etc/ld.so.conf, as glibc's ldconfig reads them (`include` globs
 * relative to the including file, comments, hwcap lines skipped, old
 * "dir=TYPE" and several dirs on a line), and musl's
 * /etc/ld-musl-ARCH.path, as musl's loader reads it. */
#include "gen/elf/elf_ldconf.h"

#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/host/sysroot.h"
#include "log.h"

struct ldconf {
	const char *sysroot;
	struct strv *dirs;
};

static void conf_read(struct ldconf *c, const char *path, int depth);

static void conf_include(struct ldconf *c, const char *conf, const char *pattern, int depth)
{
	char *rel = NULL, *pat;
	glob_t g;

	/* ldconfig takes a relative include relative to the including file. */
	if (pattern[0] != '/') {
		char *dir = xstrdup(conf);
		*strrchr(dir, '/') = '\0';
		rel = xasprintf("%s/%s", dir, pattern);
		free(dir);
		pattern = rel;
	}
	pat = path_join(c->sysroot, pattern);
	if (glob(pat, 0, NULL, &g) == 0) {
		size_t skip = strlen(c->sysroot);
		for (size_t i = 0; i < g.gl_pathc; i++)
			conf_read(c, g.gl_pathv[i] + skip, depth + 1);
		globfree(&g);
	}
	free(pat);
	free(rel);
}

/* path is inside the sysroot. */
static void conf_read(struct ldconf *c, const char *path, int depth)
{
	char *data, *line, *save = NULL;
	size_t len;

	if (depth > 8) {
		log_warn("%s: includes nested too deep, ignored", path);
		return;
	}
	if (sysroot_read(c->sysroot, path, &data, &len) < 0) {
		err_clear();
		return;
	}
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *hash_ = strchr(line, '#');
		if (hash_)
			*hash_ = '\0';
		line = str_trim(line);
		if (!*line)
			continue;
		if (strncmp(line, "include", 7) == 0 && (line[7] == ' ' || line[7] == '\t')) {
			/* More than one pattern may follow. */
			struct strv pats = { 0 };
			strv_split(&pats, line + 8, " \t");
			for (size_t i = 0; i < pats.n; i++)
				conf_include(c, path, pats.v[i], depth);
			strv_free(&pats);
			continue;
		}
		if (strncmp(line, "hwcap", 5) == 0 && (line[5] == ' ' || line[5] == '\t'))
			continue;
		/* Old ldconfig allowed "dir=TYPE" and several dirs on a line. */
		struct strv dirs = { 0 };
		strv_split(&dirs, line, " \t,:");
		for (size_t i = 0; i < dirs.n; i++) {
			char *eq = strchr(dirs.v[i], '=');
			if (eq)
				*eq = '\0';
			char *d = path_normalize(dirs.v[i]);
			if (dirs.v[i][0] == '/' && !strv_contains(c->dirs, d))
				strv_push_owned(c->dirs, d);
			else
				free(d);
		}
		strv_free(&dirs);
	}
	free(data);
}

void ldconf_read(const char *sysroot, struct strv *dirs)
{
	struct ldconf c = { sysroot, dirs };
	conf_read(&c, "/etc/ld.so.conf", 0);
}

#define MUSL_LOADER "ld-musl-"
#define MUSL_LOADER_SUFFIX ".so.1"

bool musl_loader(const char *interp)
{
	const char *base = strrchr(interp, '/');

	base = base ? base + 1 : interp;
	return strncmp(base, MUSL_LOADER, strlen(MUSL_LOADER)) == 0 &&
	       strlen(base) > strlen(MUSL_LOADER MUSL_LOADER_SUFFIX) &&
	       str_has_suffix(base, MUSL_LOADER_SUFFIX);
}

int musl_path_read(const char *sysroot, const char *interp, struct strv *dirs, char **file)
{
	const char *base = strrchr(interp, '/') + 1, *z = interp, *t = interp;
	size_t archlen = strlen(base) - strlen(MUSL_LOADER MUSL_LOADER_SUFFIX);
	char *path, *data, *save = NULL;
	size_t len;
	int r;

	*file = NULL;
	/* The prefix ends at the next-to-last slash, as musl counts. */
	for (const char *s = interp; *s; s++)
		if (*s == '/')
			z = t, t = s;
	path = xasprintf("%.*s/etc/ld-musl-%.*s.path", (int)(z - interp), interp, (int)archlen,
			 base + strlen(MUSL_LOADER));
	r = sysroot_read(sysroot, path, &data, &len);
	if (r == -ENOENT) {
		err_clear();
		free(path);
		strv_split(dirs, "/lib:/usr/local/lib:/usr/lib", ":");
		return 0;
	}
	if (r < 0) {
		free(path);
		return err_wrap("musl's library path");
	}
	for (char *d = strtok_r(data, ":\n", &save); d; d = strtok_r(NULL, ":\n", &save)) {
		/* A relative entry is relative to the working directory of
		 * the process: meaningless here. */
		if (d[0] == '/')
			strv_push(dirs, d);
	}
	free(data);
	*file = path;
	return 0;
}
