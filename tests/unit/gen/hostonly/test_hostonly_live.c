// SPDX-License-Identifier: GPL-2.0-or-later
/* hostonly_detect on a live root (src/gen/hostonly/hostonly_live.c),
 * over fake /proc + /sys trees (tests/unit/fixtures/hostonly/live-*, made
 * by make-live-fixtures.sh): the medium's drivers and filesystem packed,
 * found where the booting initramfs mounted it or, let go by rd.live.ram
 * or toram, where the host's command line names it; the NICs for a
 * downloaded image; and a medium nothing names, or a name that would
 * climb out of /dev/disk, refused with what was looked for. */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/hostonly/hostonly.h"
#include "log.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

/* Fedora's ISO on a SATA CD-ROM: sr_mod and AHCI, iso9660 first (the
 * record names the medium), loop, squashfs and overlay; no NIC. */
static void test_cdrom(void)
{
	char *root = hostonly_fixture("live-cdrom");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "11:0");
	CHECK_STR(strv_joined(&h.fstypes), "iso9660,squashfs,overlay");
	CHECK_STR(strv_joined(&h.modules), "ahci,loop,sr_mod");
	CHECK_STR(strv_joined(&h.modaliases),
		  "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01,scsi:t-0x05");
	CHECK(h.net.kind == NULL);
	hostonly_free(&h);
	free(root);
}

/* rd.live.ram let the stick go: root="live:LABEL=My Stick" through
 * /dev/disk/by-label/My\x20Stick (udev's encoding), vfat from udev's
 * record; usb-storage, the SCSI disk and the xHCI controller. */
static void test_usb_copied_to_ram(void)
{
	char *root = hostonly_fixture("live-usb-ram");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "8:17");
	CHECK_STR(strv_joined(&h.fstypes), "vfat,squashfs,overlay");
	CHECK_STR(strv_joined(&h.modules), "loop,sd_mod,usb_storage,xhci_pci");
	CHECK(strv_contains(&h.modaliases, "usb:v0781p5581d0100dc00dsc00dp00ic08isc06ip50in00"));
	CHECK(!strv_contains(&h.modules, "virtio_net"));
	hostonly_free(&h);
	free(root);
}

/* boot=live fetch=http://...: no medium, every NIC's drivers. */
static void test_net(void)
{
	char *root = hostonly_fixture("live-net");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK(h.root_dev == NULL);
	CHECK_STR(strv_joined(&h.fstypes), "squashfs,overlay");
	CHECK_STR(strv_joined(&h.modules), "loop,virtio_net,virtio_pci");
	hostonly_free(&h);
	free(root);
}

static void test_medium_named_nowhere(void)
{
	char *root = hostonly_fixture("live-nomedium");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	CHECK_STR(err_msg(), "the root is a live image (boot=live), but its medium is mounted at "
		  "none of /run/initramfs/live, /run/live/medium and the command line names none "
		  "(root=live:SPEC, live-media=): hostonly cannot tell which disk to pack the "
		  "drivers of; build a generic image");
	free(root);
}

/* A label with '/' is encoded as udev does (\x2f): it stays one name in
 * /dev/disk/by-label, never a path up to the sysroot's /etc. */
static void test_label_climbing_out(void)
{
	char *root = hostonly_fixture("live-hostile"), *want;
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	want = xasprintf("the root is a live image (root=live:LABEL=../../../etc), but its medium "
			 "is mounted at none of /run/initramfs/live, /run/live/medium, and "
			 "/dev/disk/by-label/..\\x2f..\\x2f..\\x2fetc is not found: cannot find block "
			 "device /dev/disk/by-label/..\\x2f..\\x2f..\\x2fetc: no "
			 "%s/dev/disk/by-label/..\\x2f..\\x2f..\\x2fetc", root);
	CHECK_STR(err_msg(), want);
	free(want);
	free(root);
}

/* An overlay root the host's line does not call live is still refused
 * as before: no medium to look for. */
static void test_overlay_not_live(void)
{
	char *root = hostonly_fixture("overlay");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	CHECK_STR(err_msg(), "the root filesystem is overlay on \"overlay\", not on a block device");
	free(root);
}

int main(void)
{
	log_init("test", LOG_ERR);
	RUN(test_cdrom);
	RUN(test_usb_copied_to_ram);
	RUN(test_net);
	RUN(test_medium_named_nowhere);
	RUN(test_label_climbing_out);
	RUN(test_overlay_not_live);
	return test_done();
}
