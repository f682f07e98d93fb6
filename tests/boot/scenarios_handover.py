# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the hand-over to the root's systemd (issue 29): the
root's fstab entries with x-initrd.mount mounted before switch_root, as
systemd's initrd mounts them (src/init/stages/xinitrd.c).

The disks are made like scenarios_early.py's (mkfs -d into a file, cached
by their recipe).
"""

import disks
import scenarios_early

SRVROOT_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000029a0"
SRV_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000029a1"
SRVROOT = disks.Disk("ext4-srvroot", "ext4", SRVROOT_UUID, "srvroot")
SRV = disks.Disk("ext4-srv", "ext4", SRV_UUID, "srv", size_mb=16)
# The tmpfs below /srv comes first: mounted after /srv all the same.
# /home has no x-initrd.mount: the root's own, never mounted here.
FSTAB = ("# /etc/fstab of a root with /srv on a second disk (uniramfs boot test)\n"
         "UUID=%s / ext4 defaults 0 1\n"
         "tmpfs /srv/scratch tmpfs x-initrd.mount,size=4m,mode=0700 0 0\n"
         "UUID=%s /srv ext4 nodev,x-initrd.mount 0 2\n"
         "LABEL=home /home ext4 defaults 0 2\n"
         "# a malformed line: said and left out\n"
         "garbage\n" % (SRVROOT_UUID, SRV_UUID))


def _srv_disks():
    def build(ti, work, ctx):
        root = scenarios_early._ext4(work, ti, SRVROOT, files=(("etc/fstab", FSTAB),),
                                     dirs=("srv", "home"))
        srv = scenarios_early._ext4(work, ti, SRV, files=(("uniramfs-srv-disk", "the /srv disk\n"),),
                                    dirs=("scratch",), populate=False)
        return [root, srv]
    return scenarios_early.Disks("srv", "ext4", build)


def _srv_root_only():
    """The same root without its /srv disk."""
    def build(ti, work, ctx):
        return _srv_disks().build(ti, work, ctx)[:1]
    return scenarios_early.Disks("srv-missing", "ext4", build)


SRV_LINE = "UUID=%s /srv ext4 nodev,x-initrd.mount 0 2" % SRV_UUID


def scenarios(Scenario):
    return [
        Scenario("xinitrd-mount", "the root's fstab names /srv (UUID=, pass 2) and a tmpfs below "
                 "it with x-initrd.mount: both mounted before switch_root, parent first",
                 _srv_disks(), "UUID=" + SRVROOT_UUID, ours_only=True,
                 expect=(r"mounts: /dev/vdb /srv ext4 rw,nodev",
                         r"mounts: tmpfs /srv/scratch tmpfs rw.*size=4096k,mode=700"),
                 log_expect=("uniramfs: /sysroot/etc/fstab line 7: \"garbage\": no mount point, "
                             "ignoring it",
                             "uniramfs: checking /dev/vdb (ext4): e2fsck -a /dev/vdb",
                             "uniramfs: mounted /dev/vdb (ext4, rw) on /sysroot/srv",
                             "uniramfs: mounted tmpfs (tmpfs) on /sysroot/srv/scratch"),
                 log_absent=("/sysroot/home",)),
        Scenario("xinitrd-missing", "the x-initrd.mount /srv disk is not there: the boot stops "
                 "naming the fstab line, as systemd's required sysroot-srv.mount",
                 _srv_root_only(), "UUID=" + SRVROOT_UUID, cmdline="rd.timeout=3 rd.shell=0",
                 ours_only=True,
                 fail_msgs=("uniramfs: waiting for the /srv device UUID=%s" % SRV_UUID,
                            "uniramfs: the /srv device UUID=%s (from /sysroot/etc/fstab) did not "
                            "appear within 3 seconds; the root's /sysroot/etc/fstab line 4: "
                            "\"%s\" asks for it in the initramfs (x-initrd.mount)" % (SRV_UUID, SRV_LINE),
                            "uniramfs: not starting a shell: rd.shell=0",
                            "uniramfs: rebooting now")),
    ]
