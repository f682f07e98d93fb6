// SPDX-License-Identifier: GPL-2.0-or-later
/* clevis for a LUKS2 root bound with `clevis luks bind` (a "clevis"
 * token): whether it goes in, the host's NIC drivers and curl's
 * timeouts. What is packed is uniramfs's own plugin plugins/clevis.conf
 * (if-feature = clevis): what `clevis luks unlock` runs, and nothing
 * more, read from clevis 19's scripts: the clevis dispatcher, clevis-luks-unlock and the
 * clevis-luks-common-functions it sources (bash); cryptsetup isLuks,
 * luksDump, token export and open; grep -E and sed on luksDump's text;
 * clevis-decrypt and its pins: tang (jose, curl, /bin/cat) and sss (an
 * ELF that runs clevis-decrypt for each share). luksmeta is LUKS1's
 * only. Not packed: the tpm2 pin (it needs tpm2-tools) and the null pin
 * (a test pin; it reads a bash process substitution, /dev/fd, which no
 * udev makes in the image).
 * Hostonly: when a root's LUKS2 header has a clevis token. Generic: only
 * when asked (clevis = yes): bash, curl and jose with their libraries
 * add 6.3 MiB, 2.7 MiB with zstd, to a 25 MiB image (docs/unlock.md). */
#include "gen/features/stack.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/plugins/plugin.h"
#include "log.h"
#include "luks2.h"

/* clevis runs curl with no timeout, and the init waits for it: a Tang
 * whose packets go nowhere would hold the boot for curl's 300 s connect
 * timeout. curl reads $HOME/.curlrc, and the init gives its tools HOME=/. */
static const char curlrc[] =
	"# uniramfs: clevis's curl asks Tang; the boot waits for it\n"
	"connect-timeout = 10\n"
	"max-time = 30\n";

bool stack_clevis_wanted(const struct stack_plan *sp)
{
	return sp->clevis || (sp->hostonly && (sp->tokens & LUKS2_TOKEN_CLEVIS));
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
			log_warn("the root's LUKS2 header has a clevis token, but %s is not installed "
				 "(%s needs it): the init will ask for the passphrase", prog, where);
		return 0;
	}
	sp->clevis_on = true;
	return 0;
}

int stack_add_clevis(struct stack_plan *sp, struct image *img, const char *sysroot)
{
	int r;

	(void)sysroot;
	if (!sp->clevis_on)
		return 0;
	r = image_add_data(img, "/.curlrc", curlrc, strlen(curlrc), 0644);
	if (r == 0)
		log_info("clevis: packed by the plugins of if-feature = clevis (the root needs "
			 "rd.neednet=1 ip=dhcp to reach Tang)");
	return r;
}
