/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_SIG_H
#define UNIRAMFS_INIT_STACK_LUKS_SIG_H

struct sysops;

/* A signed PCR policy's signature (systemd-measure's JSON) for a TPM2
 * token enrolled with systemd-cryptenroll --tpm2-public-key=. systemd
 * 252's token plugin reads it from tpm2-pcr-signature.json in
 * /etc/systemd, /run/systemd, /usr/local/lib/systemd, /usr/lib/systemd,
 * and /.extra only when it thinks it runs in an initrd; nothing passes it
 * a path when cryptsetup(8) loads it. So the init copies the one to use
 * (tpm2-signature=PATH, else the stub's) to LUKS_SIG_RUN for the one
 * cryptsetup run, and runs it with SYSTEMD_IN_INITRD=0 so the plugin
 * never reads /.extra behind its back. Only JSON of the shape the plugin
 * reads is copied (luks_sig_json.h); its entries the plugin judges. The
 * public key is in the token itself. */
#define LUKS_SIG_STUB "/.extra/tpm2-pcr-signature.json"
#define LUKS_SIG_RUN "/run/systemd/tpm2-pcr-signature.json"
#define LUKS_SIG_MAX (64 * 1024) /* four phases in three banks are ~6 KiB */

/* path (tpm2-signature=; NULL: the stub's) put at LUKS_SIG_RUN, only a
 * regular file of at most LUKS_SIG_MAX bytes, no link followed (dev names
 * whose in the messages), and only JSON shaped as a signature: 1 put, 0
 * none (the stub's absent: nothing said; else said, and no signature is
 * there for the plugin). */
int luks_sig_stage(const struct sysops *ops, const char *dev, const char *path);
/* LUKS_SIG_RUN gone again, so no initrd file outlives the run. */
void luks_sig_unstage(const struct sysops *ops);

#endif
