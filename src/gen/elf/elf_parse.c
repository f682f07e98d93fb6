// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading the few parts of an ELF file that decide what it needs at run
 * time. The file is untrusted input (a sysroot may hold anything): every
 * offset and size is checked against the file before it is read. */
#include "gen/elf/elf_parse.h"

/* Not <elf.h>: our own elf.h shadows it on the include path. */
#include <linux/elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "log.h"

#ifndef DT_RUNPATH
#define DT_RUNPATH 29
#endif
#ifndef DT_GNU_HASH
#define DT_GNU_HASH 0x6ffffef5
#endif

/* The owner and type of systemd's ELF dlopen metadata notes. */
#define NOTE_DLOPEN_OWNER "FDO"
#define NOTE_DLOPEN_TYPE 0x407c0c0au

struct rd {
	const unsigned char *p;
	size_t n;
	bool be, is64;
	struct elf_symbols *syms; /* also read the dynamic symbols into it */
};

static uint64_t get(const struct rd *r, const unsigned char *q, size_t size)
{
	uint64_t v = 0;
	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)q[r->be ? size - 1 - i : i] << (8 * i);
	return v;
}

/* One header field of either class, read with the file's byte order. */
#define FIELD(r, base, T, f)                                                                 \
	((r)->is64 ? get(r, (base) + offsetof(Elf64_##T, f), sizeof(((Elf64_##T *)0)->f))   \
		   : get(r, (base) + offsetof(Elf32_##T, f), sizeof(((Elf32_##T *)0)->f)))
#define SIZEOF(r, T) ((r)->is64 ? sizeof(Elf64_##T) : sizeof(Elf32_##T))

static bool in_file(const struct rd *r, uint64_t off, uint64_t len)
{
	return off <= r->n && len <= r->n - off;
}

/* ---- ELF ---- */

static void parse_notes(const struct rd *r, uint64_t off, uint64_t size, uint64_t align,
			const char *name, struct elf_file *f)
{
	const unsigned char *p = r->p + off;
	uint64_t pos = 0, a = align == 8 ? 8 : 4;

	/* pos may pass size after the last note's padding. */
	while (pos < size && size - pos >= sizeof(Elf32_Nhdr)) {
		uint64_t namesz = get(r, p + pos, 4);
		uint64_t descsz = get(r, p + pos + 4, 4);
		uint64_t type = get(r, p + pos + 8, 4);
		uint64_t name_off = pos + sizeof(Elf32_Nhdr);
		uint64_t desc_off = name_off + ((namesz + a - 1) & ~(a - 1));
		/* namesz/descsz are 32-bit, so none of this overflows. */
		if (desc_off > size || descsz > size - desc_off)
			return;
		pos = desc_off + ((descsz + a - 1) & ~(a - 1));
		if (type != NOTE_DLOPEN_TYPE || namesz != sizeof(NOTE_DLOPEN_OWNER) ||
		    memcmp(p + name_off, NOTE_DLOPEN_OWNER, sizeof(NOTE_DLOPEN_OWNER)) != 0)
			continue;
		const char *json = (const char *)p + desc_off;
		if (elf_parse_dlopen_json(json, strnlen(json, descsz), f) < 0)
			log_debug("%s: ignoring a malformed .note.dlopen note", name);
	}
}

struct load {
	uint64_t vaddr, offset, filesz;
};

/* The file bytes behind virtual address addr: offset and how many
 * bytes the segment holds from there, or false when no PT_LOAD maps it. */
static bool vaddr_to_offset(const struct load *l, size_t nl, uint64_t addr, uint64_t *off,
			    uint64_t *avail)
{
	for (size_t i = 0; i < nl; i++)
		if (addr >= l[i].vaddr && addr - l[i].vaddr < l[i].filesz) {
			*off = l[i].offset + (addr - l[i].vaddr);
			*avail = l[i].filesz - (addr - l[i].vaddr);
			return true;
		}
	return false;
}

/* The dynamic section's entries that matter: string offsets (DT_NEEDED,
 * DT_SONAME, DT_RPATH, DT_RUNPATH) into the string table at DT_STRTAB. */
struct dyn {
	uint64_t *needed;
	size_t nneeded, cap;
	uint64_t strtab, strsz, soname, rpath, runpath;
	uint64_t symtab, hash, gnu_hash; /* addresses; 0: none */
	uint64_t verneed, verneednum, verdef, verdefnum;
	bool have_strtab;
};

static void scan_dynamic(const struct rd *r, uint64_t off, uint64_t size, struct dyn *dy)
{
	size_t dsz = SIZEOF(r, Dyn);

	dy->soname = dy->rpath = dy->runpath = UINT64_MAX;
	for (uint64_t pos = 0; size - pos >= dsz; pos += dsz) {
		const unsigned char *d = r->p + off + pos;
		int64_t tag = r->is64 ? (int64_t)FIELD(r, d, Dyn, d_tag)
				      : (int32_t)(uint32_t)FIELD(r, d, Dyn, d_tag);
		uint64_t val = FIELD(r, d, Dyn, d_un);
		if (tag == DT_NULL)
			break;
		switch (tag) {
		case DT_NEEDED:
			ARRAY_GROW(dy->needed, dy->cap, dy->nneeded + 1);
			dy->needed[dy->nneeded++] = val;
			break;
		case DT_STRTAB:
			dy->strtab = val;
			dy->have_strtab = true;
			break;
		case DT_STRSZ:
			dy->strsz = val;
			break;
		case DT_SONAME:
			dy->soname = val;
			break;
		case DT_RPATH:
			dy->rpath = val;
			break;
		case DT_RUNPATH:
			dy->runpath = val;
			break;
		case DT_SYMTAB:
			dy->symtab = val;
			break;
		case DT_HASH:
			dy->hash = val;
			break;
		case DT_GNU_HASH:
			dy->gnu_hash = val;
			break;
		case DT_VERNEED:
			dy->verneed = val;
			break;
		case DT_VERNEEDNUM:
			dy->verneednum = val;
			break;
		case DT_VERDEF:
			dy->verdef = val;
			break;
		case DT_VERDEFNUM:
			dy->verdefnum = val;
			break;
		}
	}
}

/* The string table is found by its address, through the PT_LOAD
 * segments, as ld.so finds it; every offset into it is checked. */
static int read_dynamic_strings(const struct rd *r, const struct dyn *dy, const struct load *loads,
				size_t nloads, const char *name, struct elf_file *f)
{
	uint64_t want[] = { dy->soname, dy->rpath, dy->runpath };
	char **dst[] = { &f->soname, &f->rpath, &f->runpath };
	uint64_t str_off, avail, strsz = dy->strsz;
	const char *tab;

	if (!dy->nneeded && dy->soname == UINT64_MAX && dy->rpath == UINT64_MAX && dy->runpath == UINT64_MAX)
		return 0;
	if (!dy->have_strtab || !vaddr_to_offset(loads, nloads, dy->strtab, &str_off, &avail))
		return err_set("%s: malformed ELF: dynamic string table not in any loaded segment", name);
	/* ld.so never reads DT_STRSZ; without one, the segment bounds it. */
	if (!strsz || strsz > avail)
		strsz = avail;
	if (!in_file(r, str_off, strsz))
		return err_set("%s: malformed ELF: dynamic string table beyond end of file", name);
	tab = (const char *)r->p + str_off;
	for (size_t i = 0; i < dy->nneeded + 3; i++) {
		uint64_t o = i < dy->nneeded ? dy->needed[i] : want[i - dy->nneeded];
		const char *nul;
		if (i >= dy->nneeded && o == UINT64_MAX)
			continue;
		nul = o < strsz ? memchr(tab + o, '\0', strsz - o) : NULL;
		if (!nul)
			return err_set("%s: malformed ELF: dynamic string offset %llu out of range", name,
				       (unsigned long long)o);
		if (i < dy->nneeded)
			strv_push(&f->needed, tab + o);
		else
			*dst[i - dy->nneeded] = xstrdup(tab + o);
	}
	return 0;
}

/* 4 bytes at address addr, or false when no segment holds them. */
static bool word_at(const struct rd *r, const struct load *loads, size_t nloads, uint64_t addr,
		    uint32_t *v)
{
	uint64_t off, avail;

	if (!vaddr_to_offset(loads, nloads, addr, &off, &avail) || avail < 4 || !in_file(r, off, 4))
		return false;
	*v = (uint32_t)get(r, r->p + off, 4);
	return true;
}

/* How many entries the dynamic symbol table has: DT_HASH says it
 * (nchain); DT_GNU_HASH only through its last chain, which ends at the
 * highest symbol index. 0 when neither can tell. */
static uint64_t count_symbols(const struct rd *r, const struct dyn *dy, const struct load *loads,
			      size_t nloads)
{
	uint32_t nbuckets, symoffset, bloom, b, c, last = 0;
	uint64_t buckets, chains;

	if (dy->hash && word_at(r, loads, nloads, dy->hash + 4, &c))
		return c;
	if (!dy->gnu_hash || !word_at(r, loads, nloads, dy->gnu_hash, &nbuckets) ||
	    !word_at(r, loads, nloads, dy->gnu_hash + 4, &symoffset) ||
	    !word_at(r, loads, nloads, dy->gnu_hash + 8, &bloom))
		return 0;
	buckets = dy->gnu_hash + 16 + (uint64_t)bloom * (r->is64 ? 8 : 4);
	for (uint32_t i = 0; i < nbuckets; i++) {
		if (!word_at(r, loads, nloads, buckets + 4ull * i, &b))
			return 0;
		if (b > last)
			last = b;
	}
	if (last < symoffset)
		return symoffset;
	chains = buckets + 4ull * nbuckets;
	/* bit 0 ends a chain; the file bounds the walk */
	for (;;) {
		if (!word_at(r, loads, nloads, chains + 4ull * (last - symoffset), &c))
			return 0;
		if (c & 1)
			return (uint64_t)last + 1;
		last++;
	}
}

/* The dynamic symbols' names: undefined ones, and the global or weak
 * ones this file defines. A table that cannot be read leaves both empty. */
static void read_symbols(const struct rd *r, const struct dyn *dy, const struct load *loads,
			 size_t nloads, struct elf_symbols *s)
{
	uint64_t n = count_symbols(r, dy, loads, nloads), sz = SIZEOF(r, Sym);
	uint64_t off, avail, str_off, str_avail;
	const char *tab;

	if (!n || !dy->symtab || !dy->have_strtab ||
	    !vaddr_to_offset(loads, nloads, dy->symtab, &off, &avail) || n > avail / sz ||
	    !in_file(r, off, n * sz) ||
	    !vaddr_to_offset(loads, nloads, dy->strtab, &str_off, &str_avail) ||
	    !in_file(r, str_off, str_avail))
		return;
	tab = (const char *)r->p + str_off;
	for (uint64_t i = 1; i < n; i++) {
		const unsigned char *sym = r->p + off + i * sz;
		uint64_t name = FIELD(r, sym, Sym, st_name);
		unsigned bind = (unsigned)FIELD(r, sym, Sym, st_info) >> 4;
		bool undef = FIELD(r, sym, Sym, st_shndx) == SHN_UNDEF;
		if (!name || name >= str_avail || !memchr(tab + name, '\0', str_avail - name))
			continue;
		if (undef)
			strv_push(&s->undefined, tab + name);
		else if (bind == STB_GLOBAL || bind == STB_WEAK)
			strv_push(&s->defined, tab + name);
	}
}

/* The string at offset o of the dynamic string table, or NULL. */
static const char *dyn_string(const struct rd *r, const struct dyn *dy, const struct load *loads,
			      size_t nloads, uint64_t o)
{
	uint64_t off, avail;
	const char *tab;

	if (!dy->have_strtab || !vaddr_to_offset(loads, nloads, dy->strtab, &off, &avail) ||
	    !in_file(r, off, avail) || o >= avail)
		return NULL;
	tab = (const char *)r->p + off;
	return memchr(tab + o, '\0', avail - o) ? tab + o : NULL;
}

/* Symbol versions (the same layout in both classes): "FILE:VERSION" for
 * each one DT_VERNEED asks of a library, and the names DT_VERDEF
 * defines. Every entry is checked; counts bound the walks. */
static void read_versions(const struct rd *r, const struct dyn *dy, const struct load *loads,
			  size_t nloads, struct elf_symbols *s)
{
	uint64_t at = dy->verneed;

	for (uint64_t i = 0; at && i < dy->verneednum && i < 4096; i++) {
		uint32_t cnt, file, aux, next;
		const char *fname;
		if (!word_at(r, loads, nloads, at, &cnt) || !word_at(r, loads, nloads, at + 4, &file) ||
		    !word_at(r, loads, nloads, at + 8, &aux) || !word_at(r, loads, nloads, at + 12, &next))
			return;
		cnt >>= r->be ? 0 : 16; /* vn_cnt: the second half-word */
		cnt &= 0xffff;
		fname = dyn_string(r, dy, loads, nloads, file);
		for (uint64_t a = at + aux, k = 0; fname && k < cnt; k++) {
			uint32_t vname, vnext;
			const char *v;
			if (!word_at(r, loads, nloads, a + 8, &vname) ||
			    !word_at(r, loads, nloads, a + 12, &vnext))
				return;
			v = dyn_string(r, dy, loads, nloads, vname);
			if (v)
				strv_push_owned(&s->need_versions, xasprintf("%s:%s", fname, v));
			if (!vnext)
				break;
			a += vnext;
		}
		if (!next)
			break;
		at += next;
	}
	at = dy->verdef;
	for (uint64_t i = 0; at && i < dy->verdefnum && i < 4096; i++) {
		uint32_t aux, next, vname;
		const char *v;
		if (!word_at(r, loads, nloads, at + 12, &aux) ||
		    !word_at(r, loads, nloads, at + 16, &next) ||
		    !word_at(r, loads, nloads, at + aux, &vname))
			return;
		v = dyn_string(r, dy, loads, nloads, vname);
		if (v)
			strv_push(&s->versions, v);
		if (!next)
			break;
		at += next;
	}
}

static int parse_dynamic(const struct rd *r, uint64_t off, uint64_t size, const struct load *loads,
			 size_t nloads, const char *name, struct elf_file *f)
{
	struct dyn dy = { 0 };
	int ret;

	scan_dynamic(r, off, size, &dy);
	ret = read_dynamic_strings(r, &dy, loads, nloads, name, f);
	if (ret == 0 && r->syms) {
		read_symbols(r, &dy, loads, nloads, r->syms);
		read_versions(r, &dy, loads, nloads, r->syms);
	}
	free(dy.needed);
	return ret;
}

/* e_ident and the ELF header: class and byte order (which decide how
 * everything else is read), type and machine. 0 when p is no ELF. */
static int parse_header(struct rd *r, const char *name, struct elf_file *f)
{
	const unsigned char *p = r->p;

	if (r->n < SELFMAG || memcmp(p, ELFMAG, SELFMAG) != 0)
		return 0;
	if (r->n < EI_NIDENT)
		return err_set("%s: malformed ELF: truncated header", name);
	f->cls = p[EI_CLASS];
	f->data = p[EI_DATA];
	if (f->cls != ELFCLASS32 && f->cls != ELFCLASS64)
		return err_set("%s: malformed ELF: unknown class %u", name, f->cls);
	if (f->data != ELFDATA2LSB && f->data != ELFDATA2MSB)
		return err_set("%s: malformed ELF: unknown byte order %u", name, f->data);
	r->is64 = f->cls == ELFCLASS64;
	r->be = f->data == ELFDATA2MSB;
	if (r->n < SIZEOF(r, Ehdr))
		return err_set("%s: malformed ELF: truncated header", name);
	f->type = (uint16_t)FIELD(r, p, Ehdr, e_type);
	f->machine = (uint16_t)FIELD(r, p, Ehdr, e_machine);
	return 1;
}

struct phdrs {
	uint64_t off, entsize, num;
};

/* Where the program headers are and how many: more than 0xfffe and the
 * count lives in section header 0's sh_info. */
static int find_program_headers(const struct rd *r, const char *name, struct phdrs *ph)
{
	const unsigned char *p = r->p;

	ph->off = FIELD(r, p, Ehdr, e_phoff);
	ph->entsize = FIELD(r, p, Ehdr, e_phentsize);
	ph->num = FIELD(r, p, Ehdr, e_phnum);
	if (ph->num == PN_XNUM) {
		uint64_t shoff = FIELD(r, p, Ehdr, e_shoff);
		if (!shoff || !in_file(r, shoff, SIZEOF(r, Shdr)))
			return err_set("%s: malformed ELF: section header 0 out of range", name);
		ph->num = FIELD(r, p + shoff, Shdr, sh_info);
	}
	if (ph->num && (ph->entsize < SIZEOF(r, Phdr) || !in_file(r, ph->off, ph->num * ph->entsize)))
		return err_set("%s: malformed ELF: program headers out of range", name);
	return 0;
}

struct segments {
	struct load *loads;
	size_t nloads;
	uint64_t dyn_off, dyn_size;
	bool have_dyn;
};

/* One program header: PT_LOAD kept for address lookups, the first
 * PT_INTERP, PT_DYNAMIC for later, .note.dlopen notes read now. */
static int parse_segment(const struct rd *r, const unsigned char *ph, uint64_t i, const char *name,
			 struct segments *sg, struct elf_file *f)
{
	uint32_t type = (uint32_t)FIELD(r, ph, Phdr, p_type);
	uint64_t off = FIELD(r, ph, Phdr, p_offset);
	uint64_t filesz = FIELD(r, ph, Phdr, p_filesz);
	const char *s;

	if (type != PT_LOAD && type != PT_INTERP && type != PT_DYNAMIC && type != PT_NOTE)
		return 0;
	if (!in_file(r, off, filesz))
		return err_set("%s: malformed ELF: segment %llu beyond end of file", name, (unsigned long long)i);
	switch (type) {
	case PT_LOAD:
		sg->loads[sg->nloads].vaddr = FIELD(r, ph, Phdr, p_vaddr);
		sg->loads[sg->nloads].offset = off;
		sg->loads[sg->nloads++].filesz = filesz;
		break;
	case PT_INTERP:
		if (f->interp)
			break;
		s = (const char *)r->p + off;
		if (!filesz || !memchr(s, '\0', filesz) || !*s)
			return err_set("%s: malformed ELF: bad interpreter string", name);
		f->interp = xstrdup(s);
		break;
	case PT_DYNAMIC:
		sg->have_dyn = true;
		sg->dyn_off = off;
		sg->dyn_size = filesz;
		break;
	case PT_NOTE:
		parse_notes(r, off, filesz, FIELD(r, ph, Phdr, p_align), name, f);
		break;
	}
	return 0;
}

int elf_parse_symbols(const void *buf, size_t n, const char *name, struct elf_file *f,
		      struct elf_symbols *syms)
{
	struct rd r = { .p = buf, .n = n, .syms = syms };
	struct phdrs ph;
	struct segments sg = { 0 };
	int ret;

	memset(f, 0, sizeof(*f));
	ret = parse_header(&r, name, f);
	if (ret <= 0)
		return ret;
	if (find_program_headers(&r, name, &ph) < 0)
		return err_code();
	sg.loads = xmalloc((ph.num ? ph.num : 1) * sizeof(*sg.loads));
	for (uint64_t i = 0; i < ph.num && ret > 0; i++)
		if (parse_segment(&r, r.p + ph.off + i * ph.entsize, i, name, &sg, f) < 0)
			ret = err_code();
	if (ret > 0 && sg.have_dyn && parse_dynamic(&r, sg.dyn_off, sg.dyn_size, sg.loads, sg.nloads, name, f) < 0)
		ret = err_code();
	free(sg.loads);
	if (ret < 0)
		elf_file_free(f);
	return ret;
}

int elf_parse(const void *buf, size_t n, const char *name, struct elf_file *f)
{
	return elf_parse_symbols(buf, n, name, f, NULL);
}

static int parse_path(const char *path, struct elf_file *f, struct elf_symbols *syms)
{
	struct stat st;
	void *map;
	int fd, r;

	memset(f, 0, sizeof(*f));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_errno(errno, "%s", path);
	if (fstat(fd, &st) < 0) {
		r = err_errno(errno, "%s", path);
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return err_set("%s: not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return err_errno(errno, "mmap %s", path);
	r = elf_parse_symbols(map, (size_t)st.st_size, path, f, syms);
	munmap(map, (size_t)st.st_size);
	return r;
}

int elf_parse_path(const char *path, struct elf_file *f)
{
	return parse_path(path, f, NULL);
}

int elf_symbols_path(const char *path, struct elf_symbols *s)
{
	struct elf_file f;
	int r;

	memset(s, 0, sizeof(*s));
	r = parse_path(path, &f, s);
	elf_file_free(&f);
	if (r <= 0)
		elf_symbols_free(s);
	return r;
}

void elf_symbols_free(struct elf_symbols *s)
{
	strv_free(&s->undefined);
	strv_free(&s->defined);
	strv_free(&s->need_versions);
	strv_free(&s->versions);
}

void elf_file_free(struct elf_file *f)
{
	free(f->interp);
	free(f->soname);
	free(f->rpath);
	free(f->runpath);
	strv_free(&f->needed);
	for (size_t i = 0; i < f->n_dlopen; i++)
		strv_free(&f->dlopen[i].sonames);
	free(f->dlopen);
	memset(f, 0, sizeof(*f));
}
