// SPDX-License-Identifier: GPL-2.0-or-later
/* crypttab(5)'s lines, read the same way for the image's /etc/crypttab
 * (which devices to open) and the root's (which names the root's
 * systemd-cryptsetup expects once it runs). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/stack/crypttab.h"
#include "util.h"

void crypttab_parse(char *data, struct crypttab *t)
{
	char *save = NULL;

	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[4] = { 0 }, *fs = NULL;
		size_t n = 0;
		for (char *w = strtok_r(line, " \t", &fs); w && n < 4; w = strtok_r(NULL, " \t", &fs))
			f[n++] = w;
		if (n < 2 || f[0][0] == '#')
			continue;
		ARRAY_GROW(t->v, t->cap, t->n + 1);
		struct crypttab_entry *e = &t->v[t->n++];
		e->name = xstrdup(f[0]);
		e->device = xstrdup(f[1]);
		e->keyfile = f[2] && strcmp(f[2], "none") && strcmp(f[2], "-") ? xstrdup(f[2]) : NULL;
		e->keyfield = xstrdup(f[2] ? f[2] : "none");
		e->options = xstrdup(f[3] ? f[3] : "");
	}
}

int crypttab_read(const struct sysops *ops, const char *path, struct crypttab *t)
{
	char *p = ops->path(path), *data = NULL;
	size_t len;
	int r = read_file(p, &data, &len);

	free(p);
	if (r < 0)
		return r == -ENOENT ? r : err_errno(r, "cannot read %s", path);
	crypttab_parse(data, t);
	free(data);
	return 0;
}

void crypttab_free(struct crypttab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].device);
		free(t->v[i].keyfile);
		free(t->v[i].keyfield);
		free(t->v[i].options);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
