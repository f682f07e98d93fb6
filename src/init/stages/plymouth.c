// SPDX-License-Identifier: GPL-2.0-or-later
/* When the splash starts (docs/cmdline.md "Plymouth"): with `splash` on
 * the command line, once the display's driver is in. No udev tells
 * plymouthd of a DRM device appearing here (it takes /dev/dri/card0, else
 * /dev/fb0, else text on tty1, once, at its start), so it is started
 * when the loop sees one of them, after the uevent of the driver's load,
 * or at the first question, whatever is there then (remote/plymouth.c). */
#include <unistd.h>

#include "init/init.h"
#include "init/remote/plymouth.h"
#include "init/stages/stages.h"
#include "log.h"

static bool splash_due(void *arg, bool ending)
{
	(void)arg, (void)ending;
	return plymouth_wanted() && (access("/dev/dri/card0", F_OK) == 0 || access("/dev/fb0", F_OK) == 0);
}

static void splash_step(void *arg)
{
	(void)arg;
	plymouth_start();
}

void stage_plymouth(struct init *in)
{
	struct loop_source src = { .fd = -1, .has_work = splash_due, .step = splash_step };

	if (!in->opt.splash || !in->opt.plymouth) {
		if (in->opt.splash)
			log_info("splash: off (plymouth.enable=0 or rd.plymouth=0)");
		return;
	}
	plymouth_want(true);
	/* plymouthd, its plugins and themes: read past the tables */
	squash_need(in);
	if (loop_add(&in->loop, &src) < 0)
		plymouth_start();
}
