// SPDX-License-Identifier: GPL-2.0-or-later
/* The gen_init_cpio list format (format_gen_init_cpio.h). */
#include "gen/image/format_gen_init_cpio.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "err.h"
#include "gen/host/rmtree.h"
#include "gen/image/output.h"
#include "gen/read/imagefile.h"

/* gen_init_cpio splits its lines on white space and expands ${VAR} in
 * file locations: neither can be quoted. */
static int check_word(const char *what, const char *s, size_t n, const char *entry)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c == 0x7f)
			return err_set("entry \"%s\": %s has white space or a control character, "
				       "which a gen_init_cpio list cannot hold", entry, what);
		if (c == '$' && i + 1 < n && s[i + 1] == '{')
			return err_set("entry \"%s\": %s has \"${\", which gen_init_cpio would expand",
				       entry, what);
	}
	return 0;
}

int gen_init_cpio_line(struct buf *out, const struct cpio_entry *e, const void *data,
		       const char *contents)
{
	const char *name = e->name;
	unsigned perm = e->mode & 07777;

	while (*name == '/')
		name++;
	if (!*name || strcmp(name, ".") == 0)
		return 0; /* the root: gen_init_cpio has no line for it */
	if (check_word("its name", name, strlen(name), e->name) < 0)
		return err_code();
	switch (e->mode & S_IFMT) {
	case S_IFDIR:
		buf_printf(out, "dir /%s %o %u %u\n", name, perm, e->uid, e->gid);
		break;
	case S_IFREG:
		buf_printf(out, "file /%s %s/%s %o %u %u\n", name, contents, name, perm, e->uid, e->gid);
		break;
	case S_IFLNK:
		if (e->size == 0 || memchr(data, '\0', e->size))
			return err_set("entry \"%s\": symlink with an empty or NUL-holding target", e->name);
		if (check_word("its link target", data, e->size, e->name) < 0)
			return err_code();
		buf_printf(out, "slink /%s %.*s %o %u %u\n", name, (int)e->size, (const char *)data, perm,
			   e->uid, e->gid);
		break;
	case S_IFCHR:
	case S_IFBLK:
		buf_printf(out, "nod /%s %o %u %u %c %u %u\n", name, perm, e->uid, e->gid,
			   S_ISCHR(e->mode) ? 'c' : 'b', e->rdev_major, e->rdev_minor);
		break;
	case S_IFIFO:
		buf_printf(out, "pipe /%s %o %u %u\n", name, perm, e->uid, e->gid);
		break;
	case S_IFSOCK:
		buf_printf(out, "sock /%s %o %u %u\n", name, perm, e->uid, e->gid);
		break;
	default:
		return err_set("entry \"%s\": unknown file type %#o", e->name, e->mode & S_IFMT);
	}
	return 0;
}

/* The cpio is the one archive build just wrote: read it directly, so a
 * refusal names the entry, not the temporary file. */
static int list_entries(const char *cpio_path, struct buf *out, const char *contents)
{
	struct cpio_reader rd;
	struct cpio_entry e;
	const uint8_t *data;
	char *buf;
	size_t len;
	int r = read_file(cpio_path, &buf, &len);

	if (r < 0)
		return err_errno(r, "%s", cpio_path);
	cpio_reader_init(&rd, buf, len);
	while ((r = cpio_read_next(&rd, &e, &data)) > 0)
		if (gen_init_cpio_line(out, &e, data, contents) < 0) {
			r = err_code();
			break;
		}
	cpio_reader_free(&rd);
	free(buf);
	return r;
}

/* Only a directory this command made (LIST.d) is removed, never what a
 * link there points to. */
static int remove_tree(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? 0 : err_errno(errno, "%s", dir);
	if (!S_ISDIR(st.st_mode))
		return err_set("%s: not a directory; refusing to replace it", dir);
	rm_tree(dir);
	return 0;
}

int gen_init_cpio_write(const char *cpio_path, const char *list)
{
	char *copy = xstrdup(list), *parent, *real = NULL, *contents = NULL, *fresh = NULL, *old = NULL;
	struct buf list_text = { 0 };
	struct output out = { .fd = -1, .dirfd = -1 };
	struct stat st;
	int r;

	parent = dirname(copy);
	real = realpath(parent, NULL);
	if (!real) {
		r = err_errno(errno, "%s", parent);
		goto out;
	}
	{
		char *base = xstrdup(list);
		contents = xasprintf("%s%s%s.d", real, strcmp(real, "/") ? "/" : "", basename(base));
		free(base);
	}
	r = check_word("the contents directory", contents, strlen(contents), list);
	if (r < 0)
		goto out;
	if (lstat(contents, &st) == 0 && !S_ISDIR(st.st_mode)) {
		r = err_set("%s: not a directory; refusing to replace it", contents);
		goto out;
	}
	fresh = xasprintf("%s.new-XXXXXX", contents);
	if (!mkdtemp(fresh)) {
		r = err_errno(errno, "%s", fresh);
		free(fresh);
		fresh = NULL;
		goto out;
	}
	r = image_extract(cpio_path, fresh, EXTRACT_NODES_ELSEWHERE);
	if (r == 0) {
		buf_printf(&list_text, "# uniramfs: gen_init_cpio list; the files are in %s\n", contents);
		r = list_entries(cpio_path, &list_text, contents);
	}
	if (r == 0)
		r = output_open(&out, list);
	if (r == 0 && write_all(out.fd, list_text.p, list_text.len) < 0)
		r = err_errno(errno, "%s", list);
	if (r == 0) {
		/* the old tree steps aside, the new one takes its name, and
		 * only then does the list that names it */
		old = xasprintf("%s.old-XXXXXX", contents);
		if (lstat(contents, &st) == 0) {
			if (!mkdtemp(old) || rmdir(old) < 0 || rename(contents, old) < 0)
				r = err_errno(errno, "%s", contents);
		} else {
			free(old);
			old = NULL;
		}
	}
	if (r == 0 && rename(fresh, contents) < 0) {
		r = err_errno(errno, "%s", contents);
		if (old && rename(old, contents) == 0) {
			free(old);
			old = NULL;
		}
	}
	if (r == 0) {
		free(fresh);
		fresh = NULL;
		r = output_commit(&out);
	}
	if (old)
		remove_tree(old);
out:
	if (fresh)
		remove_tree(fresh);
	free(fresh);
	output_abort(&out);
	buf_free(&list_text);
	free(old);
	free(contents);
	free(real);
	free(copy);
	return r;
}
