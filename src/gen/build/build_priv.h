/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by build.c (what goes in) and build_write.c (how it is written:
 * the squashfs decision, the early microcode, the compressed cpio or the
 * gen_init_cpio list, atomically). Not an API: build.h is. */
#ifndef UNIRAMFS_BUILD_PRIV_H
#define UNIRAMFS_BUILD_PRIV_H

#include <stdint.h>

#include "gen/build/build.h"
#include "gen/features/console.h"
#include "gen/features/early_gen.h"
#include "gen/features/nettools.h"
#include "gen/features/ssh.h"
#include "gen/features/stack.h"
#include "gen/image/image.h"
#include "gen/image/squash.h"
#include "gen/modules/kernel_tree.h"
#include "gen/plugins/plugin.h"
#include "util.h"

struct plan {
	const struct build_opts *o;
	const char *sysroot;
	char *kver;
	char *kmoddir; /* NULL: a kernel without module support */
	struct modules *mods; /* while the plugins' modules are added (build.c) */
	struct kernel_tree kt;
	char *output;
	char *fallback; /* --fallback: the generic image beside a hostonly one */
	struct console_plan console;
	struct image *img;
	size_t nmodules;
	struct stack_plan stack; /* LUKS, LVM, md: stack.c */
	struct early_plan early; /* fsck, hooks, resume=: early_gen.c */
	struct net_plan net;     /* network roots' tools and netroot=: nettools.c */
	struct ssh_plan ssh;     /* remote unlock: ssh.c */
	struct squash_plan squash; /* the squashfs segment: squash.c */
	struct plugins plugins;    /* the packages' plugins: plugins/ */
	struct plugin_facts facts; /* what their conditions ask of the root */
};

static inline char *build_host_path(const struct plan *p, const char *path)
{
	return path_join(p->sysroot, path);
}

/* build_write.c. SOURCE_DATE_EPOCH, else 0: every image is reproducible. */
uint32_t build_source_date_epoch(void);
/* squashfs = auto|yes|no against the kernel's config and the tools. */
int build_decide_squash(struct plan *p);
/* The image (or --format gen_init_cpio's list and files) at p->output;
 * *size: its bytes. */
int build_write_image(struct plan *p, uint64_t *size);
int build_write_list(struct plan *p, uint64_t *size);

#endif
