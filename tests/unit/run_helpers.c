// SPDX-License-Identifier: GPL-2.0-or-later
#include "run_helpers.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "must.h"
#include "util.h"

int run_capture(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	struct buf b = { 0 };
	char chunk[4096];
	size_t n;
	int st;

	MUST(p);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_append(&b, chunk, n);
	st = pclose(p);
	if (!b.p)
		buf_append(&b, "", 0);
	if (out)
		*out = b.p;
	else
		buf_free(&b);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int run_shf(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		printf("# command failed (%d): %s\n", rc, cmd);
	free(cmd);
	return rc;
}

bool same_file(const char *a, const char *b)
{
	char *da, *db;
	size_t la, lb;
	bool same;

	if (read_file(a, &da, &la) < 0)
		return false;
	if (read_file(b, &db, &lb) < 0) {
		free(da);
		return false;
	}
	same = la == lb && memcmp(da, db, la) == 0;
	free(da);
	free(db);
	return same;
}

bool find_binaries(char **uniramfs, char **init_bin, char **kver)
{
	const char *bd = getenv("UNIRAMFS_BUILDDIR");
	DIR *d = opendir("/lib/modules");
	struct dirent *e;
	char *k = NULL;

	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				free(k);
				k = xstrdup(e->d_name);
			}
		closedir(d);
	}
	if (!bd || !k) {
		free(k);
		return false;
	}
	*kver = k;
	*uniramfs = path_join(bd, "uniramfs");
	*init_bin = path_join(bd, "uniramfs-init");
	if (access(*init_bin, X_OK) < 0) {
		free(*init_bin);
		*init_bin = path_join(bd, "src/init/uniramfs-init");
	}
	return true;
}

char *hostonly_fixture(const char *name)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	char *p = xasprintf("%s/tests/unit/fixtures/hostonly/%s", src ? src : ".", name);
	char *real = realpath(p, NULL);

	free(p);
	return real ? real : xstrdup("(missing fixture)");
}

const char *strv_joined(const struct strv *s)
{
	static char out[4][1024];
	static int slot;
	char *o = out[slot++ % 4];

	o[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			strcat(o, ",");
		strncat(o, s->v[i], 1000 - strlen(o));
	}
	return o;
}

void write_under(const char *dir, const char *rel, const char *text)
{
	char *p = path_join(dir, rel), *slash = strrchr(p, '/');
	FILE *f;

	*slash = '\0';
	MUST(mkdir_p(p, 0755) == 0);
	*slash = '/';
	f = fopen(p, "w");
	MUST(f != NULL);
	fputs(text, f);
	MUST(fclose(f) == 0);
	free(p);
}
