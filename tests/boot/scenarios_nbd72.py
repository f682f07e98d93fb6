# SPDX-License-Identifier: GPL-2.0-or-later
"""dracut-ng TEST-72-NBD's encrypted case (issue 27): LVM on LUKS on NBD,
booted with the test's own command line
`root=LABEL=dracut rd.luks.uuid=UUID rd.lv.vg=dracut ip=dhcp
netroot=nbd:SERVER:EXPORT`.

The disk is laid out as dracut's create-encrypted-root.sh does it (LUKS on
the whole disk, VG dracut, LV root, ext4 labelled dracut) in the builder VM
(builder/compat-dracut-nbd-crypt-lvm.sh, cached by recipe like every
stacked layout), and exported by netservers.py's nbd-server on 127.0.0.1,
reached at 10.0.2.100 through QEMU's guestfwd; the passphrase is typed on
the console as in the other LUKS scenarios.
"""

import contextlib
import os
import shutil
import tempfile

import builder
import netservers
import scenarios_net as net
import scenarios_stack as stack

LUKS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000072c1"
NBD_CRYPT = builder.Layout("dracut72-nbd-crypt", "compat-dracut-nbd-crypt-lvm", "ext4",
                           "5f0c1a4e-1b2d-4c3e-9f10-0000000072a1", "dracut",
                           params=(("LUKS_UUID", LUKS_UUID), ("PASS", stack.PASS)))
BUILD = ["--add-modules", "virtio_pci,virtio_net,nbd"]


def nbd_layout(layout):
    """The layout's disk (a copy) exported by nbd-server."""
    def net_fn(testinit, work):
        @contextlib.contextmanager
        def ctx():
            tmp = tempfile.mkdtemp(prefix="nbd72-", dir=work)
            try:
                img = os.path.join(tmp, "nbd.img")
                shutil.copyfile(layout.build(testinit, work, net.BUILDER_ENV)[0], img)
                with netservers.start_nbd(img, tmp) as s:
                    yield [], net._nic(s.guestfwd(10809))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return ctx()
    return net_fn


def scenarios(Scenario):
    return [
        # TEST-72 "NBD root=LABEL=dracut netroot=nbd:IP:port (LUKS, LVM)"
        Scenario("nbd-test72-crypt-lvm", "root=LABEL=dracut rd.luks.uuid= rd.lv.vg=dracut "
                 "ip=dhcp netroot=nbd:SERVER:EXPORT (TEST-72): LVM on LUKS on NBD, the "
                 "passphrase typed",
                 NBD_CRYPT, "LABEL=dracut", build=BUILD, net=nbd_layout(NBD_CRYPT),
                 ours_only=True,
                 cmdline="rd.luks.uuid=%s rd.lv.vg=dracut ip=dhcp netroot=nbd:%s:%s %s" % (
                     LUKS_UUID, net.SERVER, netservers.NBD_EXPORT, net.KERNEL_NAMES),
                 interact=stack.typed("/dev/nbd0", LUKS_UUID, stack.PASS),
                 expect=(r"root-mount=/dev/(mapper/dracut-root|dm-\d+) ext4 ",),
                 log_expect=("uniramfs: NBD: connecting /dev/nbd0 to %s:10809 export %s" % (
                     net.SERVER, netservers.NBD_EXPORT),
                     "uniramfs: unlocked /dev/nbd0 as ")),
    ]
