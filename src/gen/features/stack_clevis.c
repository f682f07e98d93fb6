// SPDX-License-Identifier: GPL-2.0-or-later
/* clevis for a LUKS2 root bound with `clevis luks bind` (a "clevis"
 * token): whether it goes in, the host's NIC drivers and curl's
 * timeouts. What is packed is uniramfs's own plugin plugins/clevis.conf
 * (if-feature = clevis): what `clevis luks unlock` runs, and nothing
 * more, read from clevis 19's scripts: the clevis dispatcher, clevis-luks-unlock and the
 * clevis-luks-common-functions it sources (bash); cryptsetup isLuks,
 * luksDump, token export and open; grep -E and sed on luksDump's text;
 * clevis-decrypt and its pins: tang (jose, curl, /bin/cat), sss (an
 * ELF that runs clevis-decrypt for each share); plugins/clevis-tpm2.conf
 * (if-feature = clevis-tpm2), when wanted and the host has clevis-tpm2, the
 * tpm2 pin (tpm2-tools' tpm2_createprimary, _flushcontext, _load and
 * _unseal, mktemp, rm, mkdir; here, the tcti library tss2's loader
 * dlopen()s, which no DT_NEEDED names). luksmeta is LUKS1's only. Not
 * packed: the null pin (a test pin; it reads a bash process
 * substitution, /dev/fd, which no udev makes in the image).
 * Hostonly: when a root's LUKS2 header has a clevis token (or a LUKS1
 * root's luksmeta slots a clevis binding, stack_token.c). Generic: only
 * when asked (clevis = yes): bash, curl, jose, tpm2-tools with their
 * libraries add 5.8 MiB with zstd to a 28 MiB image (docs/unlock.md). */
#include "gen/features/stack.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clevis_pins.h"
#include "err.h"
#include "gen/elf/elf.h"
#include "gen/host/sysroot.h"
#include "gen/plugins/plugin.h"
#include "log.h"
#include "luks2.h"

/* clevis runs curl with no timeout, and the init waits for it: a Tang
 * whose packets go nowhere would hold the boot for curl's 300 s connect
 * timeout. curl reads $HOME/.curlrc, and the init gives its tools HOME=/. */
#define TCTI_DEVICE "libtss2-tcti-device.so.0"

static const char curlrc[] =
	"# uniramfs: clevis's curl asks Tang; the boot waits for it\n"
	"connect-timeout = 10\n"
	"max-time = 30\n";

bool stack_clevis_wanted(const struct stack_plan *sp)
{
	return sp->clevis || (sp->hostonly && (sp->tokens & LUKS2_TOKEN_CLEVIS));
}

bool stack_clevis_tpm2_wanted(const struct stack_plan *sp)
{
	return !sp->hostonly || sp->clevis || sp->tokens == ~0u ||
	       (sp->clevis_pins & (CLEVIS_PIN_TPM2 | CLEVIS_PIN_OTHER));
}

/* The drivers of the host's NICs (/sys/class/net/X/device/driver/module):
 * Tang is reached through one of them. */
void stack_clevis_modules(struct stack_plan *sp, const char *sysroot)
{
	char *dir = xasprintf("%s/sys/class/net", sysroot);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *link, real[PATH_MAX];
		const char *mod;
		if (e->d_name[0] == '.')
			continue;
		link = xasprintf("%s/%s/device/driver/module", dir, e->d_name);
		if (realpath(link, real) && (mod = strrchr(real, '/')) && mod[1] &&
		    !strv_contains(&sp->nics, mod + 1))
			strv_push(&sp->nics, mod + 1);
		free(link);
	}
	if (d)
		closedir(d);
	free(dir);
}

int stack_clevis_decide(struct stack_plan *sp, const struct plugins *ps, const char *sysroot)
{
	const char *prog, *where;

	sp->clevis_on = false;
	if (!stack_clevis_wanted(sp))
		return 0;
	if (plugins_feature_missing(ps, sysroot, "clevis", &prog, &where)) {
		if (sp->clevis)
			return err_set("clevis = yes, but %s is not installed (%s needs it)", prog, where);
		if (sp->tokens != ~0u) /* ~0: a header not read, no clevis token seen */
			log_warn("the root has a clevis binding, but %s is not installed "
				 "(%s needs it): the init will ask for the passphrase", prog, where);
		return 0;
	}
	sp->clevis_on = true;
	return 0;
}

/* libtss2-tcti-device.so.0 where the host has it: a multiarch dir
 * (/usr/lib/x86_64-linux-gnu) or a plain one; NULL when none. */
static char *find_tcti(const char *sysroot)
{
	static const char *const plain[] = { "/usr/lib64", "/usr/lib", "/lib64", "/lib" };
	char *dir = xasprintf("%s/usr/lib", sysroot), *found = NULL;
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && !found && (e = readdir(d))) {
		char *sub;
		const char *one[1];
		if (!strstr(e->d_name, "-linux-"))
			continue;
		sub = xasprintf("/usr/lib/%s", e->d_name);
		one[0] = sub;
		found = sysroot_find(sysroot, one, 1, TCTI_DEVICE, R_OK);
		free(sub);
	}
	if (d)
		closedir(d);
	free(dir);
	return found ? found : sysroot_find(sysroot, plain, ARRAY_SIZE(plain), TCTI_DEVICE, R_OK);
}

/* clevis-decrypt-tpm2 (packed by the plugin when the host has it) runs
 * tpm2-tools, whose tss2 loader dlopen()s the device tcti by name. */
static int add_tpm2_pin(struct stack_plan *sp, struct image *img, const char *sysroot)
{
	char *pin = sysroot_find_tool(sysroot, "clevis-decrypt-tpm2"), *tcti;
	struct elf_resolver *er;
	int r;

	if (!pin) {
		if (sp->hostonly && (sp->clevis_pins & CLEVIS_PIN_TPM2))
			log_warn("the root's clevis binding uses the tpm2 pin, but clevis-decrypt-tpm2 "
				 "is not installed (Debian: clevis-tpm2): the init will ask for the "
				 "passphrase");
		return 0;
	}
	free(pin);
	tcti = find_tcti(sysroot);
	if (!tcti) {
		log_warn("clevis's tpm2 pin: %s is not installed (apt install libtss2-tcti-device0); "
			 "it cannot reach the TPM", TCTI_DEVICE);
		return 0;
	}
	er = elf_resolver_new(sysroot);
	r = elf_add_binary(er, img, tcti);
	if (r < 0)
		err_wrap("clevis's tpm2 pin");
	elf_resolver_free(er);
	free(tcti);
	return r;
}

int stack_add_clevis(struct stack_plan *sp, struct image *img, const char *sysroot)
{
	int r;

	if (!sp->clevis_on)
		return 0;
	r = image_add_data(img, "/.curlrc", curlrc, strlen(curlrc), 0644);
	if (r == 0 && stack_clevis_tpm2_wanted(sp))
		r = add_tpm2_pin(sp, img, sysroot);
	if (r == 0)
		log_info("clevis: packed by the plugins of if-feature = clevis (the root needs "
			 "rd.neednet=1 ip=dhcp to reach Tang)");
	return r;
}
