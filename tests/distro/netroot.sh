# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/distro/run.sh: the Debian system with its root on the
# network. (Filled in by the network hand-over work of issue 22.)
:
