#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Which file of a program calls which, read off the built objects: each
object's undefined symbols (nm -u) matched to the object that defines
them (nm --defined-only). Prints file edges, folder edges and every cycle
(docs/design.md: "Folders, and which way they depend", under the
generator and under the init).

  tools/layering.py PROGRAM [BUILDDIR]        PROGRAM: init or gen
                                              (BUILDDIR default: build)
  tools/layering.py --tap PROGRAM BUILDDIR    as a test: every .c file of
                                              the program's folder was
                                              found, no cycle among its
                                              files, each folder uses
                                              only those after it in its
                                              order below, and includes
                                              only their headers

Objects are found through meson's compile_commands.json and keyed by
their source's path below the program's folder ("stack/luks",
"features/stack_clevis"): the program's libraries and its executable
(main.c, the init's ops_real.c) alike; objects compiled for tests are
not the program. A file at the folder's top ("main", "sequence",
"config") is a folder of its own.

Symbols do not show a dependency on a type, a macro or an inline
function (the init's struct init, netup_settled()), so the sources'
own #include lines are checked against the same order: a file may
include the program's headers of its folder and of those after it. A
header at the top that belongs to no file of its name is placed by
"headers" below (init.h, the boot's state, is the stages' to use and no
folder's below them). In the generator, config.h (the key table) is
the config folder's and includes build/opts.h (struct build_opts, the
build's input); each enum a key sets belongs to the feature that reads
it, and the folders below the build get the fields they use.
"""
import collections
import json
import os
import re
import subprocess
import sys

# The one place each program's folder order is written down: each folder
# may use itself and the ones after it, never one before.
PROGRAMS = {
    "init": {
        "src": "src/init",
        "order": ["main", "modprobe", "ops_real", "sequence", "rootwait", "boot_inputs", "stackenv", "stages", "netboot", "stack", "remote", "tpm", "dev", "net",
                  "core"],
        "headers": {"init": "stages"},
        "includes": True,
    },
    "gen": {
        "src": "src/gen",
        "order": ["main", "import", "config", "build", "features", "plugins", "hostonly", "modules", "elf", "image",
                  "read", "compress", "host"],
        "includes": True,
    },
}


def symbols(obj, *flags):
    out = subprocess.run(["nm", *flags, obj], capture_output=True, text=True, check=True).stdout
    return [line.split() for line in out.splitlines()]


def objects(build, src):
    """{key: object} for every source below src compiled into a program
    (not a test), and the keys of every .c file the tree has there."""
    srcroot = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", src))
    with open(os.path.join(build, "compile_commands.json")) as f:
        db = json.load(f)
    found = {}
    for e in db:
        out = e["output"]
        if out.startswith("tests/") or "/tests/" in out:
            continue
        path = os.path.realpath(os.path.join(e["directory"], e["file"]))
        if not path.startswith(srcroot + "/") or not path.endswith(".c"):
            continue
        key = os.path.relpath(path, srcroot)[: -len(".c")]
        found.setdefault(key, os.path.join(e["directory"], out))
    tree = set()
    for root, _, files in os.walk(srcroot):
        for f in files:
            if f.endswith(".c"):
                tree.add(os.path.relpath(os.path.join(root, f), srcroot)[: -len(".c")])
    return found, tree


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def includes(src, order, headers):
    """"FILE includes HEADER" for each include of one of the program's
    own headers from a folder before the file's in the order."""
    srcroot = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", src))
    prefix = os.path.basename(src) + "/"

    def place(key):
        f = folder(key)
        return headers.get(f, f) if "/" not in key else f

    wrong = []
    for root, _, files in os.walk(srcroot):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, srcroot)
            mine = place(rel.rsplit(".", 1)[0])
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                if not inc.startswith(prefix):
                    continue
                theirs = place(inc[len(prefix):].rsplit(".", 1)[0])
                if mine not in order or theirs not in order:
                    wrong.append("%s includes %s (not in the order)" % (rel, inc))
                elif order.index(theirs) < order.index(mine):
                    wrong.append("%s includes %s (%s is before %s)" % (rel, inc, theirs, mine))
    return sorted(wrong)


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
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def folder(v):
    return v.split("/")[0]


def graph(objs):
    defined = {}
    for key, o in sorted(objs.items()):
        for f in symbols(o, "--defined-only"):
            if len(f) == 3 and f[1] in "TDBRV":
                defined[f[2]] = key
    edges = collections.defaultdict(set)
    for key, o in sorted(objs.items()):
        edges[key]
        for f in symbols(o, "-u"):
            other = defined.get(f[-1])
            if other and other != key:
                edges[key].add(other)
    fedges = collections.defaultdict(set)
    for v, ws in edges.items():
        for w in ws:
            if folder(w) != folder(v):
                fedges[folder(v)].add(folder(w))
    return edges, fedges


def tap(prog, order, objs, tree, edges, fedges, found, incs):
    print("1..4")
    missing = sorted(tree - set(objs))
    print("%s 1 - every .c file of src/%s is in the picture (%d objects, %d files)"
          % ("not ok" if missing or len(objs) < len(tree) else "ok", prog, len(objs), len(tree)))
    for m in missing:
        print("# no object for: %s.c" % m)
    print("%s 2 - no cycle among the %s's files" % ("not ok" if found else "ok", prog))
    for comp in found:
        print("# cycle: " + " ".join(comp))
    wrong = ["%s -> %s" % (v, w) for v in sorted(fedges) for w in sorted(fedges[v])
             if v not in order or w not in order or order.index(w) < order.index(v)]
    wrong += ["%s is in no folder of the order" % v for v in sorted({folder(v) for v in edges})
              if v not in order]
    print("%s 3 - folders depend one way (%s)" % ("not ok" if wrong else "ok", " > ".join(order)))
    for w in wrong:
        print("# against the order: " + w)
    print("%s 4 - files include only their folder's headers and those after it%s"
          % ("not ok" if incs else "ok", "" if PROGRAMS[prog].get("includes") else " # SKIP not yet"))
    for w in incs:
        print("# against the order: " + w)
    return 1 if missing or found or wrong or incs else 0


def main():
    args = sys.argv[1:]
    as_tap = args[:1] == ["--tap"]
    args = args[1:] if as_tap else args
    if not args or args[0] not in PROGRAMS:
        sys.exit("usage: layering.py [--tap] {%s} [BUILDDIR]" % ",".join(PROGRAMS))
    prog = args[0]
    build = args[1] if len(args) > 1 else "build"
    src, order = PROGRAMS[prog]["src"], PROGRAMS[prog]["order"]
    incs = (includes(src, order, PROGRAMS[prog].get("headers", {}))
            if PROGRAMS[prog].get("includes") else [])
    objs, tree = objects(build, src)
    if not objs:
        sys.exit("layering: no objects of %s in %s/compile_commands.json (build first)" % (src, build))
    missing = [o for o in objs.values() if not os.path.exists(o)]
    if missing:
        sys.exit("layering: not built yet: %s" % " ".join(missing))
    edges, fedges = graph(objs)
    found = cycles(edges)
    if as_tap:
        return tap(prog, order, objs, tree, edges, fedges, found, incs)
    for v in sorted(edges):
        print("%-26s -> %s" % (v, " ".join(sorted(edges[v]))))
    print("\nfolders:")
    for v in sorted({folder(v) for v in edges}, key=lambda f: order.index(f) if f in order else -1):
        print("%-10s -> %s" % (v, " ".join(sorted(fedges[v])) or "(itself only)"))
    print()
    for m in sorted(tree - set(objs)):
        print("no object for %s.c" % m)
    for comp in found:
        print("cycle (%d files): %s" % (len(comp), " ".join(comp)))
    if not found:
        print("no cycles")
    for w in incs:
        print("include against the order: " + w)


if __name__ == "__main__":
    sys.exit(main())
