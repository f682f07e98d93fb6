// SPDX-License-Identifier: GPL-2.0-or-later
/* The image's part of resume, fsck and hooks: the checkers the init
 * runs before mounting, the hooks the user adds, and for a hostonly
 * image the resume device, baked into /etc/uniramfs/cmdline as UUID= so
 * it survives a change of device numbers. */
#include "gen/features/early_gen.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/elf/elf.h"
#include "gen/features/fsck_static.h"
#include "gen/host/sysroot.h"
#include "log.h"

static const char *const hook_stages[] = { LAYOUT_HOOK_STAGES };

void early_plan_hostonly(struct early_plan *ep, const struct hostonly *h)
{
	ep->hostonly = true;
	for (size_t i = 0; i < h->fstypes.n; i++)
		strv_push(&ep->fstypes, h->fstypes.v[i]);
	free(ep->resume_dev);
	ep->resume_dev = h->resume_dev ? xstrdup(h->resume_dev) : NULL;
}

void early_plan_free(struct early_plan *ep)
{
	strv_free(&ep->fstypes);
	free(ep->resume_dev);
	memset(ep, 0, sizeof(*ep));
}

/* The directory the tool really lives in, as the image will have it
 * (/sbin may be a link to usr/sbin). */
static char *real_dir(const char *sysroot, const char *path)
{
	char *real = NULL;
	struct stat st;

	if (sysroot_resolve(sysroot, path, NULL, NULL, &real, &st) < 0)
		return NULL;
	*strrchr(real, '/') = '\0';
	return real;
}

/* e2fsck, or its static twin where the distribution ships one of the
 * same release (fsck_static.h), under e2fsck's own name; and the
 * fsck.ext* links beside it, in dir, the directory it really lives in. */
static int add_e2fsck(struct elf_resolver *er, struct image *img, const char *sysroot,
		      const char *path, const char *dir)
{
	static const char *const names[] = { "fsck.ext2", "fsck.ext3", "fsck.ext4" };
	char *found = sysroot_find_tool(sysroot, "e2fsck.static");
	char *sta = found ? fsck_static_for(sysroot, path, found) : NULL;
	int r;

	free(found);
	if (sta) {
		char *src = NULL, *dst = xasprintf("%s/e2fsck", dir);
		struct stat st;

		r = sysroot_path(sysroot, sta, &src, &st);
		if (r == 0)
			r = image_add_file(img, dst, src, 0755, 0);
		free(src);
		free(dst);
		free(sta);
	} else {
		r = elf_add_binary(er, img, path);
	}
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(names); i++) {
		char *link = xasprintf("%s/%s", dir, names[i]);
		if (!image_has(img, link))
			r = image_add_symlink(img, link, "e2fsck");
		free(link);
	}
	return r;
}

static int add_checker(struct elf_resolver *er, struct image *img, const char *sysroot,
		       const char *tool, bool must)
{
	char *path = sysroot_find_tool(sysroot, tool), *dir;
	int r;

	if (!path) {
		if (must)
			log_warn("no %s on %s: the image cannot check the root before mounting it",
				 tool, sysroot);
		return 0;
	}
	if (!strcmp(tool, "e2fsck") && (dir = real_dir(sysroot, path))) {
		r = add_e2fsck(er, img, sysroot, path, dir);
		free(dir);
	} else {
		r = elf_add_binary(er, img, path);
	}
	free(path);
	return r;
}

static const char *checker_for(const char *fstype)
{
	if (!strcmp(fstype, "ext2") || !strcmp(fstype, "ext3") || !strcmp(fstype, "ext4"))
		return "e2fsck";
	if (!strcmp(fstype, "vfat") || !strcmp(fstype, "msdos"))
		return "fsck.vfat";
	if (!strcmp(fstype, "f2fs"))
		return "fsck.f2fs";
	return NULL; /* xfs, btrfs: checked by the kernel at mount */
}

int early_add_fsck(struct image *img, const char *sysroot, const struct strv *fstypes)
{
	struct elf_resolver *er = elf_resolver_new(sysroot);
	struct strv tools = { 0 };
	int r = 0;

	if (!fstypes) {
		strv_push(&tools, "e2fsck");
		strv_push(&tools, "fsck.vfat");
		strv_push(&tools, "fsck.f2fs");
	} else {
		for (size_t i = 0; i < fstypes->n; i++) {
			const char *t = checker_for(fstypes->v[i]);
			if (t && !strv_contains(&tools, t))
				strv_push(&tools, t);
		}
	}
	for (size_t i = 0; r == 0 && i < tools.n; i++)
		r = add_checker(er, img, sysroot, tools.v[i], fstypes != NULL);
	strv_free(&tools);
	elf_resolver_free(er);
	return r;
}

int early_check(const struct strv *hooks)
{
	struct image *img = image_new();
	int r = 0;

	/* The same checks as the real additions, before any work is done. */
	for (size_t i = 0; r == 0 && i < hooks->n; i++)
		r = early_add_hook(img, hooks->v[i]);
	image_free(img);
	return r;
}

int early_add_hook(struct image *img, const char *spec)
{
	const char *colon = strchr(spec, ':'), *file, *base;
	char *stage, *dst;
	struct stat st;
	size_t i;
	int r;

	if (!colon || colon == spec || !colon[1])
		return err_set("--add-hook %s: expected STAGE:FILE", spec);
	stage = xstrndup(spec, (size_t)(colon - spec));
	file = colon + 1;
	for (i = 0; i < ARRAY_SIZE(hook_stages); i++)
		if (!strcmp(stage, hook_stages[i]))
			break;
	if (i == ARRAY_SIZE(hook_stages)) {
		err_set("--add-hook %s: unknown stage '%s' (use cmdline, pre-udev, pre-mount, "
			"mount or pre-pivot)", spec, stage);
		free(stage);
		return err_code();
	}
	if (stat(file, &st) < 0) {
		free(stage);
		return err_errno(errno, "--add-hook %s: %s", spec, file);
	}
	if (!S_ISREG(st.st_mode)) {
		free(stage);
		return err_set("--add-hook %s: %s is not a file", spec, file);
	}
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	dst = xasprintf(HOOKS_DIR "/%s/%s", stage, base);
	r = image_add_file(img, dst, file, 0755, 0);
	free(dst);
	free(stage);
	return r;
}

char *early_device_uuid(const char *sysroot, const char *majmin)
{
	char *p = xasprintf("%s/sys/dev/block/%s/uevent", sysroot, majmin), *data = NULL;
	char *name = NULL, *dev, *uuid = NULL;
	blkid_probe pr;
	const char *v;

	if (read_file(p, &data, NULL) < 0) {
		err_set("no block device %s in %s/sys", majmin, sysroot);
		free(p);
		return NULL;
	}
	free(p);
	for (char *line = strtok(data, "\n"); line; line = strtok(NULL, "\n"))
		if (str_has_prefix(line, "DEVNAME="))
			name = line + strlen("DEVNAME=");
	if (!name) {
		err_set("block device %s has no DEVNAME in its uevent", majmin);
		free(data);
		return NULL;
	}
	dev = xasprintf("%s/dev/%s", sysroot, name);
	free(data);
	pr = blkid_new_probe_from_filename(dev);
	if (!pr) {
		err_errno(errno, "cannot probe %s", dev);
		free(dev);
		return NULL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "UUID", &v, NULL) == 0)
		uuid = xasprintf("UUID=%s", v);
	else
		err_set("%s (%s) has no UUID that blkid can see", dev, majmin);
	blkid_free_probe(pr);
	free(dev);
	return uuid;
}

/* Shell-style VAR=value or VAR="value" at the start of a line. */
static char *shell_value(const char *line, const char *var, bool *append)
{
	size_t n = strlen(var);
	const char *v;
	char *out;
	size_t len;

	line += strspn(line, " \t");
	if (strncmp(line, var, n))
		return NULL;
	v = line + n;
	*append = v[0] == '+' && v[1] == '=';
	if (*append)
		v++;
	if (*v != '=')
		return NULL;
	v++;
	len = strcspn(v, "\n");
	while (len && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
		v++;
		len -= 2;
	}
	out = xstrndup(v, len);
	return out;
}

/* initramfs-tools: RESUME= in initramfs.conf, then conf.d/resume. */
static char *itools_resume(const char *sysroot, bool *found, char **from)
{
	static const char *const files[] = { "/etc/initramfs-tools/initramfs.conf",
					     "/etc/initramfs-tools/conf.d/resume" };
	char *spec = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *p = path_join(sysroot, files[i]), *data;
		if (sysroot_read(sysroot, files[i], &data, NULL) == 0) {
			for (char *line = data; line && *line;) {
				char *next = strchr(line, '\n'), *v;
				bool app;
				if (next)
					*next++ = '\0';
				v = shell_value(line, "RESUME", &app);
				if (v) {
					free(spec);
					spec = v;
					*found = true;
					free(*from);
					*from = xstrdup(p);
				}
				line = next;
			}
			free(data);
		} else {
			err_clear(); /* absent, or not a file: nothing said there */
		}
		free(p);
	}
	return spec;
}

static int conf_filter(const struct dirent *d)
{
	return d->d_name[0] != '.' && str_has_suffix(d->d_name, ".conf");
}

/* dracut: a resume= word in kernel_cmdline of dracut.conf(.d). */
static char *dracut_resume(const char *sysroot, char **from)
{
	char *dir = NULL;
	struct stat st;
	struct dirent **ents = NULL;
	int n = sysroot_path(sysroot, "/etc/dracut.conf.d", &dir, &st) == 0 ?
			scandir(dir, &ents, conf_filter, alphasort) : (err_clear(), 0);
	struct strv files = { 0 };
	char *spec = NULL;

	strv_push(&files, "/etc/dracut.conf");
	for (int i = 0; i < n; i++) {
		strv_push_owned(&files, xasprintf("/etc/dracut.conf.d/%s", ents[i]->d_name));
		free(ents[i]);
	}
	free(ents);
	free(dir);
	for (size_t i = 0; i < files.n; i++) {
		char *data;
		if (sysroot_read(sysroot, files.v[i], &data, NULL) < 0) {
			err_clear(); /* absent, or not a file: nothing said there */
			continue;
		}
		for (char *line = data; line && *line;) {
			char *next = strchr(line, '\n'), *v;
			bool app;
			if (next)
				*next++ = '\0';
			v = shell_value(line, "kernel_cmdline", &app);
			for (char *w = v ? strtok(v, " \t") : NULL; w; w = strtok(NULL, " \t")) {
				if (str_has_prefix(w, "resume=")) {
					free(spec);
					spec = xstrdup(w + strlen("resume="));
					free(*from);
					*from = path_join(sysroot, files.v[i]);
				}
			}
			free(v);
			line = next;
		}
		free(data);
	}
	strv_free(&files);
	return spec;
}

/* Where the host shows the device a resume= value names; NULL for a
 * form it has no name for. */
static char *spec_host_path(const char *spec)
{
	static const struct {
		const char *tag, *dir;
	} tags[] = {
		{ "UUID=", "/dev/disk/by-uuid/" },
		{ "LABEL=", "/dev/disk/by-label/" },
		{ "PARTUUID=", "/dev/disk/by-partuuid/" },
		{ "PARTLABEL=", "/dev/disk/by-partlabel/" },
		{ "WWID=", "/dev/disk/by-id/" },
		{ "HWPATH=", "/dev/disk/by-path/" },
	};
	unsigned maj, min;
	char end;

	if (strstr(spec, "/PARTNROFF="))
		return NULL; /* a neighbour of the partition named: no link names it */

	for (size_t i = 0; i < ARRAY_SIZE(tags); i++)
		if (str_has_prefix(spec, tags[i].tag))
			return xasprintf("%s%s", tags[i].dir, spec + strlen(tags[i].tag));
	if (spec[0] == '/')
		return xstrdup(spec);
	if (sscanf(spec, "%u:%u%c", &maj, &min, &end) == 2)
		return xasprintf("/sys/dev/block/%u:%u", maj, min);
	return NULL;
}

/* A resume device taken from a config file is baked in as written; one
 * this host does not have is most likely a stale line, and resuming
 * from it would fail at boot: say so now. */
static void check_resume_spec(const char *sysroot, const char *spec, const char *from)
{
	char *path = spec_host_path(spec), *real = NULL;
	struct stat st;

	if (path && sysroot_resolve(sysroot, path, NULL, NULL, &real, &st) < 0) {
		char *host = path_join(sysroot, path);
		log_warn("resume device %s (from %s) is not on this host: no %s", spec, from, host);
		free(host);
	}
	free(real);
	free(path);
}

char *early_resume_spec(const char *sysroot, const char *resume_dev)
{
	bool found = false;
	char *from = NULL, *spec = itools_resume(sysroot, &found, &from);

	if (found) {
		if (spec && *spec && strcmp(spec, "none") && strcmp(spec, "auto")) {
			check_resume_spec(sysroot, spec, from);
			free(from);
			return spec;
		}
		free(from);
		from = NULL;
		if (!spec || !*spec || !strcmp(spec, "none")) {
			free(spec);
			return NULL;
		}
		free(spec); /* "auto": detect it */
	}
	spec = dracut_resume(sysroot, &from);
	if (spec) {
		check_resume_spec(sysroot, spec, from);
		free(from);
		return spec;
	}
	if (!resume_dev)
		return NULL;
	spec = early_device_uuid(sysroot, resume_dev);
	if (!spec)
		log_warn("not baking the resume device into the image: %s", err_msg());
	return spec;
}

/* Hook scripts start with #!/bin/sh: a busybox in the image is that
 * shell too, as it is the init's rescue shell. */
static int add_sh(struct image *img)
{
	static const char *const bb[] = { "/usr/bin/busybox", "/bin/busybox", "/sbin/busybox",
					  "/usr/sbin/busybox" };

	if (image_has(img, "/bin/sh") || image_has(img, "/usr/bin/sh") || image_has(img, "/bin"))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(bb); i++)
		if (image_has(img, bb[i]))
			return image_add_symlink(img, "/bin/sh", bb[i]);
	return 0;
}

/* Does the command line already say something about resuming? */
static bool has_resume(const char *cmdline)
{
	char *c = xstrdup(cmdline);
	bool found = false;

	for (char *w = strtok(c, " \t"); w && !found; w = strtok(NULL, " \t"))
		found = str_has_prefix(w, "resume=") || !strcmp(w, "noresume");
	free(c);
	return found;
}

int early_plan_add(struct early_plan *ep, struct image *img, const char *sysroot,
		   const struct strv *hooks, const char *user_cmdline)
{
	const char *user = user_cmdline ? user_cmdline : "";
	char *cmdline = ep->kdump ? xasprintf("noresume%s%s", *user ? " " : "", user) : xstrdup(user), *spec;
	int r = ep->kdump ? 0 : early_add_fsck(img, sysroot, ep->hostonly ? &ep->fstypes : NULL);

	for (size_t i = 0; r == 0 && i < hooks->n; i++)
		r = early_add_hook(img, hooks->v[i]);
	if (r == 0)
		r = add_sh(img);
	if (r == 0 && ep->hostonly && !ep->kdump && !has_resume(user) &&
	    (spec = early_resume_spec(sysroot, ep->resume_dev))) {
		free(cmdline);
		/* First: the user's line may end in "-- init args". */
		cmdline = xasprintf("resume=%s%s%s", spec, *user ? " " : "", user);
		log_info("hostonly: resume=%s", spec);
		free(spec);
	}
	if (r == 0 && *cmdline) {
		char *c = xasprintf("%s\n", cmdline);
		r = image_add_data(img, "/etc/uniramfs/cmdline", c, strlen(c), 0644);
		free(c);
	}
	free(cmdline);
	return r;
}
