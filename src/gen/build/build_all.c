// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/build/build_all.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gen/build/build.h"
#include "gen/host/sysroot.h"
#include "gen/modules/kernels.h"
#include "log.h"

int build_all(struct build_opts *o)
{
	const char *sysroot = o->sysroot ? o->sysroot : "/";
	struct strv kvers = { 0 }, failed = { 0 };
	struct buf names = { 0 };
	int r;

	/* each kernel gets its own default image */
	if (o->kver)
		return err_set("--all builds every installed kernel: kver '%s' (a flag or a config file) cannot be "
			       "given with it", o->kver);
	if (o->kdump)
		return err_set("--kdump makes one kernel's crash image (-k KVER), not --all");
	if (o->output)
		return err_set("--all writes each kernel's default image: output '%s' (a flag or a config file) "
			       "cannot be given with it", o->output);
	r = kernels_installed(sysroot, &kvers);
	if (r < 0)
		return r;
	if (kvers.n == 0)
		log_notice("no installed kernel under %s (lib/modules/KVER with boot/vmlinuz-KVER): nothing to build",
			   sysroot);
	for (size_t i = 0; i < kvers.n; i++) {
		char *name = NULL;
		o->kver = kvers.v[i];
		/* a sysroot's kernels get their images in its own /boot,
		 * whose links are followed inside the sysroot, never out */
		r = 0;
		if (strcmp(sysroot, "/") != 0) {
			char *rel = build_image_name(sysroot, kvers.v[i]), *boot = NULL;
			struct stat st;
			r = sysroot_resolve(sysroot, "/boot", NULL, NULL, &boot, &st);
			if (r == 0 && !S_ISDIR(st.st_mode))
				r = err_set("%s/boot: not a directory", sysroot);
			if (r == 0) {
				name = xasprintf("%s%s/%s", sysroot, boot, rel);
				o->output = name;
			}
			free(boot);
			free(rel);
		}
		if (r == 0)
			r = build_image(o);
		o->output = NULL;
		free(name);
		if (r < 0) {
			fprintf(stderr, "uniramfs: error: kernel %s: %s\n", kvers.v[i], err_msg());
			strv_push(&failed, kvers.v[i]);
		}
		o->kver = NULL;
	}
	r = 0;
	if (failed.n) {
		for (size_t i = 0; i < failed.n; i++)
			buf_printf(&names, "%s%s", i ? ", " : "", failed.v[i]);
		r = err_set("%zu of %zu kernels failed (their old images are unchanged): %s", failed.n, kvers.n,
			    names.p);
	}
	buf_free(&names);
	strv_free(&failed);
	strv_free(&kvers);
	return r;
}
