// SPDX-License-Identifier: GPL-2.0-or-later
/* What the init leaves for the root's udev and systemd-cryptsetup: the
 * udev database entries of its dm devices (stages/udevdb.c) and the
 * root's crypttab names on its LUKS mappings (stages/cryptnames.c),
 * against fake sysfs trees. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"
#include "stack_helpers.h"
#include "test.h"

#define U1 "0f5c1e3a-7b2d-4c8e-9a6f-1d2e3f4a5b6c"
#define U2 "a1b2c3d4-e5f6-4711-8899-aabbccddeeff"
#define DBENTRY "E:DM_UDEV_PRIMARY_SOURCE_FLAG=1\nE:DM_UDEV_RULES_VSN=2\n"

static const struct initops no_xops = { .reboot = fake_reboot };

static struct fake_ops *setup(struct init *in)
{
	struct fake_ops *f = fake_ops_new();

	stack_init_start(in, f, "root=/dev/mapper/x", &no_xops);
	return f;
}

static void finish(struct fake_ops *f, struct init *in)
{
	stack_init_finish(f, in, test_cur_failed);
}

/* A device the registry knows, as probed: name, uuid, dm name. */
static void known(struct init *in, const char *name, const char *type, const char *uuid,
		  const char *dmname)
{
	struct registry *r = &in->devs;

	ARRAY_GROW(r->v, r->cap, r->n + 1);
	struct blockdev *bd = &r->v[r->n++];
	memset(bd, 0, sizeof(*bd));
	bd->name = xstrdup(name);
	bd->devnode = xasprintf("/dev/%s", name);
	bd->type = type ? xstrdup(type) : NULL;
	bd->uuid = uuid ? xstrdup(uuid) : NULL;
	bd->dmname = dmname ? xstrdup(dmname) : NULL;
}

/* sysfs of a dm device: its number, dm uuid and the one it sits on */
static void sys_dm(struct fake_ops *f, const char *name, const char *devno, const char *dmuuid,
		   const char *slave)
{
	char *p = xasprintf("/sys/class/block/%s/dev", name);
	fake_write(f, p, devno);
	free(p);
	p = xasprintf("/sys/class/block/%s/dm/uuid", name);
	fake_write(f, p, dmuuid);
	free(p);
	p = xasprintf("/sys/class/block/%s/slaves/%s", name, slave);
	fake_mkdir(f, p);
	free(p);
}

/* Every dm device gets the two properties 10-dm.rules imports; an
 * entry already there (udevd run by a hook) is kept, and so is
 * anything that is not dm. */
static void test_udev_database_for_dm_devices(void)
{
	struct init in;
	struct fake_ops *f = setup(&in);
	char *s;

	sys_dm(f, "dm-0", "253:0\n", "CRYPT-LUKS2-x-cr", "vda2");
	sys_dm(f, "dm-1", "253:1\n", "LVM-abc", "dm-0");
	fake_write(f, "/sys/class/block/vda2/dev", "254:2\n");
	fake_write(f, "/run/udev/data/b253:1", "E:MINE=1\n");
	CHECK(udevdb_write(in.ops) == 1);
	CHECK((s = fake_read(f, "/run/udev/data/b253:0")) && !strcmp(s, DBENTRY));
	free(s);
	CHECK((s = fake_read(f, "/run/udev/data/b253:1")) && !strcmp(s, "E:MINE=1\n"));
	free(s);
	CHECK(!(s = fake_read(f, "/run/udev/data/b254:2")));
	finish(f, &in);
}

/* A link already at the entry's name is never followed. */
static void test_udev_database_never_through_a_link(void)
{
	struct init in;
	struct fake_ops *f = setup(&in);
	char *s;

	sys_dm(f, "dm-0", "253:0\n", "CRYPT-LUKS2-x-cr", "vda2");
	fake_write(f, "/etc/victim", "keep\n");
	fake_symlink(f, "../../../etc/victim", "/run/udev/data/b253:0");
	CHECK(udevdb_write(in.ops) == 0);
	CHECK((s = fake_read(f, "/etc/victim")) && !strcmp(s, "keep\n"));
	free(s);
	finish(f, &in);
}

/* No dm device: nothing is made, not even /run/udev. */
static void test_udev_database_nothing_without_dm(void)
{
	struct init in;
	struct fake_ops *f = setup(&in);

	fake_write(f, "/sys/class/block/vda/dev", "254:0\n");
	CHECK(udevdb_write(in.ops) == 0);
	CHECK(fake_log_count(f, "mkdir /run/udev") == 0);
	finish(f, &in);
}

/* rd.luks.uuid= opened luks-U1; the root's crypttab calls that device
 * cr_root (by UUID=): renamed, and /dev/mapper follows. cr_data is
 * already right, and an LVM device is no LUKS mapping. */
static void test_crypttab_name_wins(void)
{
	struct init in;
	struct fake_ops *f = setup(&in);
	char *l;

	fake_write(f, "/sysroot/etc/crypttab", "# the installer's\n"
					       "cr_root UUID=" U1 " none luks,discard\n"
					       "cr_data /dev/disk/by-uuid/" U2 " none luks\n");
	fake_write(f, "/dev/mapper/control", "");
	fake_write(f, "/dev/mapper/luks-" U1, "");
	known(&in, "vda2", "crypto_LUKS", U1, NULL);
	known(&in, "vdb", "crypto_LUKS", U2, NULL);
	known(&in, "dm-0", "LVM2_member", "pv", "luks-" U1);
	known(&in, "dm-1", "ext4", "data", "cr_data");
	known(&in, "dm-2", "ext4", "root", "debvg-root");
	sys_dm(f, "dm-0", "253:0\n", "CRYPT-LUKS2-0f5c1e3a7b2d4c8e9a6f1d2e3f4a5b6c-luks-" U1, "vda2");
	sys_dm(f, "dm-1", "253:1\n", "CRYPT-LUKS2-a1b2c3d4e5f647118899aabbccddeeff-cr_data", "vdb");
	sys_dm(f, "dm-2", "253:2\n", "LVM-xyz", "dm-0");
	cryptnames_match_root(&in);
	CHECK(fake_log_count(f, "ioctl DM_DEV_RENAME") == 1);
	CHECK(fake_log_find(f, "ioctl DM_DEV_RENAME luks-" U1 " cr_root") >= 0);
	CHECK((l = fake_readlink(f, "/dev/mapper/cr_root")) && !strcmp(l, "../dm-0"));
	free(l);
	CHECK(fake_log_find(f, "unlink /dev/mapper/luks-" U1) >= 0);
	CHECK(said("<6>renamed /dev/mapper/luks-" U1 " to cr_root, as the root's /etc/crypttab "
		   "names /dev/vda2\n"));
	finish(f, &in);
}

/* A name another device has, or that the kernel refuses, is said and
 * the boot goes on; no crypttab in the root is nothing to do. */
static void test_crypttab_name_that_cannot_be(void)
{
	struct init in;
	struct fake_ops *f = setup(&in);

	fake_write(f, "/sysroot/etc/crypttab", "debvg-root UUID=" U1 " none luks\n"
					       "cr_data UUID=" U2 " none\n");
	fake_write(f, "/dev/mapper/control", "");
	known(&in, "vda2", "crypto_LUKS", U1, NULL);
	known(&in, "vdb", "crypto_LUKS", U2, NULL);
	known(&in, "dm-0", NULL, NULL, "luks-" U1);
	known(&in, "dm-1", NULL, NULL, "debvg-root");
	known(&in, "dm-3", NULL, NULL, "luks-" U2);
	sys_dm(f, "dm-0", "253:0\n", "CRYPT-LUKS2-x-luks-" U1, "vda2");
	sys_dm(f, "dm-3", "253:3\n", "CRYPT-LUKS1-y-luks-" U2, "vdb");
	fake_fail(f, "ioctl", "DM_DEV_RENAME", EBUSY);
	cryptnames_match_root(&in);
	CHECK(said("<4>/dev/vda2 is open as luks-" U1 ", and the root's crypttab calls it "
		   "debvg-root, a name that cannot be used: systemd-cryptsetup@debvg-root will fail\n"));
	CHECK(said("<4>cannot rename luks-" U2 " to cr_data: Device or resource busy; "
		   "systemd-cryptsetup@cr_data will fail\n"));
	finish(f, &in);

	f = setup(&in);
	known(&in, "dm-0", NULL, NULL, "luks-" U1);
	cryptnames_match_root(&in);
	CHECK(fake_log_count(f, "ioctl") == 0);
	CHECK(!said("crypttab"));
	finish(f, &in);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_udev_database_for_dm_devices);
	RUN(test_udev_database_never_through_a_link);
	RUN(test_udev_database_nothing_without_dm);
	RUN(test_crypttab_name_wins);
	RUN(test_crypttab_name_that_cannot_be);
	buf_free(&msgs);
	return test_done();
}
