// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: clevis's pins in luksmeta's slots of a LUKS1 device,
 * as the init reads a hostile one (src/common/luksmeta.c). The input is
 * the device's first bytes: nothing past it may be read, the pins have
 * only the bits clevis_pins.h names, an error is one of those luksmeta.h
 * names, and its reason is a terminated line. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clevis_pins.h"
#include "luksmeta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *dev = malloc(size ? size : 1); /* its own copy: exactly size bytes */
	char why[LUKSMETA_WHY];
	int r;

	memcpy(dev, data, size);
	memset(why, 'x', sizeof(why));
	r = luksmeta_mem_pins(dev, size, why);
	if (r >= 0 ? (unsigned)r & ~CLEVIS_PIN_ALL : r != -EINVAL && r != -ENOENT && r != -EBADMSG)
		abort();
	if (!memchr(why, '\0', sizeof(why)) || strchr(why, '\n') || (r == -EBADMSG && !why[0]))
		abort();
	free(dev);
	return 0;
}
