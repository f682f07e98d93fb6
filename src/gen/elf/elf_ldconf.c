// SPDX-License-Identifier: GPL-2.0-or-later
/* The library directories of sysroot/etc/ld.so.conf, as ldconfig reads
 * them: `include` globs (relative to the including file), comments,
 * hwcap lines skipped, old "dir=TYPE" and several dirs on a line. */
#include "gen/elf/elf_ldconf.h"

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
