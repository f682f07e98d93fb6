// SPDX-License-Identifier: GPL-2.0-or-later
/* `uniramfs ls`: every segment of an image and every entry in it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gen/read/image_read.h"
#include "gen/read/imagefile.h"
#include "log.h"
#include "util.h"

struct ls {
	FILE *out;
	struct buf lines; /* the current segment's entries, printed under its header */
	uint64_t total_entries;
	unsigned segments;
};

static void mode_string(uint32_t mode, char s[11])
{
	static const char rwx[] = "rwxrwxrwx";
	switch (mode & S_IFMT) {
	case S_IFDIR: s[0] = 'd'; break;
	case S_IFLNK: s[0] = 'l'; break;
	case S_IFCHR: s[0] = 'c'; break;
	case S_IFBLK: s[0] = 'b'; break;
	case S_IFIFO: s[0] = 'p'; break;
	case S_IFSOCK: s[0] = 's'; break;
	case S_IFREG: s[0] = '-'; break;
	default: s[0] = '?'; break;
	}
	for (int i = 0; i < 9; i++)
		s[i + 1] = mode & (0400u >> i) ? rwx[i] : '-';
	if (mode & S_ISUID)
		s[3] = s[3] == 'x' ? 's' : 'S';
	if (mode & S_ISGID)
		s[6] = s[6] == 'x' ? 's' : 'S';
	if (mode & S_ISVTX)
		s[9] = s[9] == 'x' ? 't' : 'T';
	s[10] = '\0';
}

/* Names come from untrusted images: keep control characters off the
 * terminal, C1 ones (U+0080-U+009F, a terminal's CSI among them) and
 * bytes that are no UTF-8 too, as the logs do (log_escape). */
static void append_name(struct buf *b, const char *s, size_t n)
{
	char *raw = xstrndup(s, n), *out = xmalloc(4 * n + 1);

	log_escape(out, 4 * n + 1, raw);
	buf_append(b, out, strlen(out));
	free(raw);
	free(out);
}

static int ls_entry(const struct segment *s, const struct cpio_entry *e, const uint8_t *data,
		    void *userdata)
{
	struct ls *ls = userdata;
	char mode[11];
	(void)s;

	mode_string(e->mode, mode);
	if (S_ISCHR(e->mode) || S_ISBLK(e->mode))
		buf_printf(&ls->lines, "%s %4u,%5u ", mode, e->rdev_major, e->rdev_minor);
	else
		buf_printf(&ls->lines, "%s %10llu ", mode, (unsigned long long)e->size);
	append_name(&ls->lines, e->name, strlen(e->name));
	if (S_ISLNK(e->mode)) {
		buf_append(&ls->lines, " -> ", 4);
		append_name(&ls->lines, (const char *)data, (size_t)e->size);
	}
	buf_append(&ls->lines, "\n", 1);
	return 0;
}

static int ls_segment(const struct segment *s, void *userdata)
{
	struct ls *ls = userdata;

	fprintf(ls->out, "segment %u: %s, %u entries, %zu bytes at offset %zu", s->n,
		compression_name(s->c), s->entries, s->size, s->offset);
	if (s->c != COMP_NONE)
		fprintf(ls->out, ", unpacks to %zu bytes (%.1f%%)", s->unpacked,
			s->unpacked ? 100.0 * (double)s->size / (double)s->unpacked : 0.0);
	fputc('\n', ls->out);
	if (ls->lines.len)
		fwrite(ls->lines.p, 1, ls->lines.len, ls->out);
	ls->lines.len = 0;
	ls->total_entries += s->entries;
	ls->segments++;
	return 0;
}

int image_ls(const char *path, FILE *out)
{
	struct ls ls = { .out = out };
	struct walk w = { .entry = ls_entry, .done = ls_segment, .userdata = &ls };
	int r = walk_file(path, &w);

	buf_free(&ls.lines);
	if (r < 0)
		return r;
	fprintf(out, "%u segment%s, %llu entries\n", ls.segments, ls.segments == 1 ? "" : "s",
		(unsigned long long)ls.total_entries);
	if (fflush(out) != 0 || ferror(out))
		return err_errno(errno, "writing the listing");
	return 0;
}

