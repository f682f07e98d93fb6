// SPDX-License-Identifier: GPL-2.0-or-later
/* systemd credentials across the hand-over. systemd's own initrd imports
 * them in its PID 1 (src/core/import-creds.c) and passes them on in
 * /run/credentials/@system and @encrypted with $CREDENTIALS_DIRECTORY
 * and $ENCRYPTED_CREDENTIALS_DIRECTORY in the environment of the root's
 * systemd, which then imports nothing itself. Without that environment
 * the root's systemd (252 and 257 alike) reads systemd.set_credential=
 * from /proc/cmdline, QEMU's fw_cfg and SMBIOS itself, but never the
 * stub's /.extra/ (gone with the initramfs) nor rd.systemd.set_credential=
 * (an initrd's word). So the init takes over only when one of those two
 * is there, and then as systemd's initrd does. */
#include "init/stages/creds.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline.h"
#include "err.h"
#include "log.h"

struct creds_ctx {
	struct init *in;
	size_t total;
	unsigned n_system, n_encrypted;
};

bool cred_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 255 || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (*p == '/' || *p == ':' || (unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			return false;
	return true;
}

/* systemd's proc_cmdline_key_streq(): '-' and '_' are the same. */
static bool key_is(const char *key, const char *want)
{
	for (; *key && *want; key++, want++)
		if (*key != *want && !((*key == '-' || *key == '_') && (*want == '-' || *want == '_')))
			return false;
	return !*key && !*want;
}

static bool room(struct creds_ctx *c, const char *name, size_t len)
{
	if (len > CRED_SIZE_MAX) {
		log_warn("credential %s is larger than %d bytes: not passed on", name, CRED_SIZE_MAX);
		return false;
	}
	if (len > CREDS_TOTAL_SIZE_MAX - c->total) {
		log_warn("credential %s: the credentials would pass %d bytes in all: not passed on",
			 name, CREDS_TOTAL_SIZE_MAX);
		return false;
	}
	return true;
}

/* DIR/NAME with data, mode 0400, never over one already there (the first
 * wins, as in systemd). 1 written, 0 not (said). */
static int put(struct creds_ctx *c, const char *dir, const char *name, const void *data, size_t len)
{
	const struct sysops *ops = c->in->ops;
	char *path;
	int fd, r;

	if (!room(c, name, len))
		return 0;
	if (((r = ops->mkdir("/run/credentials", 0755)) < 0 && r != -EEXIST) ||
	    ((r = ops->mkdir(dir, 0700)) < 0 && r != -EEXIST)) {
		log_warn("cannot create %s: %s; credential %s not passed on", dir, strerror(-r), name);
		return 0;
	}
	path = xasprintf("%s/%s", dir, name);
	fd = ops->open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (fd == -EEXIST) {
		log_debug("credential %s given twice: the first is passed on", name);
		free(path);
		return 0;
	}
	r = fd < 0 ? fd : write_all(fd, data, len);
	if (fd >= 0)
		close(fd);
	if (r < 0) {
		log_warn("cannot write %s: %s", path, strerror(-r));
		if (fd >= 0)
			ops->unlink(path);
		free(path);
		return 0;
	}
	free(path);
	c->total += len;
	return 1;
}

/* One stub credential file: a regular file, not through a link. */
static void stub_file(struct creds_ctx *c, const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file), *name;
	size_t n = strlen(file) - strlen(".cred");
	int fd = c->in->ops->open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
	struct stat st;
	char *data = NULL;
	ssize_t got;

	name = xstrndup(file, n);
	if (!cred_name_valid(name)) {
		log_warn("%s: not a credential name systemd takes: not passed on", path);
		goto out;
	}
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		log_warn("%s: not a regular file: not passed on", path);
		goto out;
	}
	if (!room(c, name, (size_t)st.st_size))
		goto out;
	data = xmalloc((size_t)st.st_size + 1);
	got = read(fd, data, (size_t)st.st_size + 1);
	if (got != st.st_size) {
		log_warn("cannot read %s: %s", path, got < 0 ? strerror(errno) : "its size changed");
		goto out;
	}
	c->n_encrypted += put(c, CREDS_ENCRYPTED_DIR, name, data, (size_t)got);
out:
	if (fd >= 0)
		close(fd);
	free(data);
	free(name);
	free(path);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* systemd-stub's credentials for this UKI, then the ESP-wide ones. */
static void stub_creds(struct creds_ctx *c)
{
	static const char *const dirs[] = { "/.extra/credentials", "/.extra/global_credentials" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *real = c->in->ops->path(dirs[i]);
		DIR *d = opendir(real);
		struct strv names = { 0 };
		struct dirent *de;

		free(real);
		while (d && (de = readdir(d)))
			if (str_has_suffix(de->d_name, ".cred") && strlen(de->d_name) > 5)
				strv_push(&names, de->d_name);
		if (d)
			closedir(d);
		if (names.n)
			qsort(names.v, names.n, sizeof(*names.v), by_name);
		for (size_t k = 0; k < names.n; k++)
			stub_file(c, dirs[i], names.v[k]);
		strv_free(&names);
	}
}

/* NAME:VALUE of a set_credential= word. */
static void cmdline_cred(struct creds_ctx *c, const struct cmdline_param *p)
{
	const char *colon = p->val ? strchr(p->val, ':') : NULL;
	char *name;

	if (!colon) {
		log_warn("%s=%s: no ':' between a name and a value: not passed on", p->key,
			 p->val ? p->val : "");
		return;
	}
	name = xstrndup(p->val, (size_t)(colon - p->val));
	if (!cred_name_valid(name))
		log_warn("%s=%s: \"%s\" is not a credential name systemd takes: not passed on",
			 p->key, p->val, name);
	else
		c->n_system += put(c, CREDS_SYSTEM_DIR, name, colon + 1, strlen(colon + 1));
	free(name);
}

static bool has_stub_creds(const struct sysops *ops)
{
	static const char *const dirs[] = { "/.extra/credentials", "/.extra/global_credentials" };
	bool any = false;

	for (size_t i = 0; i < ARRAY_SIZE(dirs) && !any; i++) {
		char *real = ops->path(dirs[i]);
		DIR *d = opendir(real);
		struct dirent *de;

		free(real);
		while (d && !any && (de = readdir(d)))
			any = str_has_suffix(de->d_name, ".cred");
		if (d)
			closedir(d);
	}
	return any;
}

/* The UKI's system and configuration extensions are the initrd's own
 * (systemd-sysext merges them into the initrd's /usr); said, not used. */
static void say_extensions(const struct sysops *ops)
{
	static const char *const dirs[] = { "/.extra/sysext", "/.extra/confext" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *real = ops->path(dirs[i]);
		DIR *d = opendir(real);
		struct dirent *de;
		bool any = false;

		free(real);
		while (d && !any && (de = readdir(d)))
			any = de->d_name[0] != '.';
		if (d)
			closedir(d);
		if (any)
			log_info("%s: extension images for an initrd that runs systemd-sysext: "
				 "not merged here, and not the root's", dirs[i]);
	}
}

void creds_handover(struct init *in, struct strv *env)
{
	struct creds_ctx c = { .in = in };
	struct cmdline cl = { 0 };
	char *real = in->ops->path("/proc/cmdline"), *text = NULL;
	bool rd = false, import = true;

	say_extensions(in->ops);
	if (read_file(real, &text, NULL) == 0)
		cmdline_parse(&cl, text);
	free(real);
	free(text);
	for (size_t i = 0; i < cl.n; i++) {
		const char *k = cl.p[i].key;
		bool b;
		if ((key_is(k, "systemd.import_credentials") || key_is(k, "rd.systemd.import_credentials")) &&
		    cl.p[i].val && cmdline_parse_bool(cl.p[i].val, &b) == 0)
			import = b;
		rd |= key_is(k, "rd.systemd.set_credential");
	}
	if (!import || (!rd && !has_stub_creds(in->ops))) {
		cmdline_free(&cl);
		return;
	}
	stub_creds(&c);
	for (size_t i = 0; i < cl.n; i++) {
		const char *k = cl.p[i].key;
		if (key_is(k, "systemd.set_credential") || key_is(k, "rd.systemd.set_credential"))
			cmdline_cred(&c, &cl.p[i]);
		else if (key_is(k, "systemd.set_credential_binary") ||
			 key_is(k, "rd.systemd.set_credential_binary"))
			log_warn("%s=: uniramfs passes on only systemd.set_credential= (text): "
				 "not passed on", k);
	}
	cmdline_free(&cl);
	if (c.n_system)
		strv_push(env, "CREDENTIALS_DIRECTORY=" CREDS_SYSTEM_DIR);
	if (c.n_encrypted)
		strv_push(env, "ENCRYPTED_CREDENTIALS_DIRECTORY=" CREDS_ENCRYPTED_DIR);
	if (c.n_system || c.n_encrypted)
		log_info("passing %u credential(s) from the command line and %u from the UKI on "
			 "to systemd", c.n_system, c.n_encrypted);
}
