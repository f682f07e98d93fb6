// SPDX-License-Identifier: GPL-2.0-or-later
/* The UKI's PE writer: sections where the stub looks for them, the
 * headers consistent, hostile stubs refused by exact message. */
#include <stdint.h>

#include "err.h"
#include "test.h"
#include "gen/image/uki.h"
#include "util.h"

static uint32_t g32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t g16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void p32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A minimal PE32+ stub: headers in 0x400 bytes, one .text section of
 * 0x200 bytes at RVA 0x1000, 0x100 bytes of "symbol table" after it. */
#define PE 0x80
#define OPT (PE + 24)
#define TABLE (OPT + 240)
static size_t make_stub(uint8_t *d)
{
	memset(d, 0, 0x700);
	d[0] = 'M', d[1] = 'Z';
	p32(d + 0x3c, PE);
	memcpy(d + PE, "PE\0\0", 4);
	d[PE + 4] = 0x64, d[PE + 5] = 0x86; /* x86-64 */
	d[PE + 6] = 1;                      /* one section */
	p32(d + PE + 12, 0x600);            /* symbol table */
	p32(d + PE + 16, 4);
	d[PE + 20] = 240;                   /* optional header size */
	d[OPT] = 0x0b, d[OPT + 1] = 0x02;   /* PE32+ */
	p32(d + OPT + 32, 0x1000);          /* section alignment */
	p32(d + OPT + 36, 0x200);           /* file alignment */
	p32(d + OPT + 56, 0x2000);          /* size of image */
	p32(d + OPT + 60, 0x400);           /* size of headers */
	p32(d + OPT + 108, 16);
	p32(d + OPT + 112 + 8 * 4, 0x700);  /* a "signature" */
	p32(d + OPT + 112 + 8 * 4 + 4, 0x10);
	memcpy(d + TABLE, ".text", 5);
	p32(d + TABLE + 8, 0x1f0);
	p32(d + TABLE + 12, 0x1000);
	p32(d + TABLE + 16, 0x200);
	p32(d + TABLE + 20, 0x400);
	p32(d + TABLE + 36, 0x60000020);
	memset(d + 0x400, 0xcc, 0x1f0);
	memset(d + 0x600, 0x55, 0x100);
	return 0x700;
}

static void test_layout(void)
{
	uint8_t stub[0x700];
	size_t len = make_stub(stub);
	const char linux_[] = "KERNEL", initrd[0x1234] = { 1 };
	struct uki_section s[] = { { ".cmdline", "root=/dev/vda", 13 }, { ".initrd", initrd, sizeof(initrd) },
				   { ".linux", linux_, 6 } };
	struct buf b = { 0 };
	const uint8_t *d, *sh;

	CHECK(uki_assemble(&b, "stub", stub, len, s, 3) == 0);
	d = (const uint8_t *)b.p;
	CHECK(g16(d + PE + 6) == 4);
	CHECK(g32(d + PE + 12) == 0 && g32(d + PE + 16) == 0);   /* no symbol table */
	CHECK(g32(d + OPT + 112 + 8 * 4) == 0);                  /* no signature */
	CHECK(memcmp(d + 0x400, stub + 0x400, 0x200) == 0);       /* the stub's code kept */
	sh = d + TABLE + 40;
	CHECK(memcmp(sh, ".cmdline", 8) == 0);
	CHECK(g32(sh + 8) == 13 && g32(sh + 12) == 0x2000 && g32(sh + 20) == 0x600);
	CHECK(memcmp(d + g32(sh + 20), "root=/dev/vda", 13) == 0);
	sh += 40;
	CHECK(memcmp(sh, ".initrd\0", 8) == 0);
	CHECK(g32(sh + 8) == 0x1234 && g32(sh + 12) == 0x3000 && g32(sh + 16) == 0x1400);
	CHECK(g32(sh + 20) == 0x800);
	sh += 40;
	CHECK(memcmp(sh, ".linux\0\0", 8) == 0);
	CHECK(g32(sh + 12) == 0x5000 && g32(sh + 20) == 0x1c00);
	CHECK(memcmp(d + g32(sh + 20), "KERNEL", 6) == 0);
	CHECK(g32(sh + 36) == 0x40000040);
	CHECK(g32(d + OPT + 56) == 0x6000);                       /* size of image */
	CHECK(b.len == 0x1e00);
	CHECK(g32(d + OPT + 64) != 0);                            /* checksum set */
	buf_free(&b);
}

/* A stub with no sections of its own (found by fuzz_uki): the new data
 * goes after the headers, never over them. */
static void test_no_sections(void)
{
	uint8_t stub[0x700];
	size_t len = make_stub(stub);
	struct uki_section s[] = { { ".linux", "KERNEL", 6 } };
	struct buf b = { 0 };
	const uint8_t *sh;

	stub[PE + 6] = 0;
	CHECK(uki_assemble(&b, "stub", stub, len, s, 1) == 0);
	sh = (const uint8_t *)b.p + TABLE;
	CHECK(memcmp(sh, ".linux", 6) == 0);
	CHECK(g32(sh + 20) == 0x400 && g32(sh + 12) == 0x1000);
	CHECK(b.len == 0x600 && memcmp(b.p + 0x400, "KERNEL", 6) == 0);
	CHECK(g16((const uint8_t *)b.p + OPT) == 0x20b);
	buf_free(&b);
}

static void test_deterministic(void)
{
	uint8_t stub[0x700];
	size_t len = make_stub(stub);
	struct uki_section s[] = { { ".linux", "K", 1 } };
	struct buf a = { 0 }, b = { 0 };
	CHECK(uki_assemble(&a, "stub", stub, len, s, 1) == 0);
	CHECK(uki_assemble(&b, "stub", stub, len, s, 1) == 0);
	CHECK(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
	buf_free(&a);
	buf_free(&b);
}

static void test_hostile_stubs(void)
{
	uint8_t stub[0x700];
	size_t len = make_stub(stub);
	struct uki_section s[] = { { ".linux", "K", 1 } };
	struct uki_section many[16];
	struct buf b = { 0 };

	CHECK(uki_assemble(&b, "x.efi", stub, 0x20, s, 1) < 0);
	CHECK_STR(err_msg(), "x.efi: not a PE image (no MZ header)");
	p32(stub + 0x3c, 0x6f0);
	CHECK(uki_assemble(&b, "x.efi", stub, len, s, 1) < 0);
	CHECK_STR(err_msg(), "x.efi: not a PE image (no PE signature)");
	make_stub(stub);
	stub[OPT] = 0x0b, stub[OPT + 1] = 0x01;
	CHECK(uki_assemble(&b, "x.efi", stub, len, s, 1) < 0);
	CHECK_STR(err_msg(), "x.efi: not a PE32+ (64-bit EFI) image");
	make_stub(stub);
	p32(stub + TABLE + 20, 0x6ff);
	CHECK(uki_assemble(&b, "x.efi", stub, len, s, 1) < 0);
	CHECK_STR(err_msg(), "x.efi: section 0 lies outside the file");
	make_stub(stub);
	p32(stub + OPT + 36, 0x300);
	CHECK(uki_assemble(&b, "x.efi", stub, len, s, 1) < 0);
	CHECK_STR(err_msg(), "x.efi: bad alignment or header size");
	make_stub(stub);
	p32(stub + OPT + 36, 0x80000000); /* would pad the UKI to 2 GiB */
	CHECK(uki_assemble(&b, "x.efi", stub, len, s, 1) < 0);
	CHECK_STR(err_msg(), "x.efi: bad alignment or header size");
	make_stub(stub);
	p32(stub + OPT + 108, 0x40000000);
	CHECK(uki_assemble(&b, "x.efi", stub, len, s, 1) < 0);
	CHECK_STR(err_msg(), "x.efi: bad data directory count 1073741824");
	make_stub(stub);
	stub[PE + 6] = 0xff; /* 255 sections: no room, and none read past the headers */
	CHECK(uki_assemble(&b, "x.efi", stub, len, s, 1) < 0);
	CHECK_STR(err_msg(), "x.efi: no room in its headers for 1 more sections");
	make_stub(stub);
	for (size_t i = 0; i < 16; i++)
		many[i] = s[0];
	CHECK(uki_assemble(&b, "x.efi", stub, len, many, 16) < 0);
	CHECK_STR(err_msg(), "x.efi: no room in its headers for 16 more sections");
	s[0].name = ".toolongname";
	CHECK(uki_assemble(&b, "x.efi", stub, len, s, 1) < 0);
	CHECK_STR(err_msg(), "section name '.toolongname' is longer than 8 bytes");
	CHECK(b.len == 0);
	buf_free(&b);
}

int main(void)
{
	RUN(test_layout);
	RUN(test_no_sections);
	RUN(test_deterministic);
	RUN(test_hostile_stubs);
	return test_done();
}
