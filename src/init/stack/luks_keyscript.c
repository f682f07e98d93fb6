// SPDX-License-Identifier: GPL-2.0-or-later
/* A crypttab keyscript= as Debian's cryptsetup runs it (crypttab(5)):
 * the third field as its one argument, the line in CRYPTTAB_* variables,
 * its stdout the key, given to cryptsetup as a key file through a pipe.
 * Nobody can tell whether the script asked a person, so an unlock by it
 * counts as automatic (docs/unlock.md). */
#include "init/stack/luks_keyscript.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "init/stack/stack.h"
#include "log.h"
#include "util.h"

char *luks_keyscript_path(const char *script)
{
	return script[0] == '/' ? xstrdup(script) : xasprintf(LUKS_KEYSCRIPT_DIR "/%s", script);
}

/* One run: 0 and the key in key (*len bytes), or 1 after saying why this try
 * gave none, or a negative code (not in the image: no use retrying). */
static int run_once(struct stack_env *env, const struct luks_keyscript *ks, const char *path,
		    long tried, char *key, size_t *len)
{
	char *argv[] = { (char *)path, (char *)ks->key, NULL };
	char *vars[] = {
		xasprintf("CRYPTTAB_NAME=%s", ks->name),
		xasprintf("CRYPTTAB_SOURCE=%s", ks->source),
		xasprintf("CRYPTTAB_KEY=%s", ks->key),
		xasprintf("CRYPTTAB_OPTIONS=%s", ks->options),
		xasprintf("CRYPTTAB_TRIED=%ld", tried),
		NULL,
	};
	int st = tool_run_output(env, path, argv, vars, key, LUKS_KEYSCRIPT_MAX, len);

	for (size_t i = 0; vars[i]; i++)
		free(vars[i]);
	if (st == -ENOENT)
		return st;
	if (st < 0) /* tool_run_output said why */
		return 1;
	if (st > 0) {
		log_err("keyscript %s for %s failed (exit status %d)", path, ks->source, st);
		return 1;
	}
	if (*len > LUKS_KEYSCRIPT_MAX) {
		log_err("keyscript %s for %s printed %zu bytes, more than the %d a key may have; "
			"not trying it", path, ks->source, *len, LUKS_KEYSCRIPT_MAX);
		return 1;
	}
	return 0;
}

int luks_keyscript_unlock(struct stack_env *env, const struct luks_keyscript *ks,
			  int (*open)(void *ctx, const void *key, size_t len), void *ctx)
{
	char *path = luks_keyscript_path(ks->script);
	char *key = xmalloc(LUKS_KEYSCRIPT_MAX);
	long t;
	int r = 0;

	for (t = 0; ks->tries == 0 || t < ks->tries; t++) {
		size_t len = 0;
		int st = run_once(env, ks, path, t, key, &len);
		if (st < 0) {
			r = st;
			break;
		}
		if (st > 0) {
			explicit_bzero(key, LUKS_KEYSCRIPT_MAX);
			continue;
		}
		st = open(ctx, key, len);
		explicit_bzero(key, LUKS_KEYSCRIPT_MAX);
		if (st == 0) {
			log_info("%s: opened with the key from keyscript %s", ks->source, path);
			r = 1;
			break;
		}
		if (st != 2) { /* 2: no key slot opened with it */
			if (st > 0)
				log_err("cryptsetup could not open %s (exit status %d)", ks->source, st);
			r = st < 0 ? st : -EIO;
			break;
		}
		log_err("the key from keyscript %s does not open %s", path, ks->source);
	}
	if (r == 0)
		log_err("giving up on %s after %ld tries of keyscript %s", ks->source, t, path);
	explicit_bzero(key, LUKS_KEYSCRIPT_MAX);
	free(key);
	free(path);
	return r;
}
