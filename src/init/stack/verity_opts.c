// SPDX-License-Identifier: GPL-2.0-or-later
/* The pure parts of a dm-verity root: the root hash as written, the
 * partitions systemd derives from it, and systemd.verity_root_options=
 * (systemd-veritysetup's crypttab-style list, man veritytab) turned
 * into veritysetup's arguments. Every word comes from the command
 * line: checked before it reaches argv. */
#include "init/stack/verity.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "log.h"

#define HASH_HEX_MAX 128 /* SHA-512's 64 bytes */
#define UUID_HEX 32

int verity_hash_check(const char *hex)
{
	size_t n = strlen(hex);

	if (n < 2 || n > HASH_HEX_MAX || n % 2)
		return -EINVAL;
	for (const char *c = hex; *c; c++)
		if (!isxdigit((unsigned char)*c))
			return -EINVAL;
	return 0;
}

/* systemd's id128_to_uuid_string: the 16 bytes in order, grouped
 * 8-4-4-4-12, lower case. */
char *verity_partuuid_path(const char *roothash, bool last)
{
	size_t n = strlen(roothash);
	const char *h;
	char u[UUID_HEX + 5];
	size_t k = 0;

	if (n < UUID_HEX)
		return NULL;
	h = last ? roothash + n - UUID_HEX : roothash;
	for (size_t i = 0; i < UUID_HEX; i++) {
		if (i == 8 || i == 12 || i == 16 || i == 20)
			u[k++] = '-';
		u[k++] = (char)tolower((unsigned char)h[i]);
	}
	u[k] = '\0';
	return xasprintf("/dev/disk/by-partuuid/%s", u);
}

enum value { V_NONE, V_NUMBER, V_HEX, V_NAME, V_PATH, V_BOOL };

/* systemd-veritysetup's option names; each is veritysetup's own but
 * superblock=, which veritysetup says as --no-superblock. */
static const struct {
	const char *name;
	enum value value;
} known[] = {
	{ "ignore-corruption", V_NONE },   { "restart-on-corruption", V_NONE },
	{ "panic-on-corruption", V_NONE }, { "ignore-zero-blocks", V_NONE },
	{ "check-at-most-once", V_NONE },  { "superblock", V_BOOL },
	{ "format", V_NUMBER },            { "data-block-size", V_NUMBER },
	{ "hash-block-size", V_NUMBER },   { "data-blocks", V_NUMBER },
	{ "hash-offset", V_NUMBER },       { "salt", V_HEX },
	{ "uuid", V_NAME },                { "hash", V_NAME },
	{ "fec-device", V_PATH },          { "fec-offset", V_NUMBER },
	{ "fec-roots", V_NUMBER },
};

static bool all_of(const char *v, const char *extra, bool (*ok)(int))
{
	if (!*v)
		return false;
	for (const char *c = v; *c; c++)
		if (!ok((unsigned char)*c) && !strchr(extra, *c))
			return false;
	return true;
}

static bool is_digit(int c)
{
	return isdigit(c);
}

static bool is_hex(int c)
{
	return isxdigit(c);
}

static bool is_alnum(int c)
{
	return isalnum(c);
}

/* NULL when v is a value of this kind, else why not. */
static const char *bad_value(enum value kind, const char *v)
{
	switch (kind) {
	case V_NONE:
		return v ? "takes no value" : NULL;
	case V_BOOL: {
		bool b;
		return v && cmdline_parse_bool(v, &b) == 0 ? NULL : "not a boolean";
	}
	case V_NUMBER:
		return v && all_of(v, "", is_digit) && strlen(v) <= 20 ? NULL : "not a number";
	case V_HEX:
		/* "-": no salt, as veritysetup writes it */
		return v && (!strcmp(v, "-") || (all_of(v, "", is_hex) && strlen(v) <= 512))
			       ? NULL
			       : "not a hexadecimal salt";
	case V_NAME:
		if (!v || v[0] == '-' || !all_of(v, "-_.", is_alnum) || strlen(v) > 64)
			return "not a name";
		return NULL;
	case V_PATH:
		return v && v[0] == '/' && all_of(v, "-_./:@+", is_alnum) && !strstr(v, "/../") &&
				       strlen(v) <= 255
			       ? NULL
			       : "not an absolute device path";
	}
	return "not understood";
}

static void one(const char *opt, struct strv *out)
{
	const char *eq = strchr(opt, '=');
	size_t n = eq ? (size_t)(eq - opt) : strlen(opt);
	const char *v = eq ? eq + 1 : NULL, *why;
	bool b;

	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		if (strlen(known[i].name) != n || strncmp(opt, known[i].name, n))
			continue;
		if ((why = bad_value(known[i].value, v))) {
			log_warn("systemd.verity_root_options: ignoring %s: %s", opt, why);
			return;
		}
		if (known[i].value == V_BOOL) {
			cmdline_parse_bool(v, &b);
			if (!b)
				strv_push(out, "--no-superblock");
		} else {
			strv_push_owned(out, xasprintf("--%s", opt));
		}
		return;
	}
	if (n == 19 && !strncmp(opt, "root-hash-signature", n))
		log_warn("systemd.verity_root_options: ignoring %s: uniramfs does not check "
			 "root hash signatures",
			 opt);
	else
		log_warn("systemd.verity_root_options: ignoring %s: not a dm-verity option", opt);
}

void verity_options_argv(const char *opts, struct strv *out)
{
	struct strv words = { 0 };

	if (!opts)
		return;
	strv_split(&words, opts, ",");
	for (size_t i = 0; i < words.n; i++)
		if (*words.v[i])
			one(words.v[i], out);
	strv_free(&words);
}

void verity_free(struct verity *v)
{
	free(v->roothash);
	free(v->data);
	free(v->hash);
	free(v->options);
	free(v->data_node);
	free(v->hash_node);
	memset(v, 0, sizeof(*v));
}
