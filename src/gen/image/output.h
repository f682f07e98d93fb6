/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_OUTPUT_H
#define UNIRAMFS_OUTPUT_H

#include <stdint.h>

/* An image is written to an unnamed file in the target's directory
 * (O_TMPFILE), so a build that fails or is killed, even by SIGKILL,
 * leaves nothing behind; only a complete, fsynced file is given a name,
 * and rename() puts it in place of the old image at once. */
struct output {
	char *path;   /* final path */
	char *tmp;    /* named temp, only while committing or on the fallback */
	int fd;
	int dirfd;
};

/* Before any work: can an image be put at path? A directory there, or a
 * directory that is missing or not writable, is an error naming it. */
int output_check(const char *path);
int output_open(struct output *out, const char *path);
/* fsync, name, rename over path, fsync the directory. */
int output_commit(struct output *out);
/* Drop everything written; the old image stays. Safe after commit. */
void output_abort(struct output *out);

struct sink;
/* A buffered sink into out->fd. A full filesystem (ENOSPC, EDQUOT) does
 * not stop the writes: the sink stops writing and goes on counting, so
 * the build can finish the stream and say exactly how large the image
 * is; sink_finish then returns -ENOSPC (or -EDQUOT). */
struct sink *output_sink_new(struct output *out);
/* Every byte given to the sink, written or not. */
uint64_t output_sink_total(struct sink *s);

#endif
