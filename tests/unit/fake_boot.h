/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The machine the whole-boot tests of the init start from, on top of
 * fake_ops: a virtio disk whose driver is in the image, one PCI device
 * with no driver, a real ext4 image (made once with mkfs.ext4) as the
 * root on vda1, and the initops that stand in for uname and spawn. */
#ifndef UNIRAMFS_FAKE_BOOT_H
#define UNIRAMFS_FAKE_BOOT_H

#include <stdbool.h>
#include <sys/types.h>

#include "fake_ops.h"
#include "init/init.h"

#define KVER "6.1.0-test"
#define MODDIR "/lib/modules/" KVER
#define UUID "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
#define VIRTIO "/sys/devices/pci0000:00/0000:00:04.0"

extern struct fake_ops *fake_boot_tree;   /* the tree of the boot under test */
extern const char *fake_boot_kver;        /* what uname reports; setup resets it to KVER */
extern int fake_boot_spawns;              /* spawns that start a real child (which exits at once) */
extern char *fake_boot_ext4;              /* the ext4 image, NULL until made */
extern char *fake_boot_kernel_env[];      /* what the kernel gives /init */

int fake_boot_uname(char *buf, size_t len);
/* Logs "spawn PATH ARGV0"; fails with ENOSYS once fake_boot_spawns is used up. */
pid_t fake_boot_spawn(const char *path, char *const argv[], char *const envp[]);

bool fake_boot_make_ext4(void);
void fake_boot_remove_ext4(void);
void fake_boot_copy_into(struct fake_ops *f, const char *src, const char *dst);
/* The virtio disk vda (bound to virtio_blk by its modalias) with
 * root_image copied in as vda1. */
void fake_boot_virtio_disk(struct fake_ops *f, const char *root_image);
/* image copied in as vda2, the second partition of that disk. */
void fake_boot_virtio_part2(struct fake_ops *f, const char *image);
struct fake_ops *fake_boot_setup(const char *cmdline);
int fake_boot_run(struct fake_ops *f, struct init *in, const struct initops *xops, char **envp);

/* Whether the kept kernel log holds text (and a note on stdout if not). */
bool fake_boot_logged(const char *text);
/* A file of the tree, NULL if unreadable; the caller frees it. */
char *fake_boot_read(struct fake_ops *f, const char *p);

#endif
