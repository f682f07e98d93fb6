// SPDX-License-Identifier: GPL-2.0-or-later
/* `uniramfs build --kernel-tree DIR`: a kernel straight from its build
 * directory (kernel_tree.h). */
#include "gen/modules/kernel_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "gen/host/rmtree.h"
#include "log.h"
#include "util.h"

char *kernel_release_parse(const char *text, const char *where)
{
	size_t n = strcspn(text, "\n");

	if (text[n] == '\n' && text[n + 1] != '\0')
		return err_set("%s: more than one line", where), NULL;
	if (n == 0 || n > 200)
		return err_set("%s: %s kernel version", where, n ? "overlong" : "empty"), NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '/' || c <= ' ' || c >= 0x7f)
			return err_set("%s: bad kernel version '%.*s'", where, (int)n, text), NULL;
	}
	if ((n == 1 && text[0] == '.') || (n == 2 && text[0] == '.' && text[1] == '.'))
		return err_set("%s: bad kernel version '%.*s'", where, (int)n, text), NULL;
	return xstrndup(text, n);
}

char *modules_order_path(const char *line, const char *where)
{
	const char *p = str_has_prefix(line, "kernel/") ? line + 7 : line;
	size_t n = strlen(p);
	char *copy, *comp, *save;
	bool ok = *p && *p != '/';

	copy = xstrdup(p);
	for (comp = strtok_r(copy, "/", &save); ok && comp; comp = strtok_r(NULL, "/", &save))
		ok = strcmp(comp, "..") != 0 && strcmp(comp, ".") != 0;
	free(copy);
	if (!ok || strstr(p, "//") || p[n - 1] == '/')
		return err_set("%s: bad module path '%s'", where, line), NULL;
	if (str_has_suffix(p, ".ko") && n > 3 && p[n - 4] != '/')
		return xasprintf("kernel/%s", p);
	if (str_has_suffix(p, ".o") && n > 2 && p[n - 3] != '/')
		return xasprintf("kernel/%.*s.ko", (int)(n - 2), p);
	return err_set("%s: '%s' is not a module (.ko or .o)", where, line), NULL;
}

/* CONFIG_MODULES from the tree's .config: 1 on, 0 off, -1 unknown. */
static int config_modules(const char *dir)
{
	char *path = path_join(dir, ".config"), *data, *line, *save;
	size_t len;
	int r = -1;

	if (read_file(path, &data, &len) == 0) {
		r = 0;
		for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (strcmp(line, "CONFIG_MODULES=y") == 0)
				r = 1;
		free(data);
	}
	free(path);
	return r;
}

static int copy_file(const char *src, const char *dst)
{
	char *data;
	size_t len;
	int fd, r = read_file(src, &data, &len);

	if (r < 0)
		return err_errno(r, "%s", src);
	fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = err_errno(errno, "%s", dst);
	} else {
		r = write_all(fd, data, len);
		if (close(fd) < 0 && r == 0)
			r = -errno;
		if (r < 0)
			r = err_errno(r, "%s", dst);
	}
	free(data);
	return r;
}

static int run_depmod(const struct kernel_tree *kt)
{
	char *sysmap = path_join(kt->dir, "System.map");
	const char *argv[] = { "depmod", "-b", kt->stage, "-e", "-F", sysmap, kt->kver, NULL };
	int status;
	pid_t pid;

	if (access(sysmap, R_OK) < 0) {
		argv[3] = kt->kver; /* without System.map: no symbol check */
		argv[4] = NULL;
	}
	pid = fork();
	if (pid < 0) {
		free(sysmap);
		return err_errno(errno, "fork");
	}
	if (pid == 0) {
		execvp("depmod", (char *const *)argv);
		execv("/sbin/depmod", (char *const *)argv);
		_exit(127);
	}
	free(sysmap);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_errno(errno, "waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return err_set("depmod -b %s %s failed (status %d)%s", kt->stage, kt->kver, status,
			       WIFEXITED(status) && WEXITSTATUS(status) == 127 ? ": depmod not found (kmod)" : "");
	return 0;
}

/* kernel/PATH in the stage, a link to the tree's built module. */
static int stage_module(struct kernel_tree *kt, const char *rel, const char *where)
{
	char *src = path_join(kt->dir, rel + strlen("kernel/"));
	char *dst = path_join(kt->kmoddir, rel);
	char *slash = strrchr(dst, '/');
	struct stat st;
	int r = 0;

	if (stat(src, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = err_set("%s names %s, which is not built (run make modules)", where, rel + strlen("kernel/"));
	} else {
		*slash = '\0';
		r = mkdir_p(dst, 0755);
		*slash = '/';
		if (r < 0)
			r = err_errno(r, "%s", dst);
		else if (symlink(src, dst) < 0 && errno != EEXIST)
			r = err_errno(errno, "%s", dst);
	}
	free(src);
	free(dst);
	return r;
}

static int stage_modules(struct kernel_tree *kt)
{
	char *order = path_join(kt->dir, "modules.order");
	char *data = NULL, *line, *save;
	struct buf out = { 0 };
	size_t len, lineno = 0;
	int r = read_file(order, &data, &len);

	if (r < 0) {
		r = err_errno(r, "%s (CONFIG_MODULES is set: run make modules)", order);
		goto out;
	}
	for (line = strtok_r(data, "\n", &save); r == 0 && line; line = strtok_r(NULL, "\n", &save)) {
		char where[64];
		char *rel;

		lineno++;
		snprintf(where, sizeof(where), "modules.order:%zu", lineno);
		rel = modules_order_path(line, where);
		if (!rel) {
			r = err_wrap("%s", kt->dir);
			break;
		}
		r = stage_module(kt, rel, where);
		buf_printf(&out, "%s\n", rel);
		free(rel);
	}
	if (r == 0) {
		char *dst = path_join(kt->kmoddir, "modules.order");
		int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || write_all(fd, out.p ? out.p : "", out.len) < 0)
			r = err_errno(errno, "%s", dst);
		if (fd >= 0)
			close(fd);
		free(dst);
	}
	static const char *const copied[] = { "modules.builtin", "modules.builtin.modinfo" };
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(copied); i++) {
		char *src = path_join(kt->dir, copied[i]);
		char *dst = path_join(kt->kmoddir, copied[i]);
		if (access(src, F_OK) == 0)
			r = copy_file(src, dst);
		free(src);
		free(dst);
	}
	if (r == 0)
		r = run_depmod(kt);
out:
	buf_free(&out);
	free(data);
	free(order);
	return r;
}

int kernel_tree_open(struct kernel_tree *kt, const char *dir, const char *kver)
{
	char *rel = path_join(dir, "include/config/kernel.release");
	char *text = NULL, *builtin;
	size_t len;
	int cm, r;

	memset(kt, 0, sizeof(*kt));
	kt->dir = xstrdup(dir);
	r = read_file(rel, &text, &len);
	if (r < 0) {
		r = err_errno(r, "--kernel-tree %s: no kernel release (%s; was the kernel built?)", dir, rel);
		goto out;
	}
	kt->kver = kernel_release_parse(text, rel);
	if (!kt->kver) {
		r = err_code();
		goto out;
	}
	if (kver && strcmp(kver, kt->kver) != 0) {
		r = err_set("--kernel-tree %s is kernel %s, not the %s asked for", dir, kt->kver, kver);
		goto out;
	}
	builtin = path_join(dir, "modules.builtin");
	if (access(builtin, R_OK) == 0)
		kt->builtin = builtin;
	else
		free(builtin);

	cm = config_modules(dir);
	if (cm < 0) {
		/* no .config (a tree cleaned but for the build outputs):
		 * what the build left says */
		char *order = path_join(dir, "modules.order");
		cm = access(order, F_OK) == 0;
		free(order);
	}
	kt->modules = cm == 1;
	if (!kt->modules) {
		log_info("kernel %s from %s: no module support, nothing but built-in drivers", kt->kver, dir);
		goto out;
	}
	{
		const char *tmp = getenv("TMPDIR");
		char *tmpl = xasprintf("%s/uniramfs-ktree-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(tmpl)) {
			r = err_errno(errno, "%s", tmpl);
			free(tmpl);
			goto out;
		}
		kt->stage = tmpl;
	}
	kt->kmoddir = xasprintf("%s/lib/modules/%s", kt->stage, kt->kver);
	r = mkdir_p(kt->kmoddir, 0755);
	if (r < 0)
		r = err_errno(r, "%s", kt->kmoddir);
	else
		r = stage_modules(kt);
out:
	free(text);
	free(rel);
	return r;
}

void kernel_tree_close(struct kernel_tree *kt)
{
	/* only what we made: links, copies, depmod's files */
	if (kt->stage)
		rm_tree(kt->stage);
	free(kt->dir);
	free(kt->kver);
	free(kt->stage);
	free(kt->kmoddir);
	free(kt->builtin);
	memset(kt, 0, sizeof(*kt));
}
