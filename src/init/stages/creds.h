/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd credentials handed to the root's systemd the way its own
 * initrd leaves them (docs/design.md, "Handing over to the real system"). */
#ifndef UNIRAMFS_INIT_STAGES_CREDS_H
#define UNIRAMFS_INIT_STAGES_CREDS_H

#include <stdbool.h>

#include "init/init.h"
#include "util.h"

#define CREDS_SYSTEM_DIR "/run/credentials/@system"
#define CREDS_ENCRYPTED_DIR "/run/credentials/@encrypted"
#define CRED_SIZE_MAX (1024 * 1024)       /* systemd's CREDENTIAL_SIZE_MAX */
#define CREDS_TOTAL_SIZE_MAX (1024 * 1024) /* and CREDENTIALS_TOTAL_SIZE_MAX */

/* systemd's credential_name_valid(): a file name (not "." or "..", no
 * '/', at most 255 bytes) of printable ASCII without ':'. */
bool cred_name_valid(const char *name);

/* Before switch_root, systemd the root's init: the UKI's credentials
 * (systemd-stub's /.extra/credentials/ and /.extra/global_credentials/
 * *.cred) copied to CREDS_ENCRYPTED_DIR, and when there are any, or
 * rd.systemd.set_credential= words, every systemd.set_credential= and
 * rd.systemd.set_credential= value written to CREDS_SYSTEM_DIR; env gets
 * CREDENTIALS_DIRECTORY= / ENCRYPTED_CREDENTIALS_DIRECTORY= for each
 * directory made, as systemd's initrd passes them on. Nothing when
 * neither is there (the root's systemd imports the command line's
 * itself) or with systemd.import_credentials=no. Failures are warned
 * about; the boot goes on. */
void creds_handover(struct init *in, struct strv *env);

#endif
