// SPDX-License-Identifier: GPL-2.0-or-later
/* The LUKS2 header's subsystem field (src/common/luks2.c), the mark of
 * rd.overlay.crypt='s devices: read only from a LUKS2 header, and only
 * when it is a terminated string (the header is a stranger's). The
 * token scan has its tests in init/stack/test_luks_token.c. */
#include <string.h>

#include "luks2.h"
#include "test.h"

static unsigned char h[LUKS2_BIN_HDR];

static void header(const char *sub)
{
	memset(h, 0, sizeof(h));
	memcpy(h, "LUKS\xba\xbe\0\2", 8);
	h[14] = 0x40; /* hdr_size 16384, big-endian at 8 */
	if (sub)
		memcpy(h + 208, sub, strlen(sub));
}

static void test_subsystem(void)
{
	char out[LUKS2_SUBSYSTEM_MAX];

	header(LUKS2_SUBSYSTEM_OVERLAY);
	CHECK(luks2_subsystem(h, sizeof(h), out));
	CHECK_STR(out, "uniramfs-overlay");
	header(NULL);
	CHECK(luks2_subsystem(h, sizeof(h), out));
	CHECK_STR(out, "");
}

static void test_subsystem_hostile(void)
{
	char out[LUKS2_SUBSYSTEM_MAX];

	/* 48 bytes with no NUL: no string to take */
	header(NULL);
	memset(h + 208, 'A', LUKS2_SUBSYSTEM_MAX);
	CHECK(!luks2_subsystem(h, sizeof(h), out) && out[0] == '\0');
	/* LUKS1, no magic, a short read */
	header(LUKS2_SUBSYSTEM_OVERLAY);
	h[7] = 1;
	CHECK(!luks2_subsystem(h, sizeof(h), out) && out[0] == '\0');
	header(LUKS2_SUBSYSTEM_OVERLAY);
	h[0] = 'l';
	CHECK(!luks2_subsystem(h, sizeof(h), out));
	header(LUKS2_SUBSYSTEM_OVERLAY);
	CHECK(!luks2_subsystem(h, 256, out));
}

int main(void)
{
	RUN(test_subsystem);
	RUN(test_subsystem_hostile);
	return test_done();
}
