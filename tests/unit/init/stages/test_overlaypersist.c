// SPDX-License-Identifier: GPL-2.0-or-later
/* A persistent upper layer's place on its device
 * (src/init/stages/overlaypersist.c) through the overlay stage over the
 * fake system: dracut's dmsquash-live layout for a live root, found or
 * made; the overlayfs module's overlay and ovlwork otherwise, and found
 * on a live medium that has them; a link on the device refused;
 * rd.overlay.reset emptying only the two directories; rd.overlay.readonly
 * putting the layer below a tmpfs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/overlaypersist.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

#define B "/run/overlayfs-backing"
#define MEDIUM_UUID "0b0c0d0e-1111-2222-3333-444455556666"
#define LIVE_UP "LiveOS/overlay-dracut-" MEDIUM_UUID

static const struct initops no_xops = { .reboot = fake_reboot };

/* The live medium vda1 (label dracut) and the overlay's device vda2
 * (label persist); live: a live root on the medium, else vda1 is an
 * ordinary root. */
static struct fake_ops *setup_label(struct init *in, const char *more, bool live,
				   const char *label)
{
	struct fake_ops *f = fake_ops_new();
	char *cmdline = xasprintf("%s rd.overlay=LABEL=persist %s",
				  live ? "root=live:LABEL=dracut rd.live.image" : "root=LABEL=dracut",
				  more);

	stack_init_start(in, f, cmdline, &no_xops);
	free(cmdline);
	fake_mkdir(f, "/run");
	msgs_capture(LOG_INFO);
	stack_device(in, "vda1", "ext4", MEDIUM_UUID, label);
	stack_device(in, "vda2", "ext4", NULL, "persist");
	in->root = xstrdup("vda1");
	return f;
}

static struct fake_ops *setup(struct init *in, const char *more, bool live)
{
	return setup_label(in, more, live, "dracut");
}

static bool is_dir(struct fake_ops *f, const char *p)
{
	char *real = fake_path(f, p);
	struct stat st;
	bool r = lstat(real, &st) == 0 && S_ISDIR(st.st_mode);

	free(real);
	return r;
}

static bool exists(struct fake_ops *f, const char *p)
{
	char *real = fake_path(f, p);
	struct stat st;
	bool r = lstat(real, &st) == 0;

	free(real);
	return r;
}

static int overlay_mount(struct fake_ops *f, const char *lower, const char *up, const char *work)
{
	char *line = xasprintf("mount LiveOS_rootfs /sysroot overlay 0x0 lowerdir=%s,upperdir=%s,"
			       "workdir=%s", lower, up, work);
	int r = fake_log_find(f, line);

	free(line);
	return r;
}

/* The first boot makes dmsquash-live's layout, the next finds it (as
 * dracut would, and as its autooverlay leaves it). */
static void test_live_layout(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "", true);

	CHECK(stage_overlay(&in) == 0);
	CHECK(is_dir(f, B "/" LIVE_UP) && is_dir(f, B "/LiveOS/ovlwork"));
	CHECK(!exists(f, B "/overlay"));
	CHECK(said("<6>rd.overlay: made " LIVE_UP " and LiveOS/ovlwork on " B "\n"));
	CHECK(overlay_mount(f, "/run/rootfsbase", B "/" LIVE_UP, B "/LiveOS/ovlwork") >= 0);
	CHECK(fake_log_find(f, "symlink " B "/" LIVE_UP " /run/overlayfs") >= 0);
	stack_init_finish(f, &in, test_cur_failed);

	f = setup(&in, "rd.live.dir=/images/live", true);
	fake_mkdir(f, B "/images/live/overlay-dracut-" MEDIUM_UUID);
	fake_mkdir(f, B "/images/live/ovlwork");
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<6>rd.overlay: found images/live/overlay-dracut-" MEDIUM_UUID
		   " and images/live/ovlwork on " B "\n"));
	CHECK(overlay_mount(f, "/run/rootfsbase", B "/images/live/overlay-dracut-" MEDIUM_UUID,
			    B "/images/live/ovlwork") >= 0);
	stack_init_finish(f, &in, test_cur_failed);
}

/* overlay and ovlwork: over an ordinary root, and on a live root's
 * device that has them (uniramfs's layout before, dracut's overlayfs
 * module's); a medium whose label cannot be a directory's name. */
static void test_top_layout(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "", false);

	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<6>rd.overlay: made overlay and ovlwork on " B "\n"));
	CHECK(!exists(f, B "/LiveOS"));
	CHECK(overlay_mount(f, "/run/rootfsbase", B "/overlay", B "/ovlwork") >= 0);
	stack_init_finish(f, &in, test_cur_failed);

	f = setup(&in, "", true);
	fake_write(f, B "/overlay/etc/kept", "x");
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<6>rd.overlay: found overlay and ovlwork on " B "\n"));
	CHECK(is_dir(f, B "/ovlwork") && !exists(f, B "/LiveOS"));
	stack_init_finish(f, &in, test_cur_failed);

	f = setup_label(&in, "", true, "a,lowerdir=/");
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay: rd.live.dir \"LiveOS\" or the medium's label \"a,lowerdir=/\" or "
		   "UUID \"" MEDIUM_UUID "\" cannot name a directory: using overlay and ovlwork\n"));
	CHECK(overlay_mount(f, "/run/rootfsbase", B "/overlay", B "/ovlwork") >= 0);
	stack_init_finish(f, &in, test_cur_failed);
}

/* A link on the device (to the initramfs's / here) is never followed:
 * said, and a tmpfs goes above. */
static void test_links_refused(void)
{
	static const char *const links[] = { B "/overlay", B "/LiveOS" };
	static const char *const msgs[] = {
		"<4>rd.overlay: " B "/overlay is not a directory (a link is never followed); the upper "
		"layer is a tmpfs (changes will not persist)\n",
		"<4>rd.overlay: " B "/" LIVE_UP " is not a directory (a link is never followed); the "
		"upper layer is a tmpfs (changes will not persist)\n",
	};

	for (size_t i = 0; i < 2; i++) {
		struct init in;
		struct fake_ops *f = setup(&in, "", i == 1);

		fake_symlink(f, "/", links[i]);
		CHECK(stage_overlay(&in) == 0);
		CHECK(said(msgs[i]));
		CHECK(fake_log_find_prefix(f, "mount LiveOS_rootfs /sysroot overlay 0x0 lowerdir=/run/"
					   "rootfsbase,upperdir=/run/initramfs/overlay/overlayfs,", 0) >= 0);
		stack_init_finish(f, &in, test_cur_failed);
	}
}

/* rd.overlay.reset (and dracut's rd.live.overlay.reset): the two
 * directories are emptied, deep or not; what a link inside points at,
 * and the rest of the device, stay. */
static void test_reset(void)
{
	const char *words[] = { "rd.overlay.reset", "rd.live.overlay.reset=1" };

	for (size_t i = 0; i < 2; i++) {
		struct init in;
		struct fake_ops *f = setup(&in, words[i], true);

		fake_write(f, B "/" LIVE_UP "/etc/marker", "first boot");
		fake_write(f, B "/" LIVE_UP "/.hidden", "x");
		fake_mkdir(f, B "/" LIVE_UP "/a/b/c/d");
		fake_write(f, B "/keep/precious", "stays");
		fake_symlink(f, B "/keep", B "/" LIVE_UP "/a/link");
		fake_mkdir(f, B "/LiveOS/ovlwork/work/#12");
		fake_write(f, B "/LiveOS/squashfs.img", "image");
		CHECK(stage_overlay(&in) == 0);
		CHECK(said("<5>rd.overlay.reset: emptied " B "/" LIVE_UP " and " B
			   "/LiveOS/ovlwork\n"));
		CHECK(is_dir(f, B "/" LIVE_UP) && is_dir(f, B "/LiveOS/ovlwork"));
		CHECK(!exists(f, B "/" LIVE_UP "/etc") && !exists(f, B "/" LIVE_UP "/.hidden"));
		CHECK(!exists(f, B "/" LIVE_UP "/a") && !exists(f, B "/LiveOS/ovlwork/work"));
		CHECK(exists(f, B "/keep/precious") && exists(f, B "/LiveOS/squashfs.img"));
		CHECK(overlay_mount(f, "/run/rootfsbase", B "/" LIVE_UP, B "/LiveOS/ovlwork") >= 0);
		stack_init_finish(f, &in, test_cur_failed);
	}
}

/* rd.overlay.readonly (rd.live.overlay.readonly): the device mounted
 * read-only, its upper a layer between the root and a tmpfs; none on
 * it: said, and a tmpfs alone; with reset: nothing is emptied. */
static void test_readonly(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "rd.overlay.readonly rd.overlay.reset", false);

	fake_write(f, B "/overlay/etc/marker", "kept");
	fake_mkdir(f, B "/ovlwork");
	CHECK(stage_overlay(&in) == 0);
	CHECK(fake_log_find(f, "mount /dev/vda2 " B " ext4 0x401 -") >= 0);
	CHECK(said("<4>rd.overlay.reset: not emptying " B "/overlay: rd.overlay.readonly\n"));
	CHECK(said("<6>rd.overlay.readonly: " B "/overlay is a read-only layer below the tmpfs\n"));
	CHECK(exists(f, B "/overlay/etc/marker"));
	CHECK(overlay_mount(f, B "/overlay:/run/rootfsbase", "/run/initramfs/overlay/overlayfs",
			    "/run/initramfs/overlay/ovlwork") >= 0);
	CHECK(fake_log_find(f, "symlink " B "/overlay /run/overlayfs-r") >= 0);
	stack_init_finish(f, &in, test_cur_failed);

	f = setup(&in, "rd.live.overlay.readonly", true);
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay.readonly: no upper layer on " B " to read; the upper layer is a "
		   "tmpfs\n"));
	CHECK(!exists(f, B "/overlay") && !exists(f, B "/LiveOS"));
	CHECK(overlay_mount(f, "/run/rootfsbase", "/run/initramfs/overlay/overlayfs",
			    "/run/initramfs/overlay/ovlwork") >= 0);
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_names(void)
{
	CHECK(overlay_persist_name_ok("dracut"));
	CHECK(overlay_persist_name_ok(""));
	CHECK(overlay_persist_name_ok("Fedora-WS-Live 40"));
	CHECK(!overlay_persist_name_ok("a/b"));
	CHECK(!overlay_persist_name_ok("a,upperdir=x"));
	CHECK(!overlay_persist_name_ok("a:b"));
	CHECK(!overlay_persist_name_ok("a\\b"));
	CHECK(!overlay_persist_name_ok("a\nb"));
}

int main(void)
{
	RUN(test_live_layout);
	RUN(test_top_layout);
	RUN(test_links_refused);
	RUN(test_reset);
	RUN(test_readonly);
	RUN(test_names);
	return test_done();
}
