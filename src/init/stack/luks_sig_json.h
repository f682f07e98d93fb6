/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_SIG_JSON_H
#define UNIRAMFS_INIT_STACK_LUKS_SIG_JSON_H

#include <stddef.h>

/* Whether a PCR signature file has the shape systemd 252's TPM2 plugin
 * reads (systemd-measure's JSON: {"sha256":[{"pcrs":[11],"pkfp":...,
 * "pol":...,"sig":...},...],...}), so that a malformed one is refused by
 * the init with a line saying why, not only as a token that failed. The
 * shape is what the plugin refuses with -EINVAL before it looks for an
 * entry: JSON text (RFC 8259), an object, each member an array of
 * objects. What the entries hold, and whether the signature is good, the
 * plugin and the TPM judge. */
enum luks_sig_json {
	LUKS_SIG_JSON_OK,
	LUKS_SIG_JSON_EMPTY,      /* nothing but white space */
	LUKS_SIG_JSON_SYNTAX,     /* not JSON from *at on */
	LUKS_SIG_JSON_DEEP,       /* nested deeper than LUKS_SIG_JSON_DEPTH at *at */
	LUKS_SIG_JSON_NOT_OBJECT, /* JSON, its top not an object */
	LUKS_SIG_JSON_NOT_BANK,   /* a member at *at not an array of objects */
};

/* the entries are 3 deep ("pcrs" 4); the bound keeps the scan's
 * recursion small on hostile text */
#define LUKS_SIG_JSON_DEPTH 32

/* text's len bytes (a NUL among them is not JSON): LUKS_SIG_JSON_OK, or
 * what is wrong, *at the byte offset where it was seen (a syntax error
 * wins over a shape one). */
enum luks_sig_json luks_sig_json_check(const char *text, size_t len, size_t *at);

#endif
