// SPDX-License-Identifier: GPL-2.0-or-later
/* The command line of the kernel's module requests (modreq.h). The
 * program runs as root with no shell behind it, so nothing of the name
 * is interpreted beyond the module lookup: no paths, no globs, no
 * options after "--". */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "err.h"
#include "init/dev/modreq.h"
#include "log.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("-_.,:()+@=", c));
}

static int check_name(const char *name)
{
	size_t n = strlen(name);

	if (!n)
		return err_set("an empty module name");
	if (n > MODREQ_NAME_MAX)
		return err_set("a module name of %zu bytes (at most %d)", n, MODREQ_NAME_MAX);
	if (name[0] == '-')
		return err_set("module name \"%s\" starts with '-'", name);
	for (size_t i = 0; i < n; i++)
		if (!name_char(name[i]))
			return err_set("module name \"%s\" has a character modprobe does not take "
				       "(byte %zu)", name, i);
	return 0;
}

int modreq_parse(int argc, char *const argv[], struct modreq *rq)
{
	bool opts = true;
	int i;

	*rq = (struct modreq){ 0 };
	for (i = 1; i < argc && argv[i]; i++) {
		const char *a = argv[i];

		if (opts && (!strcmp(a, "-q") || !strcmp(a, "--quiet"))) {
			rq->quiet = true;
		} else if (opts && !strcmp(a, "--")) {
			opts = false;
		} else if (opts && a[0] == '-') {
			return err_set("unknown option \"%s\" (only -q and -- are taken)", a);
		} else if (rq->name) {
			return err_set("more than one module name (\"%s\", \"%s\")", rq->name, a);
		} else {
			int r = check_name(a);
			if (r < 0)
				return r;
			rq->name = a;
		}
	}
	if (!rq->name)
		return err_set("no module name (usage: modprobe [-q] [--] NAME)");
	return 0;
}
