// SPDX-License-Identifier: GPL-2.0-or-later
/* `build --uki`: the unified kernel image around the image just written,
 * from systemd's stub, the kernel, the command line, os-release and the
 * kernel's version (uki.h lays the sections out). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gen/build/build.h"
#include "gen/host/sysroot.h"
#include "gen/image/output.h"
#include "gen/image/uki.h"
#include "gen/image/uki_sign.h"
#include "log.h"
#include "util.h"

static int read_input(const char *what, const char *path, char **data, size_t *len)
{
	int r = read_file(path, data, len);
	if (r < 0)
		return err_errno(r, "--uki: %s %s", what, path);
	return 0;
}

int uki_check(const struct build_opts *o)
{
	return uki_sign_check(o->uki, o->uki_sign_key, o->uki_sign_cert);
}

/* The UKI from the image just written (uki.h); signed, when asked, into
 * the unnamed output file, so a failed signing leaves the old UKI. */
int uki_write(const struct build_opts *o, const char *sysroot, const char *kver, const char *image)
{
	char *stub = NULL, *kernel = NULL, *initrd = NULL, *osrel = NULL, *kpath, *opath = NULL;
	size_t stub_len = 0, kernel_len = 0, initrd_len = 0, osrel_len = 0;
	struct uki_section sec[5];
	struct buf uki = { 0 };
	struct output out = { .fd = -1, .dirfd = -1 };
	size_t n = 0;
	int r;

	if (o->uki_kernel)
		kpath = xstrdup(o->uki_kernel);
	else if (o->kernel_tree)
		kpath = path_join(o->kernel_tree, "arch/x86/boot/bzImage");
	else {
		char *rel = xasprintf("/boot/vmlinuz-%s", kver);
		struct stat st;
		/* a link the sysroot has (vmlinuz -> /boot/...) is followed inside it */
		if (sysroot_path(sysroot, rel, &kpath, &st) < 0)
			kpath = path_join(sysroot, rel);
		free(rel);
	}
	r = read_input("stub", o->uki_stub ? o->uki_stub : UKI_DEFAULT_STUB, &stub, &stub_len);
	if (r == 0)
		r = read_input("kernel", kpath, &kernel, &kernel_len);
	if (r == 0)
		r = read_input("image", image, &initrd, &initrd_len);
	if (r == 0) {
		static const char *const osrels[] = { "/etc/os-release", "/usr/lib/os-release" };
		for (size_t i = 0; !osrel && i < ARRAY_SIZE(osrels); i++) {
			opath = path_join(sysroot, osrels[i]);
			if (sysroot_read(sysroot, osrels[i], &osrel, &osrel_len) < 0) {
				osrel = NULL;
				free(opath);
				opath = NULL;
			}
		}
		if (!osrel)
			log_warn("--uki: no os-release under %s: the UKI has no .osrel section", sysroot);
	}
	if (r == 0) {
		/* ukify's order; the stub looks sections up by name */
		if (osrel)
			sec[n++] = (struct uki_section){ ".osrel", osrel, osrel_len };
		if (o->uki_cmdline)
			sec[n++] = (struct uki_section){ ".cmdline", o->uki_cmdline, strlen(o->uki_cmdline) };
		sec[n++] = (struct uki_section){ ".uname", kver, strlen(kver) };
		sec[n++] = (struct uki_section){ ".initrd", initrd, initrd_len };
		sec[n++] = (struct uki_section){ ".linux", kernel, kernel_len };
		r = uki_assemble(&uki, o->uki_stub ? o->uki_stub : UKI_DEFAULT_STUB, (const uint8_t *)stub,
				 stub_len, sec, n);
	}
	if (r == 0)
		r = output_open(&out, o->uki);
	if (r == 0 && o->uki_sign_key)
		r = uki_sign(uki.p, uki.len, out.fd, o->uki_sign_key, o->uki_sign_cert);
	else if (r == 0 && write_all(out.fd, uki.p, uki.len) < 0)
		r = err_errno(errno, "%s", o->uki);
	if (r == 0)
		r = output_commit(&out);
	if (r == 0)
		log_notice("wrote %s: UKI, kernel %s, %zu bytes%s", o->uki, kpath, uki.len,
			   o->uki_sign_key ? ", signed by sbsign" : "");
	output_abort(&out);
	buf_free(&uki);
	free(stub), free(kernel), free(initrd), free(osrel), free(kpath), free(opath);
	return r;
}
