# SPDX-License-Identifier: GPL-2.0-or-later
"""Files a scenario writes outside the tree because its image names them
by path (a plugin file, the program it points at): one directory per
checkout and user, so two checkouts' runs (CI's clone and a working
tree, a helper's worktree) never rewrite each other's between the
scenario list and the build."""

import hashlib
import os
import tempfile

SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scratch_dir(name):
    """TMPDIR/uniramfs-boot-NAME-UID-HASH, made if missing; HASH is the
    checkout's path."""
    tree = hashlib.sha256(SRCDIR.encode()).hexdigest()[:10]
    d = os.path.join(tempfile.gettempdir(), "uniramfs-boot-%s-%d-%s" % (name, os.getuid(), tree))
    os.makedirs(d, exist_ok=True)
    return d
