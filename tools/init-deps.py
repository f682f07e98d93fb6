#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Which file of the init calls which, read off the built objects: each
object's undefined symbols (nm -u) matched to the object that defines
them (nm --defined-only). Prints file edges, folder edges and every cycle
(docs/design.md, "Folders, and which way they depend").

  tools/init-deps.py [BUILDDIR]        (default: build)
"""
import collections
import glob
import os
import subprocess
import sys


def symbols(obj, *flags):
    out = subprocess.run(["nm", *flags, obj], capture_output=True, text=True, check=True).stdout
    return [line.split() for line in out.splitlines()]


def name(obj):
    # meson names objects src_init_core_loop.c.o; keep "core/loop"
    base = os.path.basename(obj)[: -len(".c.o")]
    base = base[len("src_init_"):] if base.startswith("src_init_") else base
    for folder in ("core", "dev", "stack", "stages", "net"):
        if base.startswith(folder + "_"):
            return folder + "/" + base[len(folder) + 1:]
    return base


def cycles(edges):
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    objs = glob.glob(os.path.join(build, "src/init/libinitstages.a.p/*.o"))
    if not objs:
        sys.exit("init-deps: no objects under %s/src/init/libinitstages.a.p (build first)" % build)
    defined = {}
    for o in objs:
        for f in symbols(o, "--defined-only"):
            if len(f) == 3 and f[1] in "TDBR":
                defined[f[2]] = name(o)
    edges = collections.defaultdict(set)
    for o in objs:
        me = name(o)
        edges[me]
        for f in symbols(o, "-u"):
            other = defined.get(f[-1])
            if other and other != me:
                edges[me].add(other)
    for v in sorted(edges):
        print("%-22s -> %s" % (v, " ".join(sorted(edges[v]))))
    folder = lambda v: v.split("/")[0] if "/" in v else v
    fedges = collections.defaultdict(set)
    for v, ws in edges.items():
        for w in ws:
            if folder(w) != folder(v):
                fedges[folder(v)].add(folder(w))
    print("\nfolders:")
    for v in sorted({folder(v) for v in edges}):
        print("%-10s -> %s" % (v, " ".join(sorted(fedges[v])) or "(itself only)"))
    found = cycles(edges)
    print()
    for comp in found:
        print("cycle (%d files): %s" % (len(comp), " ".join(comp)))
    if not found:
        print("no cycles")


if __name__ == "__main__":
    main()
