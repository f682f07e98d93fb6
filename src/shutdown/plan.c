// SPDX-License-Identifier: GPL-2.0-or-later
#include "plan.h"

#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>

#include "err.h"

int shutdown_verb_parse(const char *arg, enum shutdown_verb *verb)
{
	static const struct {
		const char *name;
		enum shutdown_verb verb;
	} verbs[] = {
		{ "poweroff", VERB_POWEROFF }, { "reboot", VERB_REBOOT }, { "halt", VERB_HALT }, { "kexec", VERB_KEXEC },
	};
	for (size_t i = 0; arg && i < ARRAY_SIZE(verbs); i++)
		if (strcmp(arg, verbs[i].name) == 0) {
			*verb = verbs[i].verb;
			return 0;
		}
	return err_set("unknown verb '%s' (expected poweroff, reboot, halt or kexec)", arg ? arg : "");
}

int shutdown_verb_cmd(enum shutdown_verb verb)
{
	switch (verb) {
	case VERB_REBOOT:
		return RB_AUTOBOOT;
	case VERB_HALT:
		return RB_HALT_SYSTEM;
	case VERB_KEXEC:
		return RB_KEXEC;
	case VERB_POWEROFF:
		break;
	}
	return RB_POWER_OFF;
}

/* mountinfo escapes blanks, tabs, newlines and backslashes as \ooo */
static char *unescape(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n + 1 && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
		    s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			*o++ = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

static size_t depth(const char *p)
{
	size_t d = 0;
	for (; *p; p++)
		d += *p == '/';
	return d;
}

static int deepest_first(const void *a, const void *b)
{
	size_t da = depth(*(char *const *)a), db = depth(*(char *const *)b);
	return da < db ? 1 : da > db ? -1 : 0;
}

void shutdown_mounts_below(const char *mountinfo, const char *prefix, struct strv *out)
{
	size_t plen = strlen(prefix);
	struct strv found = { 0 };

	for (const char *line = mountinfo; line && *line;) {
		const char *end = strchr(line, '\n'), *f = line;
		size_t len = end ? (size_t)(end - line) : strlen(line);
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ...: the fifth field */
		for (int field = 0; field < 4 && f; field++) {
			f = memchr(f, ' ', len - (size_t)(f - line));
			if (f)
				f++;
		}
		if (f && f < line + len) {
			const char *stop = memchr(f, ' ', len - (size_t)(f - line));
			char *mp = unescape(f, stop ? (size_t)(stop - f) : len - (size_t)(f - line));
			if (strncmp(mp, prefix, plen) == 0 && (mp[plen] == '\0' || mp[plen] == '/'))
				strv_push_owned(&found, mp);
			else
				free(mp);
		}
		line = end ? end + 1 : NULL;
	}
	/* mountinfo lists parents before children: a stable sort by depth,
	 * later mounts first among equals, unmounts what is on top first */
	for (size_t i = found.n; i > 0; i--)
		strv_push(out, found.v[i - 1]);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), deepest_first);
	strv_free(&found);
}
