#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The distribution test's network roots (issue 22): the Debian system
booted from nbd-server or from nfs-ganesha (tests/boot/netservers.py),
each listening on 127.0.0.1 only and reached by the guest at 10.0.2.100
through QEMU user networking with restrict=on and a guestfwd rule, as
the boot tests' network scenarios do (tests/boot/scenarios_net.py).

  netroot.py nbd VMLINUZ INITRD IMAGE LOG CMDLINE
  netroot.py nfs VMLINUZ INITRD EXPORT_DIR LOG CMDLINE

The server starts before QEMU (a guestfwd rule carries one connection
for the VM's life) and stops after it; the guest's console text goes to
LOG, the server's own log to LOG.server. tests/distro/netroot.sh checks
both. Exits 1 when the boot timed out or the server would not start.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "boot"))
sys.dont_write_bytecode = True
import netservers  # noqa: E402
import run as bootrun  # noqa: E402

PORTS = {"nbd": 10809, "nfs": 2049}

# ganesha names owners as idmapd does ("root@localdomain"); a client
# without nfsidmap (no nfs-common in the root, as the boot tests' clients
# have none either) maps such names to nobody, and every setuid-root
# program then runs as nobody (systemd's mount units fail: "must be
# superuser"). Numeric owners, as knfsd sends for sec=sys by default.
netservers.GANESHA_CONF = netservers.GANESHA_CONF.replace(
    "    Graceless = true;\n", "    Graceless = true;\n    Only_Numeric_Owners = true;\n", 1)
assert "Only_Numeric_Owners" in netservers.GANESHA_CONF


def boot(kind, vmlinuz, initrd, what, log, cmdline):
    # systemd's whole startup and a networkd restart under TCG: minutes
    bootrun.BOOT_TIMEOUT = 600
    start = netservers.start_nbd if kind == "nbd" else netservers.start_nfs
    parent = os.path.dirname(os.path.abspath(log))
    try:
        server = start(what, parent)
    except netservers.ServerError as e:
        print("the %s server did not start: %s" % (kind, e))
        return 1
    with server as s:
        nic = ["-netdev", "user,id=n0,restrict=on," + s.guestfwd(PORTS[kind]),
               "-device", "virtio-net-pci,netdev=n0"]
        text, dt, timed_out, _ = bootrun.boot(vmlinuz, initrd, [], "virtio", cmdline, log, extra=nic)
        with open(log + ".server", "w") as f:
            f.write(s.log_text())
    with open(log, "w") as f:
        f.write(text)
    print("booted in %.0f s%s" % (dt, ", timed out" if timed_out else ""))
    return 1 if timed_out else 0


def main():
    if len(sys.argv) == 7 and sys.argv[1] in PORTS:
        return boot(*sys.argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
