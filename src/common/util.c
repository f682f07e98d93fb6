// SPDX-License-Identifier: GPL-2.0-or-later
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void oom(void)
{
	static const char msg[] = "out of memory\n";
	ssize_t r = write(2, msg, sizeof(msg) - 1);
	(void)r;
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *grow_array(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 8;

	if (need <= *cap)
		return p;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			oom();
		c *= 2;
	}
	p = xrealloc(p, c * size);
	*cap = c;
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	va_end(ap);
	return p;
}

void strv_push_owned(struct strv *s, char *str)
{
	ARRAY_GROW(s->v, s->cap, s->n + 2);
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
}

void strv_push(struct strv *s, const char *str)
{
	strv_push_owned(s, xstrdup(str));
}

bool strv_contains(const struct strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort_uniq(struct strv *s)
{
	size_t j = 0;
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_str);
	for (size_t i = 1; i < s->n; i++) {
		if (strcmp(s->v[i], s->v[j]) == 0)
			free(s->v[i]);
		else
			s->v[++j] = s->v[i];
	}
	s->n = j + 1;
	s->v[s->n] = NULL;
}

void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

void strv_split(struct strv *s, const char *list, const char *seps)
{
	const char *p = list;
	while (p && *p) {
		size_t n = strcspn(p, seps);
		if (n) {
			char *item = xstrndup(p, n);
			char *t = str_trim(item);
			if (*t)
				strv_push(s, t);
			free(item);
		}
		p += n;
		if (*p)
			p++;
	}
}

void buf_append(struct buf *b, const void *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	buf_append(b, s, (size_t)n);
	free(s);
}

void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int read_file_at(int dirfd, const char *path, char **data, size_t *len)
{
	struct buf b = { 0 };
	char chunk[65536];
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0) {
			int e = errno;
			if (e == EINTR)
				continue;
			close(fd);
			buf_free(&b);
			return -e;
		}
		if (r == 0)
			break;
		buf_append(&b, chunk, (size_t)r);
	}
	close(fd);
	if (!b.p)
		buf_append(&b, "", 0);
	*data = b.p;
	if (len)
		*len = b.len;
	return 0;
}

int read_file(const char *path, char **data, size_t *len)
{
	return read_file_at(AT_FDCWD, path, data, len);
}

int read_line(const char *path, char **line)
{
	size_t len;
	int r = read_file(path, line, &len);
	if (r < 0)
		return r;
	while (len && ((*line)[len - 1] == '\n' || (*line)[len - 1] == ' '))
		(*line)[--len] = '\0';
	return 0;
}

char *read_attr(const char *dir, const char *attr)
{
	char *path = path_join(dir, attr), *line = NULL;
	if (read_line(path, &line) < 0)
		line = NULL;
	free(path);
	return line;
}

int write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	int r = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return r;
}

char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	while (la && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	return xasprintf("%.*s/%s", (int)la, a, b);
}

char *path_normalize(const char *path)
{
	size_t n = strlen(path);
	char *out = xmalloc(n + 2);
	size_t o = 0;
	const char *p = path;

	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t len = strcspn(p, "/");
		if (len == 1 && p[0] == '.') {
			/* skip */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			out[o++] = '/';
			memcpy(out + o, p, len);
			o += len;
		}
		p += len;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return out;
}

bool str_has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

bool path_has_dotdot(const char *p)
{
	for (const char *c = p; (c = strstr(c, "..")); c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '/' || !c[2]))
			return true;
	return false;
}

bool str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

char *optlist_value(const char *list, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > kl && !strncmp(p, key, kl) && p[kl] == '=')
			return xstrndup(p + kl + 1, n - kl - 1);
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

char *str_trim(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}
