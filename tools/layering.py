#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Which file of the init calls which, read off the built objects: each
object's undefined symbols (nm -u) matched to the object that defines
them (nm --defined-only). Prints file edges, folder edges and every cycle
(docs/design.md, "Folders, and which way they depend").

  tools/init-deps.py [BUILDDIR]        (default: build)
  tools/init-deps.py --tap BUILDDIR    as a test: no cycle, and each folder
                                       uses only those after it in ORDER
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
    for folder in ("core", "dev", "stack", "stages", "netboot", "net", "remote"):
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


# Each folder may use itself and the ones after it, never one before.
ORDER = ["sequence", "main", "stages", "netboot", "stack", "remote", "dev", "net", "core"]


def tap(edges, fedges, found):
    print("1..2")
    print("%s 1 - no cycle among the init's files" % ("not ok" if found else "ok"))
    for comp in found:
        print("# cycle: " + " ".join(comp))
    wrong = ["%s -> %s" % (v, w) for v in sorted(fedges) for w in sorted(fedges[v])
             if v not in ORDER or w not in ORDER or ORDER.index(w) < ORDER.index(v)]
    print("%s 2 - folders depend one way (%s)" % ("not ok" if wrong else "ok", " > ".join(ORDER)))
    for w in wrong:
        print("# against the order: " + w)
    return 1 if found or wrong else 0


def main():
    args = sys.argv[1:]
    as_tap = args[:1] == ["--tap"]
    args = args[1:] if as_tap else args
    build = args[0] if args else "build"
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
    folder = lambda v: v.split("/")[0] if "/" in v else v
    fedges = collections.defaultdict(set)
    for v, ws in edges.items():
        for w in ws:
            if folder(w) != folder(v):
                fedges[folder(v)].add(folder(w))
    found = cycles(edges)
    if as_tap:
        return tap(edges, fedges, found)
    for v in sorted(edges):
        print("%-22s -> %s" % (v, " ".join(sorted(edges[v]))))
    print("\nfolders:")
    for v in sorted({folder(v) for v in edges}):
        print("%-10s -> %s" % (v, " ".join(sorted(fedges[v])) or "(itself only)"))
    print()
    for comp in found:
        print("cycle (%d files): %s" % (len(comp), " ".join(comp)))
    if not found:
        print("no cycles")


if __name__ == "__main__":
    sys.exit(main())
