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
#include "gen/image/uki_pcr.h"
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
	int r = uki_sign_check(o->uki, o->uki_sign_key, o->uki_sign_cert);

	if (r == 0)
		r = uki_pcr_check(o->uki, o->uki_pcr_key, o->uki_pcr_public_key);
	if (r == 0 && o->uki_ucode && !o->uki)
		r = err_set("--uki-ucode goes with --uki FILE.efi");
	return r;
}

/* The UKI's inputs, read whole. */
struct uki_inputs {
	char *stub, *kernel, *initrd, *osrel, *ucode, *pcrpkey, *kpath;
	size_t stub_len, kernel_len, initrd_len, osrel_len, ucode_len, pcrpkey_len;
};

static void inputs_free(struct uki_inputs *in)
{
	free(in->stub), free(in->kernel), free(in->initrd), free(in->osrel), free(in->ucode);
	free(in->pcrpkey), free(in->kpath);
}

static int read_inputs(const struct build_opts *o, const char *sysroot, const char *kver, const char *image,
		       struct uki_inputs *in)
{
	static const char *const osrels[] = { "/etc/os-release", "/usr/lib/os-release" };
	int r;

	if (o->uki_kernel)
		in->kpath = xstrdup(o->uki_kernel);
	else if (o->kernel_tree)
		in->kpath = path_join(o->kernel_tree, "arch/x86/boot/bzImage");
	else {
		/* Debian's /boot, else the module directory, where Fedora's and
		 * Arch's kernel packages put it (kernel-install copies it out) */
		char *rel[2] = { xasprintf("/boot/vmlinuz-%s", kver), xasprintf("/lib/modules/%s/vmlinuz", kver) };
		struct stat st;
		/* a link the sysroot has (vmlinuz -> /boot/...) is followed inside it */
		for (size_t i = 0; i < ARRAY_SIZE(rel) && !in->kpath; i++)
			if (sysroot_path(sysroot, rel[i], &in->kpath, &st) < 0)
				err_clear();
		if (!in->kpath)
			in->kpath = path_join(sysroot, rel[0]);
		free(rel[0]);
		free(rel[1]);
	}
	r = read_input("stub", o->uki_stub ? o->uki_stub : UKI_DEFAULT_STUB, &in->stub, &in->stub_len);
	if (r == 0)
		r = read_input("kernel", in->kpath, &in->kernel, &in->kernel_len);
	if (r == 0)
		r = read_input("image", image, &in->initrd, &in->initrd_len);
	if (r == 0 && o->uki_ucode) {
		r = read_input("microcode", o->uki_ucode, &in->ucode, &in->ucode_len);
		/* the stub hands it to the kernel as the first initrd: an
		 * uncompressed newc cpio, as the kernel's early loader reads */
		if (r == 0 && (in->ucode_len < 6 || memcmp(in->ucode, "070701", 6) != 0))
			r = err_set("--uki-ucode %s: not an uncompressed cpio archive (newc)", o->uki_ucode);
	}
	if (r == 0 && o->uki_pcr_public_key)
		r = read_input("PCR public key", o->uki_pcr_public_key, &in->pcrpkey, &in->pcrpkey_len);
	for (size_t i = 0; r == 0 && !in->osrel && i < ARRAY_SIZE(osrels); i++)
		if (sysroot_read(sysroot, osrels[i], &in->osrel, &in->osrel_len) < 0)
			in->osrel = NULL;
	if (r == 0 && !in->osrel)
		log_warn("--uki: no os-release under %s: the UKI has no .osrel section", sysroot);
	return r;
}

/* The signed PCR 11 policies over what the stub will measure (uki_pcr.h). */
static int pcrsig(const struct build_opts *o, const char *kver, const struct uki_inputs *in, struct buf *out)
{
	struct uki_measured m[7];
	size_t n = 0;

	m[n++] = (struct uki_measured){ "linux", in->kernel, in->kernel_len };
	if (in->osrel)
		m[n++] = (struct uki_measured){ "osrel", in->osrel, in->osrel_len };
	if (o->uki_cmdline)
		m[n++] = (struct uki_measured){ "cmdline", o->uki_cmdline, strlen(o->uki_cmdline) };
	m[n++] = (struct uki_measured){ "initrd", in->initrd, in->initrd_len };
	m[n++] = (struct uki_measured){ "pcrpkey", in->pcrpkey, in->pcrpkey_len };
	m[n++] = (struct uki_measured){ "uname", kver, strlen(kver) };
	if (in->ucode)
		m[n++] = (struct uki_measured){ "ucode", in->ucode, in->ucode_len };
	return uki_pcr_sign(m, n, o->uki_pcr_key, o->uki_pcr_public_key, out);
}

/* The UKI from the image just written (uki.h); signed, when asked, into
 * the unnamed output file, so a failed signing leaves the old UKI. */
int uki_write(const struct build_opts *o, const char *sysroot, const char *kver, const char *image)
{
	const char *stub_name = o->uki_stub ? o->uki_stub : UKI_DEFAULT_STUB;
	struct uki_inputs in = { 0 };
	struct uki_section sec[8];
	struct buf uki = { 0 }, sig = { 0 };
	struct output out = { .fd = -1, .dirfd = -1 };
	size_t n = 0;
	int r;

	r = read_inputs(o, sysroot, kver, image, &in);
	if (r == 0 && o->uki_pcr_key)
		r = pcrsig(o, kver, &in, &sig);
	if (r == 0) {
		/* ukify's order, .linux last (room to decompress after it);
		 * the stub looks sections up by name */
		if (in.osrel)
			sec[n++] = (struct uki_section){ ".osrel", in.osrel, in.osrel_len };
		if (o->uki_cmdline)
			sec[n++] = (struct uki_section){ ".cmdline", o->uki_cmdline, strlen(o->uki_cmdline) };
		sec[n++] = (struct uki_section){ ".uname", kver, strlen(kver) };
		if (in.pcrpkey)
			sec[n++] = (struct uki_section){ ".pcrpkey", in.pcrpkey, in.pcrpkey_len };
		sec[n++] = (struct uki_section){ ".initrd", in.initrd, in.initrd_len };
		if (in.ucode)
			sec[n++] = (struct uki_section){ ".ucode", in.ucode, in.ucode_len };
		if (sig.len)
			sec[n++] = (struct uki_section){ ".pcrsig", sig.p, sig.len };
		sec[n++] = (struct uki_section){ ".linux", in.kernel, in.kernel_len };
		r = uki_assemble(&uki, stub_name, (const uint8_t *)in.stub, in.stub_len, sec, n);
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
		log_notice("wrote %s: UKI, kernel %s, %zu bytes%s%s", o->uki, in.kpath, uki.len,
			   sig.len ? ", PCR 11 policies signed" : "", o->uki_sign_key ? ", signed by sbsign" : "");
	output_abort(&out);
	buf_free(&uki);
	buf_free(&sig);
	inputs_free(&in);
	return r;
}
