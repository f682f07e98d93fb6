// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel command line, the options folded from it and rootflags=
 * words: whatever a boot loader passes must never crash PID 1. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "log.h"
#include "init/stages/mountopts.h"
#include "init/core/options.h"

static void quiet_sink(int level, const char *msg, void *userdata)
{
	(void)level;
	(void)msg;
	(void)userdata;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmdline c = { 0 };
	struct options o;
	unsigned long flags;
	char *text = malloc(size + 1), *mdata;
	size_t split = size ? data[0] % (size + 1) : 0;

	log_set_sink(quiet_sink, NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	/* Two layers from one input: baked defaults, then the real line. */
	char *second = strdup(text + (split <= strlen(text) ? split : strlen(text)));
	text[split <= strlen(text) ? split : strlen(text)] = '\0';
	cmdline_parse_layers(&c, text, second);
	options_parse(&o, &c);
	mountopts_parse(o.rootflags, &flags, &mdata);
	free(mdata);
	mountopts_parse(second, &flags, &mdata);
	free(mdata);
	options_free(&o);
	cmdline_free(&c);
	free(second);
	free(text);
	return 0;
}
