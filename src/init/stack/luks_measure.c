// SPDX-License-Identifier: GPL-2.0-or-later
/* The volume key into PCR 15, as systemd-cryptsetup measures it with
 * tpm2-measure-pcr=yes (luks_measure.h): a root swapped for another
 * LUKS volume then leaves another PCR 15, and a secret sealed to the
 * real root's is not released. cryptsetup's CLI does the unlock here, so
 * the key is had without a second key derivation: the volume was opened
 * with --disable-keyring, and dm's table holds its key, read back with
 * DM_TABLE_STATUS and wiped after. */
#include "init/stack/luks_measure.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/stack/stack_env.h"
#include "init/tpm/measure.h"
#include "init/tpm/tpm2_dev.h"
#include "init/tpm/tpmwait.h"
#include "log.h"
#include "util.h"

#define TABLE_MAX 16384
#define KEY_MAX 512 /* cryptsetup's longest volume key */
#define TPM_WAIT_S 5

char *luks_measure_string(const char *name, const char *uuid)
{
	struct buf b = { 0 };

	buf_printf(&b, "cryptsetup:");
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c == ':' || *c == '\\' || *c < 0x20 || *c >= 0x7f)
			buf_printf(&b, "\\x%02x", *c);
		else
			buf_printf(&b, "%c", *c);
	buf_printf(&b, ":%s", uuid ? uuid : "");
	return b.p;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int luks_table_key(const char *params, unsigned char *key, size_t size)
{
	const char *k = strchr(params, ' ');
	size_t len, i;

	if (!k)
		return err_set("its dm-crypt table has no key");
	k++;
	len = strcspn(k, " ");
	if (len && k[0] == ':')
		return err_set("its key is in the kernel keyring, not in its dm-crypt table");
	if (!len || len % 2 || len / 2 > size)
		return err_set("its dm-crypt table's key is not a key (%zu hexadecimal digits)", len);
	for (i = 0; i < len / 2; i++) {
		int hi = hexval(k[2 * i]), lo = hexval(k[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			explicit_bzero(key, i);
			return err_set("its dm-crypt table's key is not hexadecimal");
		}
		key[i] = (unsigned char)(hi << 4 | lo);
	}
	return (int)i;
}

/* The key of /dev/mapper/name's only target, a crypt one. */
static int table_key(const struct sysops *ops, const char *name, unsigned char *key, size_t size)
{
	union {
		struct dm_ioctl io;
		char buf[TABLE_MAX];
	} *u = xcalloc(1, sizeof(*u));
	struct dm_target_spec *t;
	int fd, r;

	if (strlen(name) >= DM_NAME_LEN) {
		r = err_set_code(-ENAMETOOLONG, "a device-mapper name is at most %d bytes", DM_NAME_LEN - 1);
		goto out;
	}
	u->io.version[0] = DM_VERSION_MAJOR;
	u->io.data_size = sizeof(*u);
	u->io.data_start = sizeof(struct dm_ioctl);
	u->io.flags = DM_STATUS_TABLE_FLAG;
	strcpy(u->io.name, name);
	fd = ops->open("/dev/mapper/control", O_RDWR | O_CLOEXEC, 0);
	if (fd < 0) {
		r = err_errno(fd, "cannot open /dev/mapper/control");
		goto out;
	}
	r = ops->ioctl(fd, DM_TABLE_STATUS, u);
	close(fd);
	if (r < 0) {
		r = err_errno(r, "cannot read its dm table");
		goto out;
	}
	/* the kernel's answer: one target spec, its parameters after it */
	t = (struct dm_target_spec *)(u->buf + u->io.data_start);
	if ((u->io.flags & DM_BUFFER_FULL_FLAG) || u->io.target_count != 1 ||
	    u->io.data_start + sizeof(*t) >= sizeof(*u) || strncmp(t->target_type, "crypt", DM_MAX_TYPE_NAME)) {
		r = err_set("its dm table is not one crypt target");
		goto out;
	}
	u->buf[sizeof(*u) - 1] = '\0';
	r = luks_table_key((char *)(t + 1), key, size);
out:
	explicit_bzero(u, sizeof(*u));
	free(u);
	return r;
}

void luks_measure(struct stack_env *env, const struct luks_opts *o, const char *name,
		  const char *uuid)
{
	const char *tpm = o->tpm2_device ? o->tpm2_device : TPM2_RM_DEV;
	unsigned char key[KEY_MAX];
	struct tpm2_measure m = { .pcr = (unsigned)o->measure_pcr, .event = "volume-key",
				  .banks = o->measure_bank };
	char *s;
	int n;

	if (o->measure_pcr < 0)
		return;
	if (env->ml && modload_name(env->ml, "algif_hash") < 0)
		log_debug("algif_hash: %s", err_msg());
	if (!tpm_wait(env->ops, env->loop, env->drivers, tpm, TPM_WAIT_S) &&
	    (o->tpm2_device || env->ops->access(TPM2_RAW_DEV, F_OK) < 0)) {
		log_info("%s: no TPM2 device: its volume key is not measured into PCR %d", name,
			 o->measure_pcr);
		return;
	}
	if ((n = table_key(env->ops, name, key, sizeof(key))) < 0) {
		log_warn("%s: the volume key was not measured into PCR %d: %s", name, o->measure_pcr,
			 err_msg());
		return;
	}
	m.data = s = luks_measure_string(name, uuid);
	m.key = key;
	m.keylen = (size_t)n;
	if (tpm2_measure(env->ops, o->tpm2_device, &m) < 0)
		log_warn("%s: the volume key was not measured into PCR %d: %s", name, o->measure_pcr,
			 err_msg());
	explicit_bzero(key, sizeof(key));
	free(s);
}
