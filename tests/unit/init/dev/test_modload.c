// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <libkmod.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "fake_ops.h"
#include "log.h"
#include "init/dev/modload.h"
#include "test.h"

#define MODDIR "/lib/modules/6.1.0-test"

static struct strv logged;

static void sink(int level, const char *msg, void *userdata)
{
	(void)userdata;
	strv_push_owned(&logged, xasprintf("<%d>%s", level, msg));
}

static bool logged_has(const char *s)
{
	for (size_t i = 0; i < logged.n; i++)
		if (strstr(logged.v[i], s))
			return true;
	return false;
}

static const char *const kos[] = {
	"kernel/fs/ext4/ext4.ko", "kernel/lib/crc16.ko", "kernel/fs/mbcache.ko",
	"kernel/fs/jbd2/jbd2.ko", "kernel/crypto/crc32c_generic.ko",
	"kernel/arch/x86/crypto/crc32c-intel.ko", "kernel/drivers/block/virtio_blk.ko",
	"kernel/drivers/ata/ahci.ko", "kernel/drivers/ata/libahci.ko",
	"kernel/drivers/ata/libata.ko", "kernel/drivers/usb/storage/usb-storage.ko",
	"kernel/drivers/usb/storage/uas.ko", "kernel/drivers/gpu/drm/nouveau/nouveau.ko",
	"kernel/drivers/scsi/sd_mod.ko", "kernel/drivers/net/ne2k.ko",
};

static struct fake_ops *setup(const char *conf)
{
	struct fake_ops *f = fake_ops_new();
	for (size_t i = 0; i < ARRAY_SIZE(kos); i++) {
		char *p = xasprintf(MODDIR "/%s", kos[i]);
		fake_write(f, p, "");
		free(p);
	}
	fake_write(f, MODDIR "/modules.dep",
		   "kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko kernel/fs/mbcache.ko "
		   "kernel/fs/jbd2/jbd2.ko\n"
		   "kernel/lib/crc16.ko:\n"
		   "kernel/fs/mbcache.ko:\n"
		   "kernel/fs/jbd2/jbd2.ko:\n"
		   "kernel/crypto/crc32c_generic.ko:\n"
		   "kernel/arch/x86/crypto/crc32c-intel.ko:\n"
		   "kernel/drivers/block/virtio_blk.ko:\n"
		   "kernel/drivers/ata/ahci.ko: kernel/drivers/ata/libahci.ko "
		   "kernel/drivers/ata/libata.ko\n"
		   "kernel/drivers/ata/libahci.ko: kernel/drivers/ata/libata.ko\n"
		   "kernel/drivers/ata/libata.ko:\n"
		   "kernel/drivers/usb/storage/usb-storage.ko:\n"
		   "kernel/drivers/usb/storage/uas.ko: kernel/drivers/usb/storage/usb-storage.ko\n"
		   "kernel/drivers/gpu/drm/nouveau/nouveau.ko:\n"
		   "kernel/drivers/scsi/sd_mod.ko:\n"
		   "kernel/drivers/net/ne2k.ko:\n"
		   MODDIR "/extra/abs.ko:\n");
	fake_write(f, MODDIR "/extra/abs.ko", "");
	fake_write(f, MODDIR "/modules.alias",
		   "# Aliases extracted from modules themselves.\n"
		   "alias cpu:type:x86,ven*fam*mod*:feature:*0094* crc32c_intel\n"
		   "alias crypto-crc32c crc32c_intel\n"
		   "alias crypto-crc32c crc32c_generic\n"
		   "alias fs-ext4 ext4\n"
		   "alias virtio:d00000002v* virtio_blk\n"
		   "alias pci:v00008086d00002922sv*sd*bc*sc*i* ahci\n"
		   "alias pci:v*d*sv*sd*bc01sc06i01* ahci\n"
		   "alias pci:v000010ECd0000802[9A]sv*sd*bc*sc*i* ne2k\n"
		   "alias usb:v*p*d*dc*dsc*dp*ic08isc06ip50in* usb_storage\n"
		   "alias usb:v*p*d*dc*dsc*dp*ic08isc06ip62in* uas\n"
		   "alias usb:v*p*d*dc*dsc*dp*ic08isc06ip50in* uas\n"
		   "alias pci:v000010DEd*sv*sd*bc03sc*i* nouveau\n"
		   "alias scsi:t-0x00* sd_mod\n");
	fake_write(f, MODDIR "/modules.softdep",
		   "# Soft dependencies extracted from modules themselves.\n"
		   "softdep ext4 pre: crypto-crc32c\n"
		   "softdep jbd2 pre: crypto-crc32c\n"
		   "softdep cifs gcm\n");
	fake_write(f, MODDIR "/modules.builtin", "kernel/drivers/block/loop.ko\n");
	/* NUL-separated records, as the kernel writes them */
	char *real = fake_path(f, MODDIR "/modules.builtin.modinfo");
	FILE *fp = fopen(real, "w");
	fwrite("loop.parmN=max_loop\0loop.alias=devname:loop-control\0", 1, 52, fp);
	fclose(fp);
	free(real);
	if (conf)
		fake_write(f, "/etc/modprobe.d/test.conf", conf);
	strv_free(&logged);
	log_init("test", LOG_DEBUG);
	log_set_sink(sink, NULL);
	return f;
}

static void teardown(struct fake_ops *f, struct modload *m)
{
	if (test_cur_failed) {
		fake_log_dump(f);
		for (size_t i = 0; i < logged.n; i++)
			printf("#   log: %s\n", logged.v[i]);
	}
	modload_free(m);
	fake_ops_free(f);
	strv_free(&logged);
	log_set_sink(NULL, NULL);
}

/* The finit_module lines, in order, as one string. */
static char *loads(struct fake_ops *f)
{
	struct buf b = { 0 };
	buf_append(&b, "", 0);
	for (size_t i = 0; i < f->log.n; i++) {
		const char *l = f->log.v[i];
		if (!str_has_prefix(l, "finit_module "))
			continue;
		size_t n = strcspn(l + 13, " ");
		buf_printf(&b, "%s%.*s", b.len ? " " : "", (int)n, l + 13);
	}
	return b.p;
}

#define CHECK_LOADS(f, expect)                                                               \
	do {                                                                                 \
		char *got_ = loads(f);                                                       \
		CHECK_STR(got_, expect);                                                     \
		free(got_);                                                                  \
	} while (0)

static void test_alias_glob(void)
{
	struct fake_ops *f = setup(NULL);
	struct modload *m = modload_new(&f->ops, MODDIR);

	/* exact, '-' as '_' */
	CHECK(modload_alias(m, "fs-ext4") == 1);
	CHECK(fake_log_find(f, "finit_module ext4 params=''") >= 0);
	fake_log_clear(f);
	/* '*' */
	CHECK(modload_alias(m, "virtio:d00000002v00001AF4") == 1);
	CHECK_LOADS(f, "virtio_blk");
	CHECK(modload_alias(m, "virtio:d00000003v00001AF4") == 0);
	fake_log_clear(f);
	/* '[...]' class */
	CHECK(modload_alias(m, "pci:v000010ECd0000802Bsv0sd0bc02sc00i00") == 0);
	CHECK(modload_alias(m, "pci:v000010ECd0000802Asv0sd0bc02sc00i00") == 1);
	CHECK_LOADS(f, "ne2k");
	fake_log_clear(f);
	/* two patterns of one module, and two modules for one alias: file order */
	CHECK(modload_alias(m, "pci:v00008086d00002922sv00008086sd00001234bc01sc06i01") == 1);
	CHECK(modload_alias(m, "usb:v0781p5581d0100dc00dsc00dp00ic08isc06ip50in00") == 2);
	CHECK_LOADS(f, "libata libahci ahci usb_storage uas");
	/* a '-' in the modalias is '_' on both sides */
	CHECK(modload_alias(m, "scsi:t-0x00") == 1);
	CHECK(modload_alias(m, "acpi:NOPE:") == 0);
	teardown(f, m);
}

static void test_deps_and_softdeps_order(void)
{
	struct fake_ops *f = setup(NULL);
	struct modload *m = modload_new(&f->ops, MODDIR);

	/* as `modprobe --show-depends ext4` on Debian's 6.1: deps from the
	 * end of the modules.dep line, jbd2's softdep before jbd2 */
	CHECK(modload_name(m, "ext4") == 0);
	CHECK_LOADS(f, "crc32c_intel crc32c_generic jbd2 mbcache crc16 ext4");
	/* each once, whichever way it is asked for */
	CHECK(modload_name(m, "ext4") == 0);
	CHECK(modload_alias(m, "fs-ext4") == 1);
	CHECK(modload_name(m, "crc16") == 0);
	CHECK(fake_log_count(f, "finit_module ") == 6);
	CHECK(logged_has("<7>loaded ext4 in "));
	teardown(f, m);
}

/* A module sysfs says is live (the root's filesystem, loaded by a child
 * while fsck ran) is not read and verified again by finit_module; one
 * still coming or going is. */
static void test_live_in_sysfs_not_loaded_again(void)
{
	struct fake_ops *f = setup(NULL);
	struct modload *m;

	fake_write(f, "/sys/module/jbd2/initstate", "live\n");
	fake_write(f, "/sys/module/ext4/initstate", "live\n");
	fake_write(f, "/sys/module/crc16/initstate", "coming\n");
	m = modload_new(&f->ops, MODDIR);
	CHECK(modload_name(m, "ext4") == 0);
	CHECK_LOADS(f, "crc32c_intel crc32c_generic mbcache crc16");
	CHECK(logged_has("<7>jbd2 was already loaded"));
	CHECK(logged_has("<7>ext4 was already loaded"));
	teardown(f, m);
}

/* The kernel's requests (init/modprobe.c): each module inserted is said
 * at info level by the name asked for; one already in is not. */
static void test_announced_loads(void)
{
	struct fake_ops *f = setup(NULL);
	struct modload *m;

	fake_write(f, "/sys/module/crc32c_intel/initstate", "live\n");
	m = modload_new(&f->ops, MODDIR);
	modload_announce(m, "modprobe crypto-crc32c");
	CHECK(modload_name(m, "crypto-crc32c") == 0);
	CHECK_LOADS(f, "crc32c_generic");
	CHECK(logged_has("<6>modprobe crypto-crc32c: loaded crc32c_generic"));
	CHECK(!logged_has("loaded crc32c_intel"));
	CHECK(modload_name(m, "crypto-nothing") == -ENOENT);
	CHECK_STR(err_msg(), "module crypto-nothing not found in " MODDIR);
	teardown(f, m);
}

/* crc32c_intel's cpu: alias wants SSE4.2 (feature 0094): on a CPU
 * without it, ext4's softdep on crc32c and the kernel's request for
 * crypto-crc32c load only crc32c_generic; on one with it, both, as
 * modprobe does. By its own name or the CPU's modalias it still loads. */
static void test_cpu_alias_matched_first(void)
{
	static const char *const no_sse42 =
		"cpu:type:x86,ven0000fam0006mod0006:feature:,0000,0001,0002,0003,0004,0005,"
		"0006,0007,0008,0009,000B,000C,000D,000E,000F,0010,0011,0013,0017,0018,0019,"
		"001A,002B,0034,003A,003B,003D,0068,006F,0070,0072,0074,0075,0076,0080,0081,"
		"008C,008D,00C0\n";
	struct fake_ops *f = setup(NULL);
	struct modload *m;

	fake_write(f, "/sys/devices/system/cpu/modalias", no_sse42);
	m = modload_new(&f->ops, MODDIR);
	CHECK(modload_name(m, "ext4") == 0);
	CHECK_LOADS(f, "crc32c_generic jbd2 mbcache crc16 ext4");
	CHECK(logged_has("<7>not loading crc32c_intel for crypto-crc32c: none of its cpu: "
			 "aliases matches this CPU"));
	/* still one module matched: the kernel's request is answered */
	CHECK(modload_alias(m, "crypto-crc32c") == 2);
	CHECK(fake_log_count(f, "finit_module crc32c_intel") == 0);
	/* the CPU's own modalias matches no cpu: pattern of it either */
	CHECK(modload_alias(m, "cpu:type:x86,ven0000fam0006mod0006:feature:,0000,0001") == 0);
	/* by name: what was asked for is tried */
	CHECK(modload_name(m, "crc32c_intel") == 0);
	CHECK(fake_log_count(f, "finit_module crc32c_intel") == 1);
	teardown(f, m);

	f = setup(NULL);
	fake_write(f, "/sys/devices/system/cpu/modalias",
		   "cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001,0094,00C0\n");
	m = modload_new(&f->ops, MODDIR);
	CHECK(modload_name(m, "ext4") == 0);
	CHECK_LOADS(f, "crc32c_intel crc32c_generic jbd2 mbcache crc16 ext4");
	teardown(f, m);
}

static void test_softdep_conf_pre_post(void)
{
	struct fake_ops *f = setup("softdep virtio_blk pre: crc16 post: sd-mod mbcache\n"
				   "softdep jbd2 pre: crc16\n");
	struct modload *m = modload_new(&f->ops, MODDIR);

	CHECK(modload_alias(m, "virtio:d00000002v00001AF4") == 1);
	CHECK_LOADS(f, "crc16 virtio_blk sd_mod mbcache");
	fake_log_clear(f);
	/* modprobe.d's softdep replaces modules.softdep's for jbd2 */
	CHECK(modload_name(m, "jbd2") == 0);
	CHECK_LOADS(f, "jbd2");
	teardown(f, m);
}

static void test_options_and_cmdline_params(void)
{
	struct fake_ops *f = setup("# comment\n"
				   "options ext4 foo=1 \\\n  baz=3 # trailing\n"
				   "options usb-storage quirks=0781:5581:u\n");
	struct modload *m = modload_new(&f->ops, MODDIR);

	modload_add_param(m, "ext4", "bar=2");
	modload_add_param(m, "usb_storage", "delay_use=0");
	CHECK(modload_name(m, "ext4") == 0);
	CHECK(fake_log_find(f, "finit_module ext4 params='foo=1 baz=3 bar=2'") >= 0);
	CHECK(fake_log_find(f, "finit_module jbd2 params=''") >= 0);
	CHECK(modload_name(m, "usb-storage") == 0);
	CHECK(fake_log_find(f, "finit_module usb_storage params='quirks=0781:5581:u delay_use=0'")
	      >= 0);
	CHECK(logged_has("<7>loaded ext4 foo=1 baz=3 bar=2 in "));
	teardown(f, m);
}

static void test_blacklist(void)
{
	struct fake_ops *f = setup("blacklist nouveau\n");
	struct modload *m = modload_new(&f->ops, MODDIR);

	/* modprobe.d blacklist: not by alias, but by name */
	CHECK(modload_alias(m, "pci:v000010DEd00001234sv0sd0bc03sc00i00") == 1);
	CHECK(fake_log_count(f, "finit_module ") == 0);
	CHECK(logged_has("<6>not loading nouveau for pci:v000010DEd00001234sv0sd0bc03sc00i00: "
			 "blacklisted"));
	CHECK(modload_name(m, "nouveau") == 0);
	CHECK_LOADS(f, "nouveau");
	fake_log_clear(f);

	/* command line blacklist: not by alias and not by name, but as a dep */
	modload_blacklist(m, "libata");
	modload_blacklist(m, "uas");
	CHECK(modload_alias(m, "usb:v0781p5581d0100dc00dsc00dp00ic08isc06ip50in00") == 2);
	CHECK(modload_name(m, "uas") == 0);
	CHECK(logged_has("<6>not loading uas: blacklisted on the command line"));
	CHECK(modload_name(m, "ahci") == 0);
	CHECK_LOADS(f, "usb_storage libata libahci ahci");
	teardown(f, m);
}

static void test_failing_module_logged_rest_loaded(void)
{
	struct fake_ops *f = setup(NULL);
	fake_fail(f, "finit_module", "mbcache", EINVAL);
	fake_fail(f, "finit_module", "crc16", EEXIST);
	fake_fail(f, "open", MODDIR "/kernel/fs/jbd2/jbd2.ko", ENOENT);
	struct modload *m = modload_new(&f->ops, MODDIR);

	CHECK(modload_name(m, "ext4") == 0);
	CHECK_LOADS(f, "crc32c_intel crc32c_generic mbcache crc16 ext4");
	CHECK(logged_has("<4>failed to load mbcache: Invalid argument"));
	CHECK(logged_has("<4>failed to load jbd2: " MODDIR
			 "/kernel/fs/jbd2/jbd2.ko: No such file or directory"));
	CHECK(!logged_has("failed to load crc16"));
	CHECK(logged_has("<7>crc16 was already loaded"));
	/* the module asked for by name failing is an error for the caller */
	fake_fail(f, "finit_module", "sd_mod", ENOEXEC);
	CHECK(modload_name(m, "sd_mod") == -ENOEXEC);
	CHECK_STR(err_msg(), "failed to load sd_mod: Exec format error");
	/* finit_module's -EEXIST is loaded, for the caller too */
	fake_fail(f, "finit_module", "nouveau", EEXIST);
	CHECK(modload_name(m, "nouveau") == 0);
	CHECK(logged_has("<7>nouveau was already loaded"));
	/* a failed open's code comes up as it is */
	fake_fail(f, "open", MODDIR "/kernel/drivers/net/ne2k.ko", EACCES);
	CHECK(modload_name(m, "ne2k") == -EACCES);
	CHECK_STR(err_msg(), "failed to load ne2k: " MODDIR "/kernel/drivers/net/ne2k.ko: Permission denied");
	teardown(f, m);
}

static void test_builtin_missing_and_proc_modules(void)
{
	struct fake_ops *f = setup(NULL);
	fake_write(f, "/proc/modules", "crc16 16384 1 ext4, Live 0x0000000000000000\n");
	struct modload *m = modload_new(&f->ops, MODDIR);

	CHECK(modload_name(m, "loop") == 0);
	CHECK(modload_alias(m, "devname:loop-control") == 1);
	CHECK(modload_name(m, "nonexistent") == -ENOENT);
	CHECK_STR(err_msg(), "module nonexistent not found in " MODDIR);
	CHECK(modload_name(m, "ext4") == 0);
	CHECK_LOADS(f, "crc32c_intel crc32c_generic jbd2 mbcache ext4");
	/* an absolute path in modules.dep is used as it is */
	CHECK(modload_name(m, "abs") == 0);
	CHECK(fake_log_find(f, "open " MODDIR "/extra/abs.ko") >= 0);
	teardown(f, m);
}

static void test_missing_index(void)
{
	struct fake_ops *f = fake_ops_new();
	strv_free(&logged);
	log_set_sink(sink, NULL);
	struct modload *m = modload_new(&f->ops, MODDIR);
	CHECK(logged_has("<4>" MODDIR "/modules.dep is missing: no module can be loaded"));
	CHECK(modload_alias(m, "pci:v00008086d00002922sv0sd0bc01sc06i01") == 0);
	CHECK(modload_name(m, "ext4") < 0);
	teardown(f, m);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void collect_modaliases(const char *dir, struct strv *out, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d || depth > 40) {
		if (d)
			closedir(d);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = path_join(dir, de->d_name);
		if (de->d_type == DT_DIR) {
			collect_modaliases(p, out, depth + 1);
		} else if (strcmp(de->d_name, "modalias") == 0) {
			char *line;
			if (read_line(p, &line) == 0)
				strv_push_owned(out, line);
		}
		free(p);
	}
	closedir(d);
}

/* Our resolution against libkmod's for the installed kernel's complete
 * modules.alias and every modalias on this machine plus some of the
 * aliases themselves; prints how long the index and the lookups take. */
static void test_against_libkmod_installed_kernel(void)
{
	DIR *d = opendir("/lib/modules");
	struct dirent *de;
	char *kdir = NULL;
	while (d && (de = readdir(d))) {
		char *p = xasprintf("/lib/modules/%s/modules.alias", de->d_name);
		if (de->d_name[0] != '.' && access(p, R_OK) == 0 && !kdir)
			kdir = xasprintf("/lib/modules/%s", de->d_name);
		free(p);
	}
	if (d)
		closedir(d);
	if (!kdir)
		SKIP("no installed kernel with modules.alias");

	struct fake_ops *f = fake_ops_new();
	fake_symlink(f, kdir, kdir); /* the image's moddir is the host's */
	struct strv q = { 0 };
	collect_modaliases("/sys/devices", &q, 0);
	strv_push(&q, "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00");
	strv_push(&q, "virtio:d00000002v00001AF4");
	strv_push(&q, "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01");
	strv_push(&q, "usb:v0781p5581d0100dc00dsc00dp00ic08isc06ip50in00");
	strv_push(&q, "scsi:t-0x00");
	strv_push(&q, "fs-ext4");
	strv_push(&q, "crypto-crc32c");
	strv_push(&q, "input:b0011v0001p0001eAB41-e0,1,4,11,14,k71,72,73,ramlsfw");
	strv_push(&q, "acpi:PNP0A08:PNP0A03:");

	log_set_level(LOG_INFO);
	double t0 = now_ms();
	struct modload *m = modload_new(&f->ops, kdir);
	double t1 = now_ms();

	const char *nocfg[] = { NULL };
	struct kmod_ctx *ctx = kmod_new(kdir, nocfg);
	int total = 0;
	double ours = 0;
	fake_fail(f, "finit_module", "*", EEXIST);
	for (size_t i = 0; i < q.n; i++) {
		struct kmod_list *list = NULL, *l;
		struct strv names = { 0 };
		/* libkmod lists a module once per matching pattern */
		if (kmod_module_new_from_lookup(ctx, q.v[i], &list) == 0) {
			kmod_list_foreach(l, list) {
				struct kmod_module *km = kmod_module_get_module(l);
				strv_push(&names, kmod_module_get_name(km));
				kmod_module_unref(km);
			}
			kmod_module_unref_list(list);
		}
		strv_sort_uniq(&names);
		int want = (int)names.n;
		strv_free(&names);
		double a = now_ms();
		int got = modload_alias(m, q.v[i]);
		ours += now_ms() - a;
		if (got != want)
			printf("# %s: ours %d, libkmod %d\n", q.v[i], got, want);
		CHECK(got == want);
		total += got;
	}
	printf("# %s: index %.1f ms; %zu lookups (%d modules) %.2f ms\n", kdir, t1 - t0, q.n,
	       total, ours);
	CHECK(total > 0);
	kmod_unref(ctx);
	strv_free(&q);
	free(kdir);
	modload_free(m);
	fake_ops_free(f);
}

static struct strv kmod_order;

static void print_action(struct kmod_module *mod, bool install, const char *options)
{
	(void)install;
	(void)options;
	strv_push(&kmod_order, kmod_module_get_name(mod));
}

static bool multiple_softdep_lines(const char *kdir, const char *name)
{
	char *p = xasprintf("%s/modules.softdep", kdir), *data, *key = xasprintf("\nsoftdep %s ", name);
	int n = 0;
	if (read_file(p, &data, NULL) == 0) {
		for (char *s = data; (s = strstr(s, key)); s++)
			n++;
		free(data);
	}
	free(p);
	free(key);
	return n > 1;
}

/* Load order for whole stacks, against libkmod's dry run of modprobe. */
static void test_order_against_libkmod(void)
{
	static const char *const names[] = { "ext4", "btrfs", "xfs", "virtio_blk", "ahci",
					      "nvme", "uas", "dm_crypt", "raid456", "vfat" };
	DIR *d = opendir("/lib/modules");
	struct dirent *de;
	char *kdir = NULL;
	while (d && (de = readdir(d))) {
		char *p = xasprintf("/lib/modules/%s/modules.dep", de->d_name);
		if (de->d_name[0] != '.' && access(p, R_OK) == 0 && !kdir)
			kdir = xasprintf("/lib/modules/%s", de->d_name);
		free(p);
	}
	if (d)
		closedir(d);
	if (!kdir)
		SKIP("no installed kernel with modules.dep");

	const char *nocfg[] = { NULL };
	struct kmod_ctx *ctx = kmod_new(kdir, nocfg);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct fake_ops *f = fake_ops_new();
		fake_symlink(f, kdir, kdir);
		struct modload *m = modload_new(&f->ops, kdir);
		struct kmod_module *mod;
		struct buf want = { 0 };

		buf_append(&want, "", 0);
		if (kmod_module_new_from_name(ctx, names[i], &mod) < 0)
			continue;
		strv_free(&kmod_order);
		kmod_module_probe_insert_module(mod, KMOD_PROBE_DRY_RUN | KMOD_PROBE_IGNORE_LOADED,
						NULL, NULL, NULL, print_action);
		kmod_module_unref(mod);
		/* a dry run lists a module again for each path to it */
		struct strv seen = { 0 };
		for (size_t j = 0; j < kmod_order.n; j++) {
			if (strv_contains(&seen, kmod_order.v[j]))
				continue;
			strv_push(&seen, kmod_order.v[j]);
			buf_printf(&want, "%s%s", want.len ? " " : "", kmod_order.v[j]);
		}
		CHECK(modload_name(m, names[i]) == 0);
		char *got = loads(f);
		/* kmod 30 takes only the first "softdep M" line of
		 * modules.softdep; we take them all (btrfs has four: without
		 * modprobe in the image, a missing xxhash64 cannot be
		 * requested later). Only then may ours have more. */
		if (multiple_softdep_lines(kdir, names[i])) {
			struct strv ours = { 0 };
			struct buf common = { 0 };
			buf_append(&common, "", 0);
			strv_split(&ours, got, " ");
			for (size_t j = 0; j < ours.n; j++)
				if (strv_contains(&seen, ours.v[j]))
					buf_printf(&common, "%s%s", common.len ? " " : "", ours.v[j]);
			printf("# %s: ours %s\n", names[i], got);
			CHECK_STR(common.p, want.p);
			CHECK(ours.n > seen.n);
			strv_free(&ours);
			buf_free(&common);
		} else {
			if (strcmp(got, want.p) != 0)
				printf("# %s:\n#   ours:    %s\n#   libkmod: %s\n", names[i], got,
				       want.p);
			CHECK_STR(got, want.p);
		}
		strv_free(&seen);
		free(got);
		buf_free(&want);
		modload_free(m);
		fake_ops_free(f);
	}
	strv_free(&kmod_order);
	kmod_unref(ctx);
	free(kdir);
}

int main(void)
{
	RUN(test_alias_glob);
	RUN(test_deps_and_softdeps_order);
	RUN(test_live_in_sysfs_not_loaded_again);
	RUN(test_announced_loads);
	RUN(test_cpu_alias_matched_first);
	RUN(test_softdep_conf_pre_post);
	RUN(test_options_and_cmdline_params);
	RUN(test_blacklist);
	RUN(test_failing_module_logged_rest_loaded);
	RUN(test_builtin_missing_and_proc_modules);
	RUN(test_missing_index);
	RUN(test_against_libkmod_installed_kernel);
	RUN(test_order_against_libkmod);
	return test_done();
}
