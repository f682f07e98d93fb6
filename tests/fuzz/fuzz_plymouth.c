// SPDX-License-Identifier: GPL-2.0-or-later
/* Plymouth's files as the generator reads them from the host
 * (src/gen/features/plymouth_theme.c): plymouthd.conf, plymouthd.defaults
 * and a theme's .plymouth, ini text written by anyone with root or a
 * package; and `splash` on a command line. A value found is one line of
 * the input, trimmed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen/features/plymouth.h"

static void check(const char *text, const char *section, const char *key)
{
	char *v = plymouth_ini_get(text, section, key);
	size_t n;

	if (!v)
		return;
	n = strlen(v);
	if (strchr(v, '\n') || (n && (v[0] == ' ' || v[n - 1] == ' ' || v[n - 1] == '\t')) ||
	    !strstr(text, v))
		__builtin_trap();
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	check(text, "Daemon", "Theme");
	check(text, "Plymouth Theme", "ModuleName");
	check(text, "two-step", "ImageDir");
	check(text, "script", "ScriptFile");
	(void)plymouth_asked(text);
	free(text);
	return 0;
}
