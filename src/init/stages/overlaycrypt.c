// SPDX-License-Identifier: GPL-2.0-or-later
/* rd.overlay.crypt=DEVICE (dracut's overlayfs-crypt, TEST-21): what a
 * kiosk or a shared machine writes above its root goes to a disk, not
 * RAM, yet nobody can read it once the machine is off. The device is
 * formatted as a new LUKS2 device at every boot with a key from the
 * kernel's RNG that exists only in this process and cryptsetup's, on a
 * pipe: dracut writes its password to /run/initramfs/overlayfs.passwd,
 * readable by root of the running system for as long as it runs; here
 * nothing keeps it, so even root cannot open the device again. The
 * header is marked (subsystem OVERLAY_CRYPT_SUBSYSTEM, and the LABEL= or
 * UUID= named) so the next boot finds the same device and knows it may
 * format it again; a LUKS device not so marked is someone's encrypted
 * data and is never touched. */
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/overlayupper.h"
#include "log.h"
#include "luks2.h"

#define KEY_BYTES 64

/* The LUKS2 header's subsystem field, "" when it has none or is no
 * LUKS2 header. */
static void subsystem_of(struct init *in, const char *devnode, char out[LUKS2_SUBSYSTEM_MAX])
{
	unsigned char bin[LUKS2_BIN_HDR];
	int fd = in->ops->open(devnode, O_RDONLY | O_CLOEXEC, 0);
	ssize_t got = fd < 0 ? -1 : pread(fd, bin, sizeof(bin), 0);

	if (fd >= 0)
		close(fd);
	if (got < 0 || !luks2_subsystem(bin, (size_t)got, out))
		out[0] = '\0';
}

/* Something built on it (an md array, a dm device, LVM): in use. */
static bool has_holders(struct init *in, const char *name)
{
	char *p = xasprintf("/sys/class/block/%s/holders", name), *real = in->ops->path(p);
	DIR *d = opendir(real);
	struct dirent *de;
	bool any = false;

	while (d && !any && (de = readdir(d)))
		any = de->d_name[0] != '.';
	if (d)
		closedir(d);
	free(p);
	free(real);
	return any;
}

/* Can the device be formatted? NULL, or why not. */
static const char *refused(struct init *in, const struct blockdev *bd)
{
	const struct blockdev *root = root_dev(in);
	char sub[LUKS2_SUBSYSTEM_MAX];

	if (root && (bd == root || (root->disk && !strcmp(bd->name, root->disk))))
		return "it holds the root";
	if (bd->dmname && !strcmp(bd->dmname, OVERLAY_CRYPT_NAME))
		return "it is the mapping itself";
	if (has_holders(in, bd->name))
		return "it is in use (sysfs names its holders)";
	if (bd->type && !strcmp(bd->type, "crypto_LUKS")) {
		subsystem_of(in, bd->devnode, sub);
		if (strcmp(sub, OVERLAY_CRYPT_SUBSYSTEM))
			return "it is a LUKS device uniramfs did not make (left alone)";
	}
	return NULL;
}

/* 8-4-4-4-12 hexadecimal digits: a UUID cryptsetup takes for --uuid */
static bool std_uuid(const char *s)
{
	for (int i = 0; i < 36; i++)
		if (i == 8 || i == 13 || i == 18 || i == 23 ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	return !s[36];
}

/* spec's LABEL= or UUID= for the new header, so the next boot's spec
 * names it again (the other forms name the partition or the disk). */
static void same_name(const char *spec, const char **opt, const char **val)
{
	*opt = *val = NULL;
	if (!strncmp(spec, "LABEL=", 6))
		*opt = "--label", *val = spec + 6;
	else if (!strncmp(spec, "UUID=", 5) && std_uuid(spec + 5))
		*opt = "--uuid", *val = spec + 5;
}

static int make(struct init *in, const struct blockdev *bd, const char *spec, char **devnode)
{
	unsigned char key[KEY_BYTES];
	const char *name_opt, *name;
	const char *format[] = { "cryptsetup", "luksFormat", "--batch-mode", "--type", "luks2",
				 /* the key is random: no slow derivation to guard it */
				 "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000",
				 "--subsystem", OVERLAY_CRYPT_SUBSYSTEM, "--key-file=-", bd->devnode,
				 NULL, NULL, NULL };
	const char *open[] = { "cryptsetup", "open", "--type", "luks2", "--key-file=-", bd->devnode,
			       OVERLAY_CRYPT_NAME, NULL };
	const char *mkfs[] = { "mkfs.ext4", "-q", "-F", "/dev/mapper/" OVERLAY_CRYPT_NAME, NULL };
	ssize_t got = getrandom(key, sizeof(key), 0); /* waits for the RNG to be seeded, once */
	int st, r = 0;

	same_name(spec, &name_opt, &name);
	format[13] = name_opt;
	format[14] = name;

	if (got != (ssize_t)sizeof(key))
		return err_errno(got < 0 ? -errno : -EIO, "cannot get a random key");
	st = tool_run(&in->stack_env, "cryptsetup", (char *const *)format, key, sizeof(key));
	if (st == 0)
		st = tool_run(&in->stack_env, "cryptsetup", (char *const *)open, key, sizeof(key));
	explicit_bzero(key, sizeof(key));
	if (st != 0)
		return st < 0 ? st : err_set("cryptsetup failed on %s (exit status %d)", bd->devnode, st);
	st = tool_run(&in->stack_env, "mkfs.ext4", (char *const *)mkfs, NULL, 0);
	if (st != 0) {
		const char *close_[] = { "cryptsetup", "close", OVERLAY_CRYPT_NAME, NULL };
		r = st < 0 ? st : err_set("mkfs.ext4 failed (exit status %d)", st);
		tool_run(&in->stack_env, "cryptsetup", (char *const *)close_, NULL, 0);
		return r;
	}
	*devnode = xstrdup("/dev/mapper/" OVERLAY_CRYPT_NAME);
	return 0;
}

int overlay_crypt_make(struct init *in, const char *spec, char **devnode)
{
	const struct blockdev *bd = registry_match(&in->devs, spec);
	const char *why;
	char *tool = tool_find(&in->stack_env, "mkfs.ext4");
	bool tools = tool != NULL;
	int r;

	*devnode = NULL;
	free(tool);
	tool = tool_find(&in->stack_env, "cryptsetup");
	tools = tools && tool;
	free(tool);
	if (!bd) {
		log_warn("rd.overlay.crypt=%s: no such device; the upper layer is a tmpfs", spec);
		return 0;
	}
	if (!tools) {
		log_warn("rd.overlay.crypt=%s: the image has no cryptsetup and mkfs.ext4 "
			 "(overlay-tools = yes); the upper layer is a tmpfs", spec);
		return 0;
	}
	if ((why = refused(in, bd))) {
		log_warn("rd.overlay.crypt=%s: not formatting %s: %s; the upper layer is a tmpfs", spec,
			 bd->devnode, why);
		return 0;
	}
	log_warn("rd.overlay.crypt=%s: formatting %s as a new LUKS device with a random key kept "
		 "nowhere: what it held is lost, and what is written above the root is lost at "
		 "power-off", spec, bd->devnode);
	if ((r = make(in, bd, spec, devnode)) < 0) {
		log_warn("rd.overlay.crypt=%s: %s; the upper layer is a tmpfs", spec, err_msg());
		return 0;
	}
	return 1;
}
