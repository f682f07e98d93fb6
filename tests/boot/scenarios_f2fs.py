# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenario for a root on f2fs (issue 26): the generic image packs
fsck.f2fs where the host has f2fs-tools, checks the root with it before
the mount (its own report on the console proves it ran), then mounts it."""

import disks

F2FS = disks.Disk("f2fs", "f2fs", "5f0c1a4e-1b2d-4c3e-9f10-0000000000f2", "f2root")


def scenarios(Scenario):
    """run.py's Scenario list for f2fs."""
    return [
        Scenario("f2fs-fsck", "f2fs by UUID, checked by the image's fsck.f2fs first",
                 F2FS, "UUID=" + F2FS.uuid, ours_only=True,
                 expect=(r"root-mount=\S+ f2fs ro,",),
                 log_expect=("uniramfs: checking /dev/vda (f2fs): fsck.f2fs -a /dev/vda",
                             "Info: checkpoint state = ")),
    ]
