// SPDX-License-Identifier: GPL-2.0-or-later
/* --add-files SRC[:DST]: host files and trees into the image, each under
 * the name asked for. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/build/build.h"
#include "gen/image/image.h"
#include "util.h"

static bool is_root_path(const char *path)
{
	char *n = path_normalize(path);
	bool r = strcmp(n, "/") == 0;
	free(n);
	return r;
}

/* --add-files SRC[:DST]: a directory is added with everything under it. */
static struct image *walk_img;
static const char *walk_src, *walk_dst;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char *dst = path_join(walk_dst, path + strlen(walk_src));
	int r = 0;
	(void)ftw;
	if (type == FTW_D)
		r = image_add_dir(walk_img, dst, st->st_mode);
	else if (type == FTW_SL) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			r = err_errno(errno, "%s", path);
		else {
			target[n] = '\0';
			r = image_add_symlink(walk_img, dst, target);
		}
	} else if (type == FTW_F && S_ISREG(st->st_mode))
		r = image_add_file(walk_img, dst, path, st->st_mode & 07777, 0);
	else
		r = err_set("%s: cannot add (not a file, directory or symlink, or unreadable)", path);
	free(dst);
	return r < 0 ? 1 : 0;
}

int add_host_files(struct image *img, const struct strv *files)
{
	for (size_t i = 0; i < files->n; i++) {
		char *spec = xstrdup(files->v[i]);
		char *colon = strchr(spec, ':');
		const char *dst = spec;
		struct stat st;
		int r;

		if (colon) {
			*colon = '\0';
			dst = colon + 1;
		}
		if (!*spec || !*dst) {
			free(spec);
			return err_set("--add-files: bad entry '%s' (expected SRC[:DST])", files->v[i]);
		}
		if (stat(spec, &st) < 0) {
			r = err_errno(errno, "--add-files: %s", spec);
		} else if (!S_ISDIR(st.st_mode) && is_root_path(dst)) {
			/* the root is a directory: a file there would be dropped */
			r = err_set("--add-files: '%s': a file cannot be the image's root (name the file: %s:/DIR/NAME)",
				    files->v[i], spec);
		} else if (S_ISDIR(st.st_mode)) {
			walk_img = img;
			walk_src = spec;
			walk_dst = dst;
			r = nftw(spec, walk_one, 32, FTW_PHYS) == 0 ? 0 : err_code();
		} else {
			r = image_add_file(img, dst, spec, 0, 0);
		}
		free(spec);
		if (r < 0)
			return r;
	}
	return 0;
}
