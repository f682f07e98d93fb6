// SPDX-License-Identifier: GPL-2.0-or-later
/* The signature of a signed PCR policy, put where systemd's TPM2 token
 * plugin reads it (luks_sig.h). Copied as bytes: whatever it holds, the
 * plugin parses it and the TPM checks the signature against the token's
 * public key, so a malformed or foreign one only fails the token. */
#include "init/stack/luks_sig.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "init/core/ops.h"
#include "init/core/regfile.h"
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

int luks_sig_stage(const struct sysops *ops, const char *dev, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	int fd, r;

	/* never one left from another device's run */
	ops->unlink(LUKS_SIG_RUN);
	if (!slurp(ops, dev, path ? path : LUKS_SIG_STUB, !path, &data, &len))
		return 0;
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
