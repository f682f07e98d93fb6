// SPDX-License-Identifier: GPL-2.0-or-later
/* The config parser takes whatever is in /etc/uniramfs.conf.d: it must
 * reject or accept it, never crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen/config.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct build_opts o;
	char *text = xmalloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	build_opts_init(&o);
	(void)config_parse(&o, "fuzz.conf", text);
	build_opts_free(&o);
	free(text);
	return 0;
}
