/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The layer row uniramfs's own LVM plugin (plugins/lvm.conf) gives, as
 * the generator writes it into an image (test_plugin_plan checks that it
 * does) and as the init's layer table takes it (test_stack drives LVM
 * through it). */
#ifndef UNIRAMFS_TEST_LVM_ROW_H
#define UNIRAMFS_TEST_LVM_ROW_H

#define LVM_ROW                                                                                  \
	"layer\tlvm\tLVM2_member\t/usr/sbin/lvm\t"                                               \
	"dm_mod,dm_snapshot,dm_thin_pool,dm_mirror,dm_cache,dm_cache_smq\trd.lvm.vg,rd.lvm.lv\t" \
	"run=vgchange -ay --sysinit\trun=vgchange -ay --sysinit -- {rd.lvm.vg}\t"               \
	"run=lvchange -ay --sysinit -- {rd.lvm.lv}\tswitch=rd.lvm\tretry-modules=dm_raid\n"

#endif
