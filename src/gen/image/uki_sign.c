// SPDX-License-Identifier: GPL-2.0-or-later
/* Secure Boot signing of the UKI by sbsign (uki_sign.h). */
#include "gen/image/uki_sign.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/host/run_tool.h"
#include "util.h"

/* A PEM key or certificate chain is a few KiB; more is not one. */
#define SIGN_INPUT_MAX (1u << 20)

int uki_key_file_check(const char *opt, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return err_errno(errno, "%s %s", opt, path);
	if (!S_ISREG(st.st_mode))
		return err_set("%s %s: not a regular file", opt, path);
	if (st.st_size == 0 || st.st_size > SIGN_INPUT_MAX)
		return err_set("%s %s: %lld bytes (a PEM file has 1 to %u)", opt, path, (long long)st.st_size,
			       SIGN_INPUT_MAX);
	if (access(path, R_OK) < 0)
		return err_errno(errno, "%s %s", opt, path);
	return 0;
}

int uki_sign_check(const char *uki, const char *key, const char *cert)
{
	int r;

	if (!key && !cert)
		return 0;
	if (!uki)
		return err_set("--uki-sign-%s goes with --uki FILE.efi", key ? "key" : "cert");
	if (!key || !cert)
		return err_set("--uki-sign-%s needs --uki-sign-%s too", key ? "key" : "cert", key ? "cert" : "key");
	r = uki_key_file_check("--uki-sign-key", key);
	if (r == 0)
		r = uki_key_file_check("--uki-sign-cert", cert);
	return r;
}

int uki_sign(const void *uki, size_t len, int outfd, const char *key, const char *cert)
{
	char in_path[32], out_path[32];
	const char *argv[] = { "sbsign", "--key", key, "--cert", cert, "--output", out_path, in_path, NULL };
	struct buf said = { 0 };
	struct stat st;
	int in, r, keep[2];

	in = memfd_create("uki-unsigned", MFD_CLOEXEC);
	if (in < 0)
		return err_errno(errno, "memfd_create");
	r = write_all(in, uki, len);
	if (r < 0) {
		close(in);
		return err_errno(r, "memfd for sbsign");
	}
	snprintf(in_path, sizeof(in_path), "/dev/fd/%d", in);
	snprintf(out_path, sizeof(out_path), "/dev/fd/%d", outfd);
	keep[0] = in, keep[1] = outfd;
	/* sbsign says what it signs on stdout: read and dropped */
	r = run_tool_fds(argv, "sbsigntool", keep, 2, 64 * 1024, &said);
	close(in);
	buf_free(&said);
	if (r < 0)
		return err_wrap("--uki-sign-key %s", key);
	if (fstat(outfd, &st) < 0)
		return err_errno(errno, "signed UKI");
	if ((size_t)st.st_size <= len)
		return err_set("--uki-sign-key %s: sbsign wrote %lld bytes, no signature", key, (long long)st.st_size);
	return 0;
}
