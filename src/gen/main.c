// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildconf.h"
#include "err.h"
#include "gen/build/build.h"
#include "gen/build/build_all.h"
#include "gen/config.h"
#include "gen/import/import.h"
#include "gen/read/imagefile.h"
#include "log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uniramfs build [OPTIONS]     make an initramfs image\n"
		"       uniramfs build --all [OPTIONS]  make the image of every installed kernel\n"
		"       uniramfs import-config [--from initramfs-tools|dracut|mkinitcpio]\n"
		"                [--sysroot DIR] [--write [--force]]\n"
		"                                    carry another generator's settings over\n"
		"       uniramfs ls IMAGE            list every segment and entry of an image\n"
		"       uniramfs extract [--preserve] IMAGE DIR\n"
		"                                    unpack an image safely into DIR\n"
		"       uniramfs --help | --version\n"
		"\n"
		"build options (each is also a key in /etc/uniramfs.conf, flags win):\n"
		"  -k, --kver KVER, -o, --output FILE, --generic, --hostonly, --fallback,\n"
		"  --compress zstd|xz|lz4|gzip|none, --compress-level N,\n"
		"  --add-modules M,..  --omit-modules M,..  --add-files SRC[:DST],..\n"
		"  --add-binaries B,..  --add-keys SRC[:DST],..  --add-hook STAGE:FILE,..\n"
		"  --keyfile-pattern GLOB,..  --ssh-hostkeys auto|yes|no\n"
		"  --plugin FILE.conf,..\n"
		"  --kmoddir DIR  --sysroot DIR  --cmdline \"...\"\n"
		"  --microcode auto|none  --ssh-unlock auto|yes|no  --squashfs auto|yes|no\n"
		"  --clevis  --overlay-tools  --live-https  --plymouth  --plymouth-theme NAME\n"
		"  --kdump   the crash kernel's image: makedumpfile saves /proc/vmcore (docs/kdump.md)\n"
		"  --init FILE\n"
		"  --config FILE  -v, --verbose\n"
		"  --kernel-tree DIR  --format cpio|gen_init_cpio\n"
		"  --uki FILE.efi  --uki-cmdline \"...\"  --uki-kernel FILE  --uki-stub FILE\n"
		"  --uki-sign-key KEY.pem --uki-sign-cert CERT.pem  --uki-ucode FILE\n"
		"  --uki-pcr-key KEY.pem --uki-pcr-public-key PUB.pem\n"
		"\n"
		"extract options:\n"
		"  --preserve  also make device nodes, keep set-id bits and owners\n"
		"              (by default nodes are skipped, each named on stderr)\n"
		"\n"
		"Config keys (also accepted with '_' for '-'):\n");
	if (f == stdout)
		config_print_keys();
	else
		fprintf(f, "  see uniramfs --help\n");
}

struct flag {
	const char *key;
	const char *value;
};

/* Flags are collected first and applied after the config files, so
 * "flags win" needs no special cases. */
static int parse_build_args(int argc, char **argv, struct build_opts *o)
{
	struct flag *flags = xcalloc(2 * (size_t)argc + 1, sizeof(*flags));
	size_t nflags = 0;
	bool have_config = false;
	int r = 0;

	for (int i = 0; i < argc && r == 0; i++) {
		const char *a = argv[i], *key, *value = NULL;
		char *name = NULL;

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(a, "-k") == 0) {
			key = "kver";
		} else if (strcmp(a, "-o") == 0) {
			key = "output";
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "-vv") == 0) {
			flags[nflags++] = (struct flag){ "verbose", "" };
			if (a[2])
				flags[nflags++] = (struct flag){ "verbose", "" };
			continue;
		} else if (strncmp(a, "--", 2) == 0) {
			const char *eq = strchr(a, '=');
			name = eq ? xstrndup(a + 2, (size_t)(eq - a - 2)) : xstrdup(a + 2);
			value = eq ? eq + 1 : NULL;
			if (strcmp(name, "config") == 0) {
				key = "config";
			} else {
				key = config_key_name(name);
				if (!key) {
					r = err_set("unknown option '%s' (see uniramfs build --help)", a);
					free(name);
					break;
				}
			}
			free(name);
			if (config_key_is_bool(key)) {
				if (value) {
					r = err_set("option '%s' takes no value", a);
					break;
				}
				flags[nflags++] = (struct flag){ key, "" };
				continue;
			}
		} else {
			r = err_set("unexpected argument '%s' (see uniramfs build --help)", a);
			break;
		}
		if (!value) {
			if (i + 1 >= argc) {
				r = err_set("option '%s' needs a value", a);
				break;
			}
			value = argv[++i];
		}
		if (strcmp(key, "config") == 0) {
			strv_push(&o->configs, value);
			have_config = true;
		} else {
			flags[nflags++] = (struct flag){ key, value };
		}
	}
	if (r == 0) {
		if (have_config)
			for (size_t i = 0; r == 0 && i < o->configs.n; i++)
				r = config_load_file(o, o->configs.v[i], true);
		else
			r = config_load_defaults(o, UNIRAMFS_SYSCONFDIR);
	}
	for (size_t i = 0; r == 0 && i < nflags; i++) {
		char where[128];
		snprintf(where, sizeof(where), "--%s", flags[i].key);
		r = config_set(o, flags[i].key, flags[i].value, where);
	}
	free(flags);
	return r;
}

static int cmd_build(int argc, char **argv)
{
	struct build_opts o;
	bool all = false;
	int r, n = 0;

	/* --all is not a config key: take it out before the key flags */
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--all") == 0)
			all = true;
		else
			argv[n++] = argv[i];
	}
	build_opts_init(&o);
	r = parse_build_args(n, argv, &o);
	if (r == 0) {
		log_set_level(o.verbose >= 2 ? LOG_DEBUG : o.verbose ? LOG_INFO : LOG_NOTICE);
		r = all ? build_all(&o) : build_image(&o);
	}
	build_opts_free(&o);
	return r;
}

/* Returns 2 (usage) or the result of the extraction. */
static int cmd_extract(int argc, char **argv)
{
	const char *args[2];
	unsigned flags = 0;
	int n = 0;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--preserve") == 0) {
			flags |= EXTRACT_PRESERVE;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "uniramfs: unknown option '%s' for extract\n", argv[i]);
			return 2;
		} else if (n < 2) {
			args[n++] = argv[i];
		} else {
			n = 3;
		}
	}
	if (n != 2) {
		fprintf(stderr, "Usage: uniramfs extract [--preserve] IMAGE DIR\n");
		return 2;
	}
	return image_extract(args[0], args[1], flags);
}

static int cmd_import_config(int argc, char **argv)
{
	const char *from = NULL, *sysroot = NULL;
	bool write = false, force = false;
	struct buf out = { 0 };
	int r;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("Usage: uniramfs import-config [--from initramfs-tools|dracut|mkinitcpio] [--sysroot DIR]\n"
			       "                              [--write [--force]]\n"
			       "Print the uniramfs.conf equivalent to another generator's configuration (under DIR,\n"
			       "default /); --write puts it in DIR/etc/uniramfs.conf, --force over an existing one.\n");
			return 0;
		} else if ((!strcmp(a, "--from") || !strcmp(a, "--sysroot")) && i + 1 < argc) {
			*(a[2] == 'f' ? &from : &sysroot) = argv[++i];
		} else if (!strncmp(a, "--from=", 7)) {
			from = a + 7;
		} else if (!strncmp(a, "--sysroot=", 10)) {
			sysroot = a + 10;
		} else if (!strcmp(a, "--write")) {
			write = true;
		} else if (!strcmp(a, "--force")) {
			force = true;
		} else {
			return err_set("import-config: unexpected argument '%s' (see uniramfs import-config --help)", a);
		}
	}
	if (force && !write)
		return err_set("import-config: --force goes with --write");
	r = import_config(sysroot, from, &out);
	if (r == 0 && write)
		r = import_write(sysroot, out.p, force);
	else if (r == 0)
		fputs(out.p, stdout);
	buf_free(&out);
	return r;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	int r;

	log_init("uniramfs", LOG_NOTICE);
	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("uniramfs %s\n", UNIRAMFS_VERSION);
		return 0;
	}
	if (strcmp(cmd, "build") == 0) {
		r = cmd_build(argc - 2, argv + 2);
	} else if (strcmp(cmd, "import-config") == 0) {
		r = cmd_import_config(argc - 2, argv + 2);
	} else if (strcmp(cmd, "ls") == 0) {
		if (argc != 3) {
			fprintf(stderr, "Usage: uniramfs ls IMAGE\n");
			return 2;
		}
		r = image_ls(argv[2], stdout);
	} else if (strcmp(cmd, "extract") == 0) {
		r = cmd_extract(argc - 2, argv + 2);
		if (r > 0)
			return r;
	} else {
		fprintf(stderr, "uniramfs: unknown command '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	if (r < 0) {
		fprintf(stderr, "uniramfs: error: %s\n", err_msg());
		return 1;
	}
	return 0;
}
