// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The early microcode segment: an uncompressed cpio the kernel scans
 * before it unpacks the real initramfs (Documentation/arch/x86/
 * microcode.rst). Each vendor gets one file, the concatenation of every
 * blob the distribution ships; the kernel's loader picks the matching
 * patch out of it.
 */
#include "gen/image/microcode.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/host/sysroot.h"
#include "log.h"
#include "util.h"

struct vendor {
	const char *id;       /* /proc/cpuinfo vendor_id */
	const char *dir;      /* under /lib/firmware */
	const char *suffix;   /* blob names end so ("" = every file) */
};

static const struct vendor vendors[] = {
	{ "AuthenticAMD", "amd-ucode", ".bin" },
	{ "GenuineIntel", "intel-ucode", "" },
};

/* The blobs of one vendor, sorted, with their total size. */
struct blobs {
	struct strv paths;
	uint64_t size;
};

/* Byte order, not the locale's: the image must not depend on LANG. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int list_blobs(const char *sysroot, const struct vendor *v, struct blobs *b)
{
	char *in = xasprintf("/lib/firmware/%s", v->dir), *dir = NULL;
	struct dirent **ents = NULL;
	struct stat st;
	int r = sysroot_path(sysroot, in, &dir, &st), n = 0;

	if (r == 0 && (n = scandir(dir, &ents, NULL, by_name)) < 0)
		r = err_errno(errno, "cannot read %s", dir);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (r == 0 && name[0] != '.' && str_has_suffix(name, v->suffix)) {
			char *rel = xasprintf("%s/%s", in, name), *path = NULL;
			r = sysroot_path(sysroot, rel, &path, &st);
			if (r == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
				strv_push_owned(&b->paths, path);
				b->size += (uint64_t)st.st_size;
			} else {
				free(path);
			}
			if (r < 0)
				err_wrap("microcode");
			free(rel);
		}
		free(ents[i]);
	}
	free(ents);
	free(dir);
	free(in);
	if (r == -ENOENT && n == 0)
		r = 0; /* no such vendor directory: no blobs */
	return r;
}

/* Stream the blobs through as one file; a blob that changes size while
 * we copy would leave the header lying, so that is an error. */
static int write_blobs(struct cpio_writer *w, const char *name, const struct blobs *b,
		       uint32_t ino)
{
	struct cpio_entry e = {
		.name = name, .mode = S_IFREG | 0644, .nlink = 1, .size = b->size, .ino = ino,
	};
	char chunk[65536];

	if (cpio_write_begin(w, &e) < 0)
		return err_code();
	for (size_t i = 0; i < b->paths.n; i++) {
		const char *path = b->paths.v[i];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			return err_errno(errno, "cannot open %s", path);
		while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				err_errno(errno, "cannot read %s", path);
				close(fd);
				return err_code();
			}
			if (cpio_write_data(w, chunk, (size_t)n) < 0) {
				close(fd);
				return err_wrap("%s", path);
			}
		}
		close(fd);
	}
	if (cpio_write_end(w) < 0)
		return err_wrap("microcode blobs changed while being copied into %s", name);
	return 0;
}

/* This CPU's vendor, or NULL when /proc/cpuinfo names none we know (not
 * x86, or a vendor without loadable microcode). */
static int cpu_vendor(const char *sysroot, const struct vendor **out)
{
	char *path = xasprintf("%s/proc/cpuinfo", sysroot), *data, *line;
	int r = read_file(path, &data, NULL);

	*out = NULL;
	if (r < 0) {
		err_errno(r, "cannot read %s", path);
		free(path);
		return err_code();
	}
	free(path);
	line = strstr(data, "vendor_id");
	if (line && (line == data || line[-1] == '\n')) {
		char *colon = strchr(line, ':'), *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		for (size_t i = 0; colon && i < ARRAY_SIZE(vendors); i++)
			if (strcmp(str_trim(colon + 1), vendors[i].id) == 0)
				*out = &vendors[i];
	}
	free(data);
	return 0;
}

int microcode_write_early(const char *sysroot, bool hostonly, struct sink *out, bool *written)
{
	static const char *const dirs[] = { "kernel", "kernel/x86", "kernel/x86/microcode" };
	struct blobs blobs[ARRAY_SIZE(vendors)] = { 0 };
	const struct vendor *only = NULL;
	struct cpio_writer *w = NULL;
	char *root = xstrdup(sysroot);
	size_t len = strlen(root);
	bool any = false;
	uint32_t ino = 1;
	int r = 0;

	*written = false;
	while (len > 0 && root[len - 1] == '/')
		root[--len] = '\0';
	if (hostonly) {
		r = cpu_vendor(root, &only);
		if (r == 0 && !only)
			log_info("no x86 CPU vendor with microcode in %s/proc/cpuinfo", root);
		if (r < 0 || !only)
			goto out;
	}
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(vendors); i++) {
		if (!only || only == &vendors[i])
			r = list_blobs(root, &vendors[i], &blobs[i]);
		any |= blobs[i].size > 0;
	}
	if (r < 0 || !any)
		goto out;

	w = cpio_writer_new(out);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(dirs); i++) {
		struct cpio_entry e = {
			.name = dirs[i], .mode = S_IFDIR | 0755, .nlink = 2, .ino = ino++,
		};
		r = cpio_write(w, &e, NULL);
	}
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(vendors); i++) {
		char *name;
		if (!blobs[i].size)
			continue;
		name = xasprintf("kernel/x86/microcode/%s.bin", vendors[i].id);
		r = write_blobs(w, name, &blobs[i], ino++);
		free(name);
	}
	if (r == 0)
		r = cpio_write_trailer(w);
	if (r == 0)
		*written = true;
out:
	cpio_writer_free(w);
	for (size_t i = 0; i < ARRAY_SIZE(vendors); i++)
		strv_free(&blobs[i].paths);
	free(root);
	return r < 0 ? -1 : 0;
}
