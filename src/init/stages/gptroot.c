// SPDX-License-Identifier: GPL-2.0-or-later
/* No root= (or systemd's root=gpt-auto): the root partition found by its
 * type, as the Discoverable Partitions Specification says
 * (dev/gptauto.c chooses). On the disk the firmware booted from when
 * systemd-stub or systemd-boot left LoaderDevicePartUUID in efivarfs,
 * else on the only disk that has one; several compete: a refusal that
 * names them. The choice becomes root= (PARTUUID=, or /dev/mapper/root
 * for a LUKS partition the LUKS layer unlocks under that name), and the
 * root's wait goes on as for any root=. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/gptauto.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"

#define EFI_DIR "/sys/firmware/efi"
#define EFIVARS EFI_DIR "/efivars"
#define LOADER_VAR EFIVARS "/LoaderDevicePartUUID-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"

bool gptroot_wanted(struct init *in)
{
	if (in->opt.root && strcmp(in->opt.root, "gpt-auto"))
		return false;
	if (!in->opt.gpt_auto || !dps_arch())
		return false;
	free(in->opt.root);
	in->opt.root = NULL;
	in->stack.dps = true;
	return true;
}

/* LoaderDevicePartUUID, lowercase, in out: 1, or 0 when the firmware is
 * not UEFI or no boot loader said it. efivarfs is mounted for the read
 * only: the real system mounts its own. */
static int loader_partuuid(struct init *in, char out[37])
{
	char *p = in->ops->path(EFI_DIR);
	bool efi = access(p, F_OK) == 0, mounted = false;
	unsigned char data[128];
	ssize_t n = -1;
	int fd, r;

	free(p);
	if (!efi)
		return 0;
	modload_fs(in->ml, "efivarfs");
	r = in->ops->mount("efivarfs", EFIVARS, "efivarfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
			   NULL);
	if (r < 0 && r != -EBUSY)
		log_warn("cannot mount efivarfs on " EFIVARS ": %s", strerror(-r));
	mounted = r == 0;
	if ((fd = in->ops->open(LOADER_VAR, O_RDONLY | O_CLOEXEC, 0)) >= 0) {
		n = read(fd, data, sizeof(data));
		close(fd);
	}
	if (mounted)
		in->ops->umount(EFIVARS, 0);
	if (n < 0)
		return 0;
	if (dps_loader_uuid(data, (size_t)n, out) < 0) {
		log_warn("LoaderDevicePartUUID in efivarfs is not a UUID: not using it");
		return 0;
	}
	return 1;
}

/* The disk's node ("/dev/sda") from its kernel name. */
static const char *disk_node(const struct init *in, const char *disk)
{
	const struct blockdev *bd = registry_get(&in->devs, disk);

	return bd ? bd->devnode : disk;
}

/* Has every partition sysfs shows of disk ("sda") been probed? */
static bool disk_complete(const struct init *in, const char *disk)
{
	char *p = xasprintf("/sys/class/block/%s", disk), *real = in->ops->path(p);
	DIR *d = opendir(real);
	struct dirent *de;
	bool all = d != NULL;

	while (all && (de = readdir(d))) {
		char *part = xasprintf("%s/%s/partition", real, de->d_name);

		if (de->d_name[0] != '.' && access(part, F_OK) == 0 && !registry_get(&in->devs, de->d_name))
			all = false;
		free(part);
	}
	if (d)
		closedir(d);
	free(p);
	free(real);
	return all;
}

/* The partitions discovery may use, parallel to the registry's order;
 * bds[i] is v[i]'s device. */
static size_t gather(const struct init *in, struct dps_part *v, const struct blockdev **bds)
{
	size_t n = 0;

	for (size_t i = 0; i < in->devs.n; i++) {
		const struct blockdev *bd = &in->devs.v[i];
		enum dps_kind k = dps_kind(bd->parttype);

		if (k == DPS_OTHER || bd->claim != DEV_FREE || !bd->disk)
			continue;
		v[n] = (struct dps_part){ bd->devnode, bd->disk, bd->partno, k, bd->partflags };
		bds[n++] = bd;
	}
	return n;
}

static bool is_luks(const struct blockdev *bd)
{
	return bd->type && !strcmp(bd->type, "crypto_LUKS");
}

/* The device spec root= (or /usr) becomes: a LUKS partition by the name
 * the LUKS layer opens it under. */
static char *spec_of(const struct blockdev *bd, enum dps_kind kind)
{
	if (is_luks(bd))
		return xasprintf("/dev/mapper/%s", dps_mapper_name(kind));
	return bd->partuuid ? xasprintf("PARTUUID=%s", bd->partuuid) : xstrdup(bd->devnode);
}

char *gptroot_usr(struct init *in, bool *ro)
{
	struct dps_part *v = xcalloc(in->devs.n + 1, sizeof(*v));
	const struct blockdev **bds = xcalloc(in->devs.n + 1, sizeof(*bds));
	size_t n = gather(in, v, bds);
	char *spec = NULL;
	int pick = -1;

	if (in->dps_disk && dps_choose(v, n, DPS_USR, in->dps_disk, &pick) == DPS_FOUND) {
		*ro = bds[pick]->partflags & DPS_FLAG_READ_ONLY;
		spec = spec_of(bds[pick], DPS_USR);
		log_info("gpt-auto: the usr partition is %s", bds[pick]->devnode);
	} else if (pick >= 0) {
		log_warn("gpt-auto: %s has the %s usr partition type but the no-auto attribute "
			 "(GPT bit 63): not using it", v[pick].node, dps_arch());
	}
	free(v);
	free(bds);
	return spec;
}

/* The loader's disk, once its partition is there. */
static void find_loader_disk(struct init *in, struct gptroot *st)
{
	for (size_t i = 0; st->have_loader && !st->disk && i < in->devs.n; i++) {
		const struct blockdev *bd = &in->devs.v[i];

		if (bd->partuuid && bd->disk && !strcasecmp(bd->partuuid, st->loader)) {
			st->disk = xstrdup(bd->disk);
			log_info("gpt-auto: the firmware booted from %s (LoaderDevicePartUUID): "
				 "the root is looked for on %s", bd->devnode, disk_node(in, st->disk));
		}
	}
}

/* 1 the root is chosen (in->opt.root set), 0 not yet, -1 refused (said
 * why). final: the wait is over, say what is missing. */
static int decide(struct init *in, struct gptroot *st, bool final)
{
	struct dps_part *v = xcalloc(in->devs.n + 1, sizeof(*v));
	const struct blockdev **bds = xcalloc(in->devs.n + 1, sizeof(*bds));
	size_t n = gather(in, v, bds);
	struct buf list = { 0 };
	int pick = -1, r = 0;
	enum dps_result res = dps_choose(v, n, DPS_ROOT, st->disk, &pick);

	if (res == DPS_FOUND) {
		const struct blockdev *bd = bds[pick];

		in->dps_disk = xstrdup(v[pick].disk);
		in->opt.root = spec_of(bd, DPS_ROOT);
		log_info("gpt-auto: the root partition is %s: root=%s", bd->devnode, in->opt.root);
		if (bd->partflags & DPS_FLAG_READ_ONLY) {
			log_info("gpt-auto: %s has the read-only attribute (GPT bit 60): "
				 "mounting it read-only", bd->devnode);
			in->opt.rw = false;
		}
		r = 1;
	} else if (res == DPS_SEVERAL) {
		for (size_t i = 0; i < n; i++)
			if (v[i].kind == DPS_ROOT && !(v[i].flags & DPS_FLAG_NO_AUTO))
				buf_printf(&list, "%s%s on %s", list.len ? ", " : "", v[i].node,
					   disk_node(in, v[i].disk));
		log_err("no root=, and %s root partitions on several disks: %s; nothing says "
			"which one the firmware booted from (LoaderDevicePartUUID): name it with root=",
			dps_arch(), list.p);
		r = -1;
	} else if (pick >= 0 && !st->said_skip) {
		log_warn("gpt-auto: %s has the %s root partition type but the no-auto attribute "
			 "(GPT bit 63): not using it", v[pick].node, dps_arch());
		st->said_skip = true;
	}
	if (res == DPS_NONE && final) {
		if (pick >= 0)
			buf_printf(&list, ": %s has it, but with the no-auto attribute (GPT bit 63)",
				   v[pick].node);
		if (st->disk)
			log_err("no root=, and no partition of the %s root type %s on the boot disk "
				"%s%s", dps_arch(), dps_type(DPS_ROOT), disk_node(in, st->disk),
				list.len ? list.p : "");
		else
			log_err("no root=, and no partition of the %s root type %s appeared within "
				"%ld seconds%s", dps_arch(), dps_type(DPS_ROOT), in->opt.timeout,
				list.len ? list.p : "");
		r = -1;
	}
	buf_free(&list);
	free(v);
	free(bds);
	return r;
}

/* The boot disk's partitions are all there (or its partition came):
 * time to look again. */
bool gptroot_ready(const struct init *in, const void *arg)
{
	const struct gptroot *st = arg;

	if (st->disk)
		return disk_complete(in, st->disk);
	for (size_t i = 0; st->have_loader && i < in->devs.n; i++)
		if (in->devs.v[i].partuuid && !strcasecmp(in->devs.v[i].partuuid, st->loader))
			return true;
	return false;
}

void gptroot_begin(struct init *in, struct gptroot *st)
{
	memset(st, 0, sizeof(*st));
	st->have_loader = loader_partuuid(in, st->loader) > 0;
	log_info("no root=: looking for the root partition by its type (Discoverable Partitions "
		 "Specification: %s root %s)", dps_arch(), dps_type(DPS_ROOT));
	if (st->have_loader)
		log_info("gpt-auto: LoaderDevicePartUUID is %s", st->loader);
}

int gptroot_step(struct init *in, struct gptroot *st, long long end, long long last,
		 long long *until)
{
	long long now = now_ms(in);
	long long quiet = in->opt.timeout < 0 || in->opt.timeout * 500 > ROOT_QUIET_MS
				  ? ROOT_QUIET_MS : in->opt.timeout * 500;
	/* past rd.timeout, on while devices still appear, as for a root=
	 * (rootwait.c wait_while_appearing) */
	long long hard = end < 0 ? -1 : end + in->opt.timeout * 1000 * ROOT_EXTEND_TIMES;
	bool over = end >= 0 && now >= end && (now >= hard || now - last >= quiet);
	bool quiet_now = false;
	int r = 0;

	*until = end >= 0 && now >= end ? (last + quiet < hard ? last + quiet : hard) : end;
	find_loader_disk(in, st);
	if (st->have_loader && !st->disk && over) {
		log_err("no root=, and the disk the firmware booted from (LoaderDevicePartUUID "
			"PARTUUID=%s) did not appear within %ld seconds", st->loader, in->opt.timeout);
		return -1;
	}
	if (!st->have_loader) {
		quiet_now = !in->drivers.n && now - last >= quiet;
		if (!quiet_now && (*until < 0 || last + quiet < *until))
			*until = last + quiet;
		if (*until >= 0 && *until <= now)
			*until = now + 100; /* quiet but for the drivers still loading */
	}
	/* the boot disk complete (nothing more comes on it), or all quiet
	 * (decided once one disk has a root, else waited on) */
	if ((st->disk && disk_complete(in, st->disk)) || quiet_now || over)
		r = decide(in, st, over || st->disk);
	/* root_seen heard of the devices before root= was known */
	for (size_t i = 0; r > 0 && i < in->devs.n && !in->root; i++)
		if (in->devs.v[i].claim == DEV_FREE)
			root_seen(in, DEV_ADDED, &in->devs.v[i]);
	return r;
}

void gptroot_free(struct gptroot *st)
{
	free(st->disk);
	st->disk = NULL;
}
