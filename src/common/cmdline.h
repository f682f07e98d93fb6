/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_CMDLINE_H
#define UNIRAMFS_CMDLINE_H
#endif
