// SPDX-License-Identifier: GPL-2.0-or-later
/* The image's /etc/crypttab as the init reads it (crypttab.c), each
 * line's options (luks_opts.c) and the cryptsetup arguments made of
 * them. The file comes from a sysroot the generator read: hostile.
 * Rules beyond "no crash": every entry has a name and a device of one
 * word each, never a comment; "none" and "-" are no key file; the
 * options give cryptsetup only its own --options, a header= (maybe
 * /FILE:DEVICE) and a tpm2-device= that are absolute, ".."-free paths (a /dev one for the
 * TPM), numbers in their bounds, a tpm2-measure-pcr= PCR 0-23 and a
 * tpm2-measure-bank= of banks only. A broken rule traps. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "init/stack/crypttab.h"
#include "init/stack/luks_opts.h"
#include "init/tpm/tpm2_msg.h"

/* luks_opts.c's luks_opts_for needs the stack's UUID comparison (in
 * stack/common.c, with the whole init behind it); this target does not
 * call luks_opts_for, so reaching this is a bug of the target. */
bool stack_uuid_eq(const char *a, const char *b);
bool stack_uuid_eq(const char *a, const char *b)
{
	(void)a;
	(void)b;
	__builtin_trap();
}

/* header= splits /FILE:DEVICE at a device spec (blockdev.c, libblkid
 * behind it): here the forms' prefixes are enough. */
bool blockdev_spec_valid(const char *spec);
bool blockdev_spec_valid(const char *spec)
{
	return spec && (!strncmp(spec, "UUID=", 5) || !strncmp(spec, "LABEL=", 6) ||
			(!strncmp(spec, "/dev/", 5) && spec[5]));
}

static void quiet_sink(int level, const char *msg, void *userdata)
{
	(void)level;
	(void)msg;
	(void)userdata;
}

static bool one_word(const char *s)
{
	return s && *s && !strpbrk(s, " \t\n");
}

/* No ".." component: the path stays where it says. */
static bool plain_path(const char *p)
{
	for (const char *c = p; (c = strchr(c, '/')); c++)
		if (c[1] == '.' && c[2] == '.' && (c[3] == '/' || !c[3]))
			return false;
	return true;
}

static void check_opts(const struct luks_opts *o)
{
	const char *argv[LUKS_OPEN_ARGV];
	char scratch[LUKS_SCRATCH][LUKS_ARG_MAX];
	struct tpm2_banks banks;
	size_t n;

	if (o->header && (o->header[0] != '/' || strlen(o->header) > LUKS_HEADER_MAX ||
			  !plain_path(o->header)))
		__builtin_trap();
	if (o->tpm2_device && (strncmp(o->tpm2_device, "/dev/", 5) != 0 || !plain_path(o->tpm2_device)))
		__builtin_trap();
	if (o->keyfile_size != -1 && (o->keyfile_size < 1 || o->keyfile_size > (8 << 20)))
		__builtin_trap();
	if (o->keyfile_offset < -1 || o->tries < -1 || o->tries > 100 || o->key_slot < -1 ||
	    o->key_slot > 31)
		__builtin_trap();
	if (o->timeout_given && (o->timeout_s < 0 || o->timeout_s > 86400 * 60))
		__builtin_trap();
	/* tpm2-measure-pcr=: unset, no, or a PCR 0-23; a bank list kept
	 * only when every word is a bank */
	if (o->measure_pcr < LUKS_MEASURE_UNSET || o->measure_pcr > 23)
		__builtin_trap();
	if (o->measure_bank && tpm2_parse_banks(o->measure_bank, &banks) <= 0)
		__builtin_trap();
	for (unsigned how = 0; how < 4; how++) {
		n = luks_opts_argv(o, how, argv, scratch);
		if (n > LUKS_OPEN_ARGV)
			__builtin_trap();
		for (size_t i = 0; i < n; i++)
			if (strncmp(argv[i], "--", 2) != 0 || strchr(argv[i], '\n'))
				__builtin_trap();
		/* the header's argument is whole, never cut short */
		if (o->header && (strncmp(argv[o->discard + o->no_read_wq + o->no_write_wq], "--header=", 9) != 0 ||
				  strcmp(argv[o->discard + o->no_read_wq + o->no_write_wq] + 9, o->header) != 0))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct crypttab t = { 0 };
	char *text = malloc(size + 1);
	size_t lines = 1;

	log_set_sink(quiet_sink, NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	crypttab_parse(text, &t);
	if (t.n > lines)
		__builtin_trap();
	for (size_t i = 0; i < t.n; i++) {
		const struct crypttab_entry *e = &t.v[i];
		struct luks_opts o, merged;
		if (!one_word(e->name) || e->name[0] == '#' || !one_word(e->device))
			__builtin_trap();
		if (e->keyfile && (!one_word(e->keyfile) || !strcmp(e->keyfile, "none") || !strcmp(e->keyfile, "-")))
			__builtin_trap();
		if (!e->options || strpbrk(e->options, " \t\n"))
			__builtin_trap();
		luks_opts_init(&o);
		luks_options_parse(&o, e->options, "/etc/crypttab fuzz");
		check_opts(&o);
		/* a second line's options on top, as rd.luks.options= and
		 * the line are merged */
		luks_opts_merge(&merged, &o, i + 1 < t.n ? &o : NULL);
		check_opts(&merged);
		luks_opts_free(&merged);
		luks_opts_free(&o);
	}
	crypttab_free(&t);
	free(text);
	return 0;
}
