// SPDX-License-Identifier: GPL-2.0-or-later
/* The signature of a signed PCR policy, put where systemd's TPM2 token
 * plugin reads it (luks_sig.h). Copied as bytes once its shape is
 * checked (luks_sig_json.c): a malformed one is refused here with a line
 * saying why, since the plugin would fail the token without a word; what
 * the entries hold the plugin reads, and the TPM checks the signature
 * against the token's public key, so a foreign one only fails the token. */
#include "init/stack/luks_sig.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "init/core/ops.h"
#include "init/core/regfile.h"
#include "init/stack/luks_sig_json.h"
#include "log.h"
#include "util.h"

/* path's bytes into *out (*len), or 0 with a line said: not there (said
 * unless quiet), not a regular file, too large, unreadable. */
static int slurp(const struct sysops *ops, const char *dev, const char *path, bool quiet,
		 char **out, size_t *len)
{
	int r = regfile_read(ops, path, LUKS_SIG_MAX, out, len);

	if (r == -ENOENT && !quiet)
		log_warn("%s: tpm2-signature=%s: no such file; the token's signed PCR policy "
			 "cannot be met", dev, path);
	else if (r == -ELOOP || r == -EINVAL)
		log_warn("%s: %s is not a regular file: not used as a PCR signature", dev, path);
	else if (r == -EFBIG)
		log_warn("%s: %s is larger than %d bytes: not used as a PCR signature", dev, path,
			 LUKS_SIG_MAX);
	else if (r == -EIO)
		log_warn("%s: cannot read %s: its size changed", dev, path);
	else if (r < 0 && r != -ENOENT)
		log_warn("%s: cannot read %s: %s", dev, path, strerror(-r));
	return r == 0;
}

/* Whether data has a PCR signature's shape, said by name when not. */
static bool shaped(const char *dev, const char *path, const char *data, size_t len)
{
	size_t at = 0;

	switch (luks_sig_json_check(data, len, &at)) {
	case LUKS_SIG_JSON_OK:
		return true;
	case LUKS_SIG_JSON_EMPTY:
		log_warn("%s: %s is empty: not used as a PCR signature", dev, path);
		break;
	case LUKS_SIG_JSON_SYNTAX:
		log_warn("%s: %s is not JSON (at byte %zu): not used as a PCR signature", dev, path,
			 at);
		break;
	case LUKS_SIG_JSON_DEEP:
		log_warn("%s: %s nests deeper than %d (at byte %zu): not used as a PCR signature",
			 dev, path, LUKS_SIG_JSON_DEPTH, at);
		break;
	case LUKS_SIG_JSON_NOT_OBJECT:
		log_warn("%s: %s is not a JSON object of PCR banks: not used as a PCR signature",
			 dev, path);
		break;
	case LUKS_SIG_JSON_NOT_BANK:
		log_warn("%s: %s has a bank that is not an array of objects (at byte %zu): not "
			 "used as a PCR signature", dev, path, at);
		break;
	}
	return false;
}

int luks_sig_stage(const struct sysops *ops, const char *dev, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	int fd, r;

	/* never one left from another device's run */
	ops->unlink(LUKS_SIG_RUN);
	if (!slurp(ops, dev, path ? path : LUKS_SIG_STUB, !path, &data, &len))
		return 0;
	if (!shaped(dev, path ? path : LUKS_SIG_STUB, data, len)) {
		free(data);
		return 0;
	}
	if (((r = ops->mkdir("/run/systemd", 0755)) < 0 && r != -EEXIST) ||
	    (r = fd = ops->open(LUKS_SIG_RUN, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0444)) < 0) {
		log_warn("%s: cannot create %s: %s", dev, LUKS_SIG_RUN, strerror(-r));
		free(data);
		return 0;
	}
	r = write_all(fd, data, len);
	close(fd);
	free(data);
	if (r < 0) {
		log_warn("%s: cannot write %s: %s", dev, LUKS_SIG_RUN, strerror(-r));
		ops->unlink(LUKS_SIG_RUN);
		return 0;
	}
	log_debug("%s: PCR signature %s put at %s", dev, path ? path : LUKS_SIG_STUB, LUKS_SIG_RUN);
	return 1;
}

void luks_sig_unstage(const struct sysops *ops)
{
	ops->unlink(LUKS_SIG_RUN);
}
