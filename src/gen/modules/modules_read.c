// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading a chosen module's file once. A compressed module (.ko.xz,
 * .ko.zst, .ko.gz) is decompressed here and nowhere else: libkmod reads
 * its modinfo (the firmware names) and the symbols it imports (for
 * modules.dep's order) from that plain copy, handed to it as
 * /proc/self/fd/N of a memfd, and the image stores the same bytes.
 * Asked for the module itself, libkmod decompresses the file on its own
 * and keeps that copy until the module is released; with the image
 * writer's own decompression that was two xz passes per module, 42% of
 * a trixie 6.12 build's instructions (bench/results/build.md). libkmod
 * (30) tells a compressed file by its magic, not its name, so it takes
 * the copy as the plain ELF it is. A plain module is read the same way,
 * through its own fd, so that libkmod's mapping of it goes as soon as it
 * is read. Without /proc (a bare chroot) libkmod reads the file itself,
 * as it always did: slower, the same result. */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "err.h"
#include "gen/compress/compress.h"
#include "gen/modules/modules_priv.h"
#include "log.h"
#include "util.h"

/* modinfo and imported symbols of km, the module d's file or its copy */
static int read_km(struct kmod_module *km, struct mod *d, struct kmod_list **info)
{
	struct kmod_list *syms = NULL, *it;
	int r = kmod_module_get_info(km, info);

	if (r < 0)
		return err_errno(r, "%s: cannot read modinfo", d->path);
	r = kmod_module_get_dependency_symbols(km, &syms);
	if (r == -ENODATA || r == -ENOENT)
		return 0; /* imports nothing */
	if (r < 0) {
		kmod_module_info_free_list(*info);
		*info = NULL;
		return err_errno(r, "%s: cannot read its symbols", d->path);
	}
	kmod_list_foreach(it, syms)
		strv_push(&d->imports, kmod_module_dependency_symbol_get_symbol(it));
	kmod_module_dependency_symbols_free_list(syms);
	return 0;
}

/* The module's bytes in fd (the plain copy's memfd, or the plain file)
 * through /proc/self/fd/N: 1 read, 0 no /proc here (the caller asks
 * libkmod for the file), <0 an error. Takes fd. */
static int read_fd(const struct modules *m, struct mod *d, int fd, struct kmod_list **info)
{
	struct kmod_module *km = NULL;
	char path[64];
	int r;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* a module of its own (named by the fd number) released at once:
	 * d->km never opens its file, which libkmod would keep (a copy or
	 * a mapping) until modules_free */
	r = kmod_module_new_from_path(m->ctx, path, &km);
	if (r == -ENOENT) {
		log_debug("%s: no /proc/self/fd, libkmod reads the module itself", path);
		close(fd);
		return 0;
	}
	if (r < 0)
		r = err_errno(r, "%s: libkmod cannot open it", d->path);
	else
		r = read_km(km, d, info);
	kmod_module_unref(km);
	close(fd);
	return r < 0 ? r : 1;
}

/* The plain copy in a memfd: fd, -ENOSYS none here, <0 an error. */
static int copy_fd(const struct mod *d, const struct buf *plain)
{
	int fd = memfd_create(d->name, MFD_CLOEXEC), r;

	if (fd < 0)
		return errno == ENOSYS ? -ENOSYS : err_errno(errno, "memfd_create");
	if (write_all(fd, plain->p, plain->len) < 0) {
		r = err_errno(errno, "%s: copy for libkmod", d->path);
		close(fd);
		return r;
	}
	return fd;
}

int mod_read(const struct modules *m, struct mod *d, struct buf *plain, struct kmod_list **info)
{
	int fd, r;

	if (d->compressed) {
		/* its own bound (decompress_set_limit), an error naming the file */
		if (decompress_file(d->path, plain) < 0) {
			buf_free(plain);
			return err_code();
		}
		fd = copy_fd(d, plain);
	} else {
		fd = open(d->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return err_errno(errno, "%s", d->path);
	}
	if (fd == -ENOSYS)
		r = 0;
	else if (fd < 0)
		return fd;
	else
		r = read_fd(m, d, fd, info);
	if (r != 0)
		return r < 0 ? r : 0;
	return read_km(d->km, d, info);
}
