// SPDX-License-Identifier: GPL-2.0-or-later
#include "image_helpers.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>

#include "cpio.h"
#include "gen/image/image.h"
#include "must.h"

void add_archive(struct buf *img, enum compression c, const struct ent *ents, size_t n)
{
	struct sink *mem = sink_mem_new();
	struct sink *z = compress_sink_new(c, mem, -1, 1);
	struct cpio_writer *w = cpio_writer_new(z);
	const void *d;
	size_t len;

	for (size_t i = 0; i < n; i++) {
		struct cpio_entry e = {
			.name = ents[i].name, .mode = ents[i].mode, .mtime = 1000,
			.nlink = ents[i].nlink ? ents[i].nlink : 1,
			.size = ents[i].data ? strlen(ents[i].data) : 0,
			.ino = ents[i].ino ? ents[i].ino : (uint32_t)i + 1,
			.rdev_major = ents[i].major, .rdev_minor = ents[i].minor,
			.uid = ents[i].uid, .gid = ents[i].gid,
		};
		MUST(cpio_write(w, &e, ents[i].data) == 0);
	}
	MUST(cpio_write_trailer(w) == 0);
	MUST(sink_finish(z) == 0);
	d = sink_mem_data(mem, &len);
	buf_append(img, d, len);
	cpio_writer_free(w);
	sink_free(z);
	sink_free(mem);
}

char *tmpdir(void)
{
	char *d = xstrdup("/tmp/uniramfs-test-image-XXXXXX");
	MUST(mkdtemp(d) != NULL);
	return d;
}

char *write_tmp(const char *dir, const char *name, const struct buf *b)
{
	char *p = path_join(dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	MUST(fd >= 0 && write_all(fd, b->p, b->len) == 0);
	close(fd);
	return p;
}

void rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	MUST(system(cmd) == 0);
	free(cmd);
}

int exists(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel);
	struct stat st;
	int r = lstat(p, &st) == 0;
	free(p);
	return r;
}

bool image_file_of(struct image *img, const char *path, struct buf *out)
{
	struct sink *s = sink_mem_new();
	struct cpio_writer *w = cpio_writer_new(s);
	struct cpio_reader rd;
	struct cpio_entry e;
	const uint8_t *data;
	bool found = false;
	size_t n;
	const void *p;

	memset(out, 0, sizeof(*out));
	MUST(image_write_cpio(img, w, 0) == 0);
	MUST(cpio_write_trailer(w) == 0);
	p = sink_mem_data(s, &n);
	cpio_reader_init(&rd, p, n);
	while (!found && cpio_read_next(&rd, &e, &data) == 1)
		if (strcmp(e.name, path) == 0 && S_ISREG(e.mode)) {
			buf_append(out, data, e.size);
			buf_append(out, "", 1);
			out->len--;
			found = true;
		}
	cpio_reader_free(&rd);
	cpio_writer_free(w);
	sink_free(s);
	return found;
}
