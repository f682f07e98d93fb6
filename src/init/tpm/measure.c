// SPDX-License-Identifier: GPL-2.0-or-later
/* A measurement into a PCR as systemd makes it (measure.h): the banks
 * it would choose, the digest in each bank's hash from the kernel
 * (core/khash.c), one TPM2_PCR_Extend for all of them, and the record
 * systemd's tools read back from /run/log/systemd/tpm2-measure.log. */
#include "init/tpm/measure.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "init/core/khash.h"
#include "init/tpm/tpm2_dev.h"
#include "log.h"

bool tpm2_pcr_unused(const struct tpm2_digest *d)
{
	bool zero = true, ones = true;

	for (size_t i = 0; i < d->len; i++) {
		zero = zero && d->d[i] == 0x00;
		ones = ones && d->d[i] == 0xff;
	}
	return zero || ones;
}

size_t tpm2_choose_banks(const struct tpm2_banks *all, const bool *good, struct tpm2_banks *out)
{
	bool any_good = false;

	for (size_t i = 0; i < all->n; i++)
		any_good = any_good || (tpm2_bank_has24(&all->v[i]) && good[i]);
	out->n = 0;
	for (size_t i = 0; i < all->n; i++)
		if (tpm2_bank_has24(&all->v[i]) && (!any_good || good[i]))
			out->v[out->n++] = all->v[i];
	return out->n;
}

/* s as a JSON string's inside. */
static size_t json_str(char *buf, size_t size, size_t o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			o += (size_t)snprintf(buf + (o < size ? o : size), o < size ? size - o : 0, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(buf + (o < size ? o : size), o < size ? size - o : 0, "\\u%04x", c);
		else
			o += (size_t)snprintf(buf + (o < size ? o : size), o < size ? size - o : 0, "%c", c);
	}
	return o;
}

#define ADD(...) (o += (size_t)snprintf(buf + (o < size ? o : size), o < size ? size - o : 0, __VA_ARGS__))

int tpm2_log_record(char *buf, size_t size, const struct tpm2_measure *m,
		    const struct tpm2_digest *d, size_t n, const char *boot_id,
		    unsigned long long usec)
{
	size_t o = 0;

	ADD("\x1e{\"pcr\":%u,\"digests\":[", m->pcr);
	for (size_t i = 0; i < n; i++) {
		ADD("%s{\"hashAlg\":\"%s\",\"digest\":\"", i ? "," : "", tpm2_alg_name(d[i].alg));
		for (size_t j = 0; j < d[i].len; j++)
			ADD("%02x", d[i].d[j]);
		ADD("\"}");
	}
	ADD("],\"content_type\":\"systemd\",\"content\":{\"string\":\"");
	o = json_str(buf, size, o, m->data);
	ADD("\",\"bootId\":\"%s\",\"timestamp\":%llu,\"eventType\":\"%s\"}}\n", boot_id, usec, m->event);
	if (o >= size)
		return -ENOSPC;
	return (int)o;
}

/* The kernel's boot id without its dashes, as systemd writes an id128
 * in JSON. */
static void boot_id(const struct sysops *ops, char out[33])
{
	char raw[64];
	int fd = ops->open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC, 0);
	ssize_t n = fd >= 0 ? read(fd, raw, sizeof(raw) - 1) : -1;
	size_t k = 0;

	if (fd >= 0)
		close(fd);
	for (ssize_t i = 0; i < n && k < 32; i++)
		if ((raw[i] >= '0' && raw[i] <= '9') || (raw[i] >= 'a' && raw[i] <= 'f'))
			out[k++] = raw[i];
	if (k != 32)
		k = 0;
	while (k < 32)
		out[k++] = '0';
	out[32] = '\0';
}

/* The record appended to the log, as systemd does (a lock held, a
 * file only root reads). A failure is said, never fatal: the PCR is
 * extended. */
static void log_append(const struct sysops *ops, const struct tpm2_measure *m,
		       const struct tpm2_digest *d, size_t n)
{
	char rec[2048], id[33];
	struct timespec ts = { 0 };
	int fd, len;

	boot_id(ops, id);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	len = tpm2_log_record(rec, sizeof(rec), m, d, n, id,
			      (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000);
	if (len < 0) {
		log_warn("%s: the record of PCR %u's extension is too long", TPM2_MEASURE_LOG, m->pcr);
		return;
	}
	ops->mkdir("/run/log", 0755);
	ops->mkdir("/run/log/systemd", 0755);
	fd = ops->open(TPM2_MEASURE_LOG, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		       0600);
	if (fd < 0) {
		log_warn("cannot open %s: %s", TPM2_MEASURE_LOG, strerror(-fd));
		return;
	}
	flock(fd, LOCK_EX);
	if (write(fd, rec, (size_t)len) != len)
		log_warn("cannot write %s: %s", TPM2_MEASURE_LOG, strerror(errno));
	close(fd);
}

/* The banks to extend: m->banks as given, else systemd's choice. */
static int banks_for(int fd, const struct tpm2_measure *m, struct tpm2_banks *out)
{
	struct tpm2_banks all;
	bool good[TPM2_BANKS_MAX] = { 0 };
	int r;

	if (m->banks)
		return tpm2_parse_banks(m->banks, out);
	if ((r = tpm2_dev_banks(fd, &all)) < 0)
		return r;
	for (size_t i = 0; i < all.n; i++) {
		struct tpm2_digest v;

		if (!tpm2_bank_has24(&all.v[i]))
			continue;
		if ((r = tpm2_dev_pcr_read(fd, all.v[i].alg, m->pcr, &v)) < 0)
			return r;
		good[i] = v.len && !tpm2_pcr_unused(&v);
	}
	if (!tpm2_choose_banks(&all, good, out))
		return err_set_code(-ENOENT, "the TPM has no PCR bank with PCRs 0-23");
	return 0;
}

int tpm2_measure(const struct sysops *ops, const char *dev, const struct tpm2_measure *m)
{
	struct tpm2_banks banks;
	struct tpm2_digest d[TPM2_BANKS_MAX];
	char names[TPM2_BANKS_MAX * 8] = "";
	const char *path = NULL;
	int fd = tpm2_dev_open(ops, dev, &path), r;

	if (fd < 0)
		return fd;
	if ((r = banks_for(fd, m, &banks)) < 0)
		goto out;
	for (size_t i = 0; i < banks.n; i++) {
		const char *alg = tpm2_alg_name(banks.v[i].alg);

		if (!alg) { /* SM3: systemd refuses to measure at all */
			r = err_set_code(-EOPNOTSUPP, "the TPM's PCR bank 0x%04x is not one this init can "
					 "compute", banks.v[i].alg);
			goto out;
		}
		d[i].alg = banks.v[i].alg;
		r = khash_buf(alg, m->key, m->keylen, m->data, strlen(m->data), d[i].d, sizeof(d[i].d));
		if (r < 0)
			goto out;
		if ((size_t)r != tpm2_alg_size(d[i].alg)) {
			r = err_set_code(-EIO, "the kernel's %s gave %d bytes", alg, r);
			goto out;
		}
		d[i].len = (size_t)r;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "", alg);
	}
	if ((r = tpm2_dev_pcr_extend(fd, m->pcr, d, banks.n)) < 0)
		goto out;
	log_info("extended PCR %u with '%s' (banks %s) through %s", m->pcr, m->data, names, path);
	log_append(ops, m, d, banks.n);
out:
	for (size_t i = 0; i < TPM2_BANKS_MAX; i++)
		explicit_bzero(d[i].d, sizeof(d[i].d));
	close(fd);
	return r;
}
