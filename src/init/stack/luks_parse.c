// SPDX-License-Identifier: GPL-2.0-or-later
/* The rd.luks.* options of the command line: the one place they are
 * read into struct stack. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "init/stack/stack.h"
#include "log.h"

static char *luks_uuid(const char *v)
{
	char *u;

	if (!strncasecmp(v, "UUID=", 5))
		v += 5;
	if (!strncmp(v, "luks-", 5))
		v += 5;
	u = xstrdup(v);
	for (char *c = u; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	return u;
}

void luks_parse(struct stack *s, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char *key = eq ? xstrndup(kv, (size_t)(eq - kv)) : xstrdup(kv);
	const char *v = eq ? eq + 1 : NULL;
	bool b;

	if (!strcmp(key, "rd.luks") || !strcmp(key, "rd.luks.crypttab")) {
		if (v && cmdline_parse_bool(v, &b) < 0)
			log_warn("ignoring %s: not a boolean (use 1 or 0)", kv);
		else if (!strcmp(key, "rd.luks"))
			s->luks_off = v && !b;
		else
			s->crypttab_off = v && !b;
	} else if (!strcmp(key, "rd.luks.uuid") && v && *v) {
		strv_push_owned(&s->luks_uuids, luks_uuid(v));
	} else if (!strcmp(key, "rd.luks.name") && v) {
		const char *sep = strchr(v, '=');
		if (!sep || sep == v || !sep[1] || strchr(sep + 1, '/')) {
			log_warn("ignoring %s: expected rd.luks.name=UUID=NAME", kv);
		} else {
			char *u = xstrndup(v, (size_t)(sep - v));
			strv_push_owned(&s->name_uuids, luks_uuid(u));
			strv_push(&s->name_names, sep + 1);
			free(u);
		}
	} else if (!strcmp(key, "rd.luks.key") && v && *v) {
		luks_key_parse(s, v);
	} else if (!strcmp(key, "rd.luks.options") && v) {
		char *uuid;
		const char *list = luks_options_split(v, &uuid);
		luks_options_parse(uuid ? luks_uuid_opts(s, uuid) : &s->opts, list,
				   "rd.luks.options");
		free(uuid);
	} else if (!strcmp(key, "rd.luks.tokens")) {
		if (v && cmdline_parse_bool(v, &b) < 0)
			log_warn("ignoring %s: not a boolean (use 1 or 0)", kv);
		else
			s->tokens_off = v && !b;
	} else if (!strcmp(key, "rd.luks.clevis")) {
		if (v && cmdline_parse_bool(v, &b) < 0)
			log_warn("ignoring %s: not a boolean (use 1 or 0)", kv);
		else
			s->clevis_off = v && !b;
	} else if (!strcmp(key, "rd.luks.allow-discards")) {
		s->allow_discards = true;
	} else if (!strcmp(key, "rd.luks.header") || !strcmp(key, "rd.luks.data")) {
		luks_header_parse(s, key, v);
	} else if (!strcmp(key, "rd.luks.tries") && v) {
		if (cmdline_parse_int(v, 1, 100, &s->tries) < 0)
			log_warn("ignoring %s: not a number from 1 to 100", kv);
	} else if (!strcmp(key, "rd.luks.uuid") || !strcmp(key, "rd.luks.name") ||
		   !strcmp(key, "rd.luks.key") || !strcmp(key, "rd.luks.options") ||
		   !strcmp(key, "rd.luks.tries")) {
		log_warn("ignoring %s: expected %s=VALUE", kv, key);
	} else {
		/* dracut's and systemd's others (rd.luks.timeout, ...): said
		 * by name, never taken silently */
		log_warn("ignoring %s: uniramfs does not support %s", kv, key);
	}
	free(key);
}
