/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_UTIL_H
#define UNIRAMFS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation failure is not an error path we can recover from in a
 * generator or in PID 1: these abort with a message instead. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Make room for at least need elements of size each in *p, whose
 * capacity is *cap: doubles (from 8), so appending is amortised O(1).
 * Usage: ARRAY_GROW(v, cap, n + 1); v[n++] = x; */
void *grow_array(void *p, size_t *cap, size_t need, size_t size);
#define ARRAY_GROW(p, cap, need) ((p) = grow_array((p), &(cap), (need), sizeof(*(p))))

/* A growable, NULL-terminated vector of owned strings. */
struct strv {
	char **v;
	size_t n, cap;
};
void strv_push(struct strv *s, const char *str);
void strv_push_owned(struct strv *s, char *str);
bool strv_contains(const struct strv *s, const char *str);
void strv_sort_uniq(struct strv *s);
void strv_free(struct strv *s);
/* Append the comma- or space-separated items of list to s. */
void strv_split(struct strv *s, const char *list, const char *seps);

/* A growable byte buffer. */
struct buf {
	char *p;
	size_t len, cap;
};
void buf_append(struct buf *b, const void *data, size_t n);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(struct buf *b);

/* Return 0 or -errno. *data is NUL-terminated (not counted in *len). */
int read_file(const char *path, char **data, size_t *len);
int read_file_at(int dirfd, const char *path, char **data, size_t *len);
/* Read a one-line sysfs-style attribute, trailing newline removed. */
int read_line(const char *path, char **line);
/* dir/attr's one line (sysfs), or NULL when it cannot be read. */
char *read_attr(const char *dir, const char *attr);
int write_all(int fd, const void *data, size_t n);
int mkdir_p(const char *path, mode_t mode);

char *path_join(const char *a, const char *b);
/* Lexically normalise: collapse //, drop ".", resolve ".." without
 * going above the root. Always returns an absolute path. */
char *path_normalize(const char *path);
/* A ".." component anywhere in p (first, middle or last): such a path
 * may climb out of the place it seems to name. */
bool path_has_dotdot(const char *p);
bool str_has_suffix(const char *s, const char *suffix);
bool str_has_prefix(const char *s, const char *prefix);
/* The value of KEY=VALUE in a comma-separated list ("vers=4.2,addr=…",
 * a controller's "traddr=…,trsvcid=…"), a copy; NULL when absent. */
char *optlist_value(const char *list, const char *key);
char *str_trim(char *s);

#endif
