// SPDX-License-Identifier: GPL-2.0-or-later
/* A PE32+ writer just big enough for a UKI (uki.h). Field offsets are
 * the PE/COFF specification's. */
#include "gen/image/uki.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

#define PE_MAGIC_OFF 0x3c
#define COFF_LEN 20
#define SECTION_LEN 40
#define OPT_PE32PLUS 0x20b
#define SCN_DATA_READ 0x40000040u /* initialized data, readable */
#define DIR_SECURITY 4
#define PAGE 4096u

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* The checksum the PE specification defines (what imagehlp's
 * CheckSumMappedFile computes): 16-bit one's-complement-style sum of
 * the file with the field itself taken as zero, plus the length. */
static uint32_t pe_checksum(const uint8_t *d, size_t len, size_t field)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < len; i += 2) {
		uint32_t w = i + 1 < len ? get16(d + i) : d[i];
		if (i >= field && i < field + 4)
			w = 0;
		sum += w;
		sum = (sum & 0xffff) + (sum >> 16);
	}
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint32_t)(sum + len);
}

int uki_assemble(struct buf *out, const char *stub_name, const uint8_t *stub, size_t stub_len,
		 const struct uki_section *s, size_t n)
{
	uint32_t pe, nsec, optlen, falign, salign, hdrs, end_raw = 0, end_va = 0, ndirs;
	size_t coff, opt, table, base = out->len;
	uint8_t *d;
	uint64_t va, raw, total;

	if (stub_len < 0x40 || stub[0] != 'M' || stub[1] != 'Z')
		return err_set("%s: not a PE image (no MZ header)", stub_name);
	pe = get32(stub + PE_MAGIC_OFF);
	if ((uint64_t)pe + 4 + COFF_LEN > stub_len || memcmp(stub + pe, "PE\0\0", 4) != 0)
		return err_set("%s: not a PE image (no PE signature)", stub_name);
	coff = pe + 4;
	nsec = get16(stub + coff + 2);
	optlen = get16(stub + coff + 16);
	opt = coff + COFF_LEN;
	if (optlen < 112 || opt + optlen > stub_len || get16(stub + opt) != OPT_PE32PLUS)
		return err_set("%s: not a PE32+ (64-bit EFI) image", stub_name);
	salign = get32(stub + opt + 32);
	falign = get32(stub + opt + 36);
	hdrs = get32(stub + opt + 60);
	ndirs = get32(stub + opt + 108);
	/* the specification's bounds: a power of two from 512 to 64 KiB for
	 * the file, at least that for sections (2 MiB is plenty) */
	if (falign < 512 || falign > 65536 || (falign & (falign - 1)) || salign < falign ||
	    salign > (2u << 20) || (salign & (salign - 1)) || hdrs > stub_len)
		return err_set("%s: bad alignment or header size", stub_name);
	if (ndirs > 16 || 112 + 8 * (uint64_t)ndirs > optlen)
		return err_set("%s: bad data directory count %u", stub_name, ndirs);
	table = opt + optlen;
	if (table + (uint64_t)(nsec + n) * SECTION_LEN > hdrs)
		return err_set("%s: no room in its headers for %zu more sections", stub_name, n);
	for (uint32_t i = 0; i < nsec; i++) {
		const uint8_t *sh = stub + table + i * SECTION_LEN;
		uint32_t vsz = get32(sh + 8), vaddr = get32(sh + 12), rsz = get32(sh + 16), rptr = get32(sh + 20);
		if ((uint64_t)rptr + rsz > stub_len || (uint64_t)vaddr + vsz > UINT32_MAX)
			return err_set("%s: section %u lies outside the file", stub_name, i);
		if (rptr + rsz > end_raw)
			end_raw = rptr + rsz;
		if (vaddr + vsz > end_va)
			end_va = vaddr + vsz;
	}
	/* the headers are kept whole even when no section data follows them */
	if (end_raw < hdrs)
		end_raw = hdrs;
	if (end_va < hdrs)
		end_va = hdrs;
	for (size_t i = 0; i < n; i++)
		if (strlen(s[i].name) > 8)
			return err_set("section name '%s' is longer than 8 bytes", s[i].name);

	/* the stub's image, headers to its last section; what followed (the
	 * symbol table, a signature) is not kept */
	raw = align_up(end_raw, falign);
	va = align_up(end_va, PAGE);
	total = raw;
	for (size_t i = 0; i < n; i++)
		total = align_up(total, falign) + align_up(s[i].len, falign);
	if (total > UINT32_MAX || va + total > UINT32_MAX)
		return err_set("the UKI would be over 4 GiB");
	buf_append(out, stub, end_raw);
	{
		uint8_t *zeros = xcalloc(1, (size_t)(total - end_raw) + 1);
		buf_append(out, zeros, (size_t)(total - end_raw));
		free(zeros);
	}
	d = (uint8_t *)out->p + base;

	for (size_t i = 0; i < n; i++) {
		uint8_t *sh = d + table + (nsec + i) * SECTION_LEN;
		uint32_t rsz = (uint32_t)align_up(s[i].len, falign);
		memset(sh, 0, SECTION_LEN);
		memcpy(sh, s[i].name, strlen(s[i].name));
		put32(sh + 8, (uint32_t)s[i].len);
		put32(sh + 12, (uint32_t)va);
		put32(sh + 16, rsz);
		put32(sh + 20, (uint32_t)raw);
		put32(sh + 36, SCN_DATA_READ);
		memcpy(d + raw, s[i].data, s[i].len);
		put32(d + opt + 8, get32(d + opt + 8) + rsz); /* SizeOfInitializedData */
		raw += rsz;
		va = align_up(va + s[i].len, PAGE);
	}
	put16(d + coff + 2, (uint16_t)(nsec + n));
	put32(d + coff + 8, 0);  /* PointerToSymbolTable */
	put32(d + coff + 12, 0); /* NumberOfSymbols */
	put32(d + opt + 56, (uint32_t)align_up(va, salign)); /* SizeOfImage */
	if (ndirs > DIR_SECURITY)
		memset(d + opt + 112 + 8 * DIR_SECURITY, 0, 8);
	put32(d + opt + 64, pe_checksum(d, (size_t)total, opt + 64));
	return 0;
}
