// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading the few parts of an ELF file that decide what it needs at run
 * time. The file is untrusted input (a sysroot may hold anything): every
 * offset and size is checked against the file before it is read. */
#include "elf_parse.h"

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

/* The owner and type of systemd's ELF dlopen metadata notes. */
#define NOTE_DLOPEN_OWNER "FDO"
#define NOTE_DLOPEN_TYPE 0x407c0c0au

struct rd {
	const unsigned char *p;
	size_t n;
	bool be, is64;
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

/* ---- .note.dlopen JSON: just enough of JSON to pick out the fields we
 * use and step over everything else. ---- */

struct js {
	const char *p, *end;
};

static void js_ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool js_eat(struct js *j, char c)
{
	js_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

/* A string; its text goes to out (if not NULL), NUL-terminated. */
static int js_string(struct js *j, struct buf *out)
{
	if (!js_eat(j, '"'))
		return -1;
	while (j->p < j->end) {
		unsigned char c = (unsigned char)*j->p++;
		if (c == '"') {
			if (out)
				buf_append(out, "", 0); /* terminates */
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c == '\\') {
			if (j->p >= j->end)
				return -1;
			c = (unsigned char)*j->p++;
			switch (c) {
			case '"': case '\\': case '/': break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				/* Sonames are ASCII; anything else only has to be
				 * stepped over. */
				if (j->end - j->p < 4)
					return -1;
				unsigned v = 0;
				for (int i = 0; i < 4; i++) {
					char h = *j->p++;
					v <<= 4;
					if (h >= '0' && h <= '9')
						v |= (unsigned)(h - '0');
					else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
						v |= (unsigned)((h | 0x20) - 'a' + 10);
					else
						return -1;
				}
				c = v && v < 0x80 ? (unsigned char)v : '?';
				break;
			default:
				return -1;
			}
		}
		if (out)
			buf_append(out, &c, 1);
	}
	return -1;
}

static int js_skip(struct js *j, int depth)
{
	if (depth > 32)
		return -1;
	js_ws(j);
	if (j->p >= j->end)
		return -1;
	switch (*j->p) {
	case '"':
		return js_string(j, NULL);
	case '[':
	case '{': {
		char close = *j->p == '[' ? ']' : '}';
		bool obj = close == '}';
		j->p++;
		if (js_eat(j, close))
			return 0;
		do {
			if (obj && (js_string(j, NULL) < 0 || !js_eat(j, ':')))
				return -1;
			if (js_skip(j, depth + 1) < 0)
				return -1;
		} while (js_eat(j, ','));
		return js_eat(j, close) ? 0 : -1;
	}
	default: {
		/* number, true, false, null */
		const char *start = j->p;
		while (j->p < j->end && (strchr("+-.eE", *j->p) || (*j->p >= '0' && *j->p <= '9') ||
					 (*j->p >= 'a' && *j->p <= 'z')))
			j->p++;
		return j->p > start ? 0 : -1;
	}
	}
}

/* {"soname": ["a", "b"], "priority": "required", ...} */
static int js_dependency(struct js *j, struct elf_dlopen *d)
{
	struct buf key = { 0 }, val = { 0 };
	int r = -1;

	d->priority = ELF_DLOPEN_RECOMMENDED;
	if (!js_eat(j, '{'))
		return -1;
	if (js_eat(j, '}'))
		return 0;
	do {
		key.len = 0;
		if (js_string(j, &key) < 0 || !js_eat(j, ':'))
			goto out;
		if (strcmp(key.p, "soname") == 0) {
			if (!js_eat(j, '['))
				goto out;
			if (!js_eat(j, ']')) {
				do {
					val.len = 0;
					if (js_string(j, &val) < 0)
						goto out;
					if (val.p[0] && !strv_contains(&d->sonames, val.p))
						strv_push(&d->sonames, val.p);
				} while (js_eat(j, ','));
				if (!js_eat(j, ']'))
					goto out;
			}
		} else if (strcmp(key.p, "priority") == 0) {
			val.len = 0;
			if (js_string(j, &val) < 0)
				goto out;
			if (strcmp(val.p, "required") == 0)
				d->priority = ELF_DLOPEN_REQUIRED;
			else if (strcmp(val.p, "recommended") == 0)
				d->priority = ELF_DLOPEN_RECOMMENDED;
			else if (strcmp(val.p, "suggested") == 0)
				d->priority = ELF_DLOPEN_SUGGESTED;
			else
				d->priority = ELF_DLOPEN_UNKNOWN;
		} else if (js_skip(j, 1) < 0) {
			goto out;
		}
	} while (js_eat(j, ','));
	r = js_eat(j, '}') ? 0 : -1;
out:
	buf_free(&key);
	buf_free(&val);
	return r;
}

int elf_parse_dlopen_json(const char *json, size_t n, struct elf_file *f)
{
	struct js j = { json, json + n };
	struct elf_dlopen *v = NULL;
	size_t nv = 0;

	if (!js_eat(&j, '['))
		goto bad;
	if (!js_eat(&j, ']')) {
		do {
			v = xrealloc(v, (nv + 1) * sizeof(*v));
			memset(&v[nv], 0, sizeof(v[nv]));
			if (js_dependency(&j, &v[nv++]) < 0)
				goto bad;
		} while (js_eat(&j, ','));
		if (!js_eat(&j, ']'))
			goto bad;
	}
	js_ws(&j);
	if (j.p != j.end)
		goto bad;
	for (size_t i = 0; i < nv; i++) {
		if (!v[i].sonames.n) {
			strv_free(&v[i].sonames);
			continue;
		}
		f->dlopen = xrealloc(f->dlopen, (f->n_dlopen + 1) * sizeof(*f->dlopen));
		f->dlopen[f->n_dlopen++] = v[i];
	}
	free(v);
	return 0;
bad:
	for (size_t i = 0; i < nv; i++)
		strv_free(&v[i].sonames);
	free(v);
	return -1;
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

static int parse_dynamic(const struct rd *r, uint64_t off, uint64_t size, const struct load *loads,
			 size_t nloads, const char *name, struct elf_file *f)
{
	size_t dsz = SIZEOF(r, Dyn), nstr = 0;
	uint64_t strtab = 0, strsz = 0, str_off, avail, soname = UINT64_MAX, rpath = UINT64_MAX,
		 runpath = UINT64_MAX;
	uint64_t *needed = NULL;
	bool have_strtab = false;
	int ret = -1;

	for (uint64_t pos = 0; size - pos >= dsz; pos += dsz) {
		const unsigned char *d = r->p + off + pos;
		int64_t tag = r->is64 ? (int64_t)FIELD(r, d, Dyn, d_tag)
				      : (int32_t)(uint32_t)FIELD(r, d, Dyn, d_tag);
		uint64_t val = FIELD(r, d, Dyn, d_un);
		if (tag == DT_NULL)
			break;
		switch (tag) {
		case DT_NEEDED:
			needed = xrealloc(needed, (nstr + 1) * sizeof(*needed));
			needed[nstr++] = val;
			break;
		case DT_STRTAB:
			strtab = val;
			have_strtab = true;
			break;
		case DT_STRSZ:
			strsz = val;
			break;
		case DT_SONAME:
			soname = val;
			break;
		case DT_RPATH:
			rpath = val;
			break;
		case DT_RUNPATH:
			runpath = val;
			break;
		}
	}
	if (!nstr && soname == UINT64_MAX && rpath == UINT64_MAX && runpath == UINT64_MAX) {
		ret = 0;
		goto out;
	}
	if (!have_strtab || !vaddr_to_offset(loads, nloads, strtab, &str_off, &avail)) {
		err_set("%s: malformed ELF: dynamic string table not in any loaded segment", name);
		goto out;
	}
	/* ld.so never reads DT_STRSZ; without one, the segment bounds it. */
	if (!strsz || strsz > avail)
		strsz = avail;
	if (!in_file(r, str_off, strsz)) {
		err_set("%s: malformed ELF: dynamic string table beyond end of file", name);
		goto out;
	}

	const char *tab = (const char *)r->p + str_off;
	uint64_t want[] = { soname, rpath, runpath };
	char **dst[] = { &f->soname, &f->rpath, &f->runpath };
	for (size_t i = 0; i < nstr + 3; i++) {
		uint64_t o = i < nstr ? needed[i] : want[i - nstr];
		if (i >= nstr && o == UINT64_MAX)
			continue;
		const char *nul = o < strsz ? memchr(tab + o, '\0', strsz - o) : NULL;
		if (!nul) {
			err_set("%s: malformed ELF: dynamic string offset %llu out of range", name,
				(unsigned long long)o);
			goto out;
		}
		if (i < nstr)
			strv_push(&f->needed, tab + o);
		else
			*dst[i - nstr] = xstrdup(tab + o);
	}
	ret = 0;
out:
	free(needed);
	return ret;
}

int elf_parse(const void *buf, size_t n, const char *name, struct elf_file *f)
{
	struct rd r = { .p = buf, .n = n };
	const unsigned char *p = buf;
	struct load *loads = NULL;
	size_t nloads = 0;
	uint64_t phoff, phentsize, phnum, dyn_off = 0, dyn_size = 0;
	bool have_dyn = false;

	memset(f, 0, sizeof(*f));
	if (n < SELFMAG || memcmp(p, ELFMAG, SELFMAG) != 0)
		return 0;
	if (n < EI_NIDENT)
		return err_set("%s: malformed ELF: truncated header", name);
	f->cls = p[EI_CLASS];
	f->data = p[EI_DATA];
	if (f->cls != ELFCLASS32 && f->cls != ELFCLASS64)
		return err_set("%s: malformed ELF: unknown class %u", name, f->cls);
	if (f->data != ELFDATA2LSB && f->data != ELFDATA2MSB)
		return err_set("%s: malformed ELF: unknown byte order %u", name, f->data);
	r.is64 = f->cls == ELFCLASS64;
	r.be = f->data == ELFDATA2MSB;
	if (n < SIZEOF(&r, Ehdr))
		return err_set("%s: malformed ELF: truncated header", name);

	f->type = (uint16_t)FIELD(&r, p, Ehdr, e_type);
	f->machine = (uint16_t)FIELD(&r, p, Ehdr, e_machine);
	phoff = FIELD(&r, p, Ehdr, e_phoff);
	phentsize = FIELD(&r, p, Ehdr, e_phentsize);
	phnum = FIELD(&r, p, Ehdr, e_phnum);
	if (phnum == PN_XNUM) {
		/* The real count lives in section header 0's sh_info. */
		uint64_t shoff = FIELD(&r, p, Ehdr, e_shoff);
		if (!shoff || !in_file(&r, shoff, SIZEOF(&r, Shdr)))
			return err_set("%s: malformed ELF: section header 0 out of range", name);
		phnum = FIELD(&r, p + shoff, Shdr, sh_info);
	}
	if (phnum && (phentsize < SIZEOF(&r, Phdr) || !in_file(&r, phoff, phnum * phentsize)))
		return err_set("%s: malformed ELF: program headers out of range", name);

	loads = xmalloc((phnum ? phnum : 1) * sizeof(*loads));
	for (uint64_t i = 0; i < phnum; i++) {
		const unsigned char *ph = p + phoff + i * phentsize;
		uint32_t type = (uint32_t)FIELD(&r, ph, Phdr, p_type);
		uint64_t off = FIELD(&r, ph, Phdr, p_offset);
		uint64_t filesz = FIELD(&r, ph, Phdr, p_filesz);

		if (type != PT_LOAD && type != PT_INTERP && type != PT_DYNAMIC && type != PT_NOTE)
			continue;
		if (!in_file(&r, off, filesz)) {
			err_set("%s: malformed ELF: segment %llu beyond end of file", name,
				(unsigned long long)i);
			goto bad;
		}
		switch (type) {
		case PT_LOAD:
			loads[nloads].vaddr = FIELD(&r, ph, Phdr, p_vaddr);
			loads[nloads].offset = off;
			loads[nloads++].filesz = filesz;
			break;
		case PT_INTERP: {
			const char *s = (const char *)p + off;
			if (f->interp)
				break;
			if (!filesz || !memchr(s, '\0', filesz) || !*s) {
				err_set("%s: malformed ELF: bad interpreter string", name);
				goto bad;
			}
			f->interp = xstrdup(s);
			break;
		}
		case PT_DYNAMIC:
			have_dyn = true;
			dyn_off = off;
			dyn_size = filesz;
			break;
		case PT_NOTE:
			parse_notes(&r, off, filesz, FIELD(&r, ph, Phdr, p_align), name, f);
			break;
		}
	}
	if (have_dyn && parse_dynamic(&r, dyn_off, dyn_size, loads, nloads, name, f) < 0)
		goto bad;
	free(loads);
	return 1;
bad:
	free(loads);
	elf_file_free(f);
	return -1;
}

int elf_parse_path(const char *path, struct elf_file *f)
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
	r = elf_parse(map, (size_t)st.st_size, path, f);
	munmap(map, (size_t)st.st_size);
	return r;
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
