// SPDX-License-Identifier: GPL-2.0-or-later
/* Commands to the kernel's TPM device (tpm2_dev.h). The answers are
 * parsed by tpm2_msg.c, which trusts none of their bytes. */
#include "init/tpm/tpm2_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "err.h"

int tpm2_dev_open(const struct sysops *ops, const char *path, const char **opened)
{
	const char *try[2] = { path ? path : TPM2_RM_DEV, path ? NULL : TPM2_RAW_DEV };
	int fd = -ENOENT;

	for (size_t i = 0; i < 2 && try[i]; i++) {
		fd = ops->open(try[i], O_RDWR | O_CLOEXEC | O_NOCTTY, 0);
		if (fd >= 0) {
			*opened = try[i];
			return fd;
		}
		/* the resource manager absent: the raw device, as tpm2-tss's
		 * device TCTI falls back */
		if (fd != -ENOENT)
			break;
	}
	if (fd == -ENOENT)
		return err_set_code(-ENOENT, "no TPM2 device %s", try[0]);
	return err_errno(fd, "cannot open the TPM2 device %s", try[0]);
}

ssize_t tpm2_dev_transact(int fd, const uint8_t *cmd, size_t len, uint8_t *rsp)
{
	ssize_t n;

	do
		n = write(fd, cmd, len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		return err_errno(n < 0 ? errno : EIO, "cannot send a command to the TPM");
	do
		n = read(fd, rsp, TPM2_RSP_MAX);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_errno(errno, "cannot read the TPM's answer");
	return n;
}

int tpm2_dev_banks(int fd, struct tpm2_banks *out)
{
	uint8_t cmd[TPM2_CMD_MAX], rsp[TPM2_RSP_MAX];
	ssize_t n = tpm2_dev_transact(fd, cmd, tpm2_cmd_get_pcrs(cmd), rsp);

	return n < 0 ? (int)n : tpm2_rsp_get_pcrs(rsp, (size_t)n, out);
}

int tpm2_dev_pcr_read(int fd, uint16_t alg, unsigned pcr, struct tpm2_digest *out)
{
	uint8_t cmd[TPM2_CMD_MAX], rsp[TPM2_RSP_MAX];
	ssize_t n = tpm2_dev_transact(fd, cmd, tpm2_cmd_pcr_read(cmd, alg, pcr), rsp);

	return n < 0 ? (int)n : tpm2_rsp_pcr_read(rsp, (size_t)n, alg, out);
}

int tpm2_dev_pcr_extend(int fd, unsigned pcr, const struct tpm2_digest *d, size_t n)
{
	uint8_t cmd[TPM2_CMD_MAX], rsp[TPM2_RSP_MAX];
	ssize_t got = tpm2_dev_transact(fd, cmd, tpm2_cmd_pcr_extend(cmd, pcr, d, n), rsp);

	return got < 0 ? (int)got : tpm2_rsp_pcr_extend(rsp, (size_t)got);
}
