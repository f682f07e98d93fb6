// SPDX-License-Identifier: GPL-2.0-or-later
/* crypttab keyscript=: the script goes into the image as a program (its
 * interpreter, or an ELF's libraries, with it), at the path the init
 * runs it by. The tools the script itself runs are the owner's to pack
 * (a plugin or --add-binaries, docs/plugins.md): nobody can read them
 * out of a script. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gen/elf/elf.h"
#include "gen/features/stack.h"
#include "gen/host/sysroot.h"
#include "log.h"

/* Debian's cryptsetup finds a keyscript given by name here (the init's
 * luks_keyscript.h says the same). */
#define KEYSCRIPT_DIR "/lib/cryptsetup/scripts"

/* keyscript=X in an options field: X (yours to free), or NULL. */
static char *keyscript_of(const char *options)
{
	for (const char *o = options; o && *o;) {
		const char *end = strchr(o, ',');
		size_t len = end ? (size_t)(end - o) : strlen(o);
		if (len > 10 && !strncmp(o, "keyscript=", 10))
			return xstrndup(o + 10, len - 10);
		o = end ? end + 1 : NULL;
	}
	return NULL;
}

static int add_one(struct elf_resolver *er, struct image *img, const char *sysroot,
		   const char *line, const char *script)
{
	char *path = script[0] == '/' ? xstrdup(script) : xasprintf(KEYSCRIPT_DIR "/%s", script);
	char *host = NULL;
	struct stat st;
	int r = sysroot_path(sysroot, path, &host, &st);

	const char *root = strcmp(sysroot, "/") ? sysroot : "";

	if (r == -ENOENT) {
		r = err_set("%s/etc/crypttab line '%s': keyscript %s is not there: nothing is written",
			    root, line, path);
	} else if (r == 0 && (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))) {
		r = err_set("%s/etc/crypttab line '%s': keyscript %s is not an executable file: "
			    "nothing is written", root, line, path);
	} else {
		if (r == 0)
			r = elf_add_binary(er, img, path);
		if (r < 0)
			err_wrap("%s/etc/crypttab line '%s': keyscript %s", root, line, path);
	}
	free(host);
	free(path);
	return r;
}

int stack_add_keyscripts(struct image *img, const char *sysroot, const char *lines)
{
	char *data = xstrdup(lines), *save = NULL;
	struct elf_resolver *er = NULL;
	int r = 0;

	for (char *line = strtok_r(data, "\n", &save); r == 0 && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *copy = xstrdup(line), *fs = NULL, *f[4] = { 0 }, *ks;
		size_t n = 0;
		for (char *w = strtok_r(copy, " \t", &fs); w && n < 4; w = strtok_r(NULL, " \t", &fs))
			f[n++] = w;
		ks = n == 4 ? keyscript_of(f[3]) : NULL;
		if (ks) {
			if (!er)
				er = elf_resolver_new(sysroot);
			r = add_one(er, img, sysroot, line, ks);
		}
		free(ks);
		free(copy);
	}
	if (er)
		elf_resolver_free(er);
	free(data);
	return r;
}
