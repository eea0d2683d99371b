#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""doclint.py [--list] [CHECK...]: the documents' facts against the tree.

make lint's "docs" check (scripts/lint.sh). Each check reads the
Markdown documents (README.md, docs/*.md, bench/README.md) and the files
that state the supported kernels, and prints one line per finding,
"FILE:LINE: what is wrong". Exit 1 on any finding, 2 on a usage error.

  targets   every `make TARGET` names a rule of the Makefiles (but
            "Debian's `make ...`", "the kernel's `make ...`")
  paths     every path in backquotes that starts with a top-level
            directory of the tree (src/, scripts/, docs/, ...) exists
            (a glob matches something; NAME-VAR parts are left alone;
            built .ko files, and names after "the kernel's" or
            "Debian's", are not the tree's)
  hazards   every hazard of docs/hazards.md (**Hn. ...**) is cited by
            code, a test or a script (the word Hn outside docs/), or its
            entry says "untested"; every Hn cited anywhere is defined
  tables    every row of a Markdown table has as many cells as its header
  kernels   the supported-kernels sentence, made from scripts/kernels/,
            is in each file that states it (KERNEL_FILES), word for word;
            every KERNEL=NAME in the documents names a kernel of
            scripts/kernels/
  figures   every figure a document marks, "1032 s<!-- fig:KEY -->", is
            the value (and unit) of KEY in docs/figures.tsv, the one file
            of current measured figures; every row there is well formed
            (a key, a value, a unit, a commit, a date, what ran) and
            quoted by some document

FWQ_DOCLINT_TOP overrides the tree's top (the lint's own tests plant a
false statement in a copy).
"""

import glob
import os
import re
import sys

TOP = os.environ.get("FWQ_DOCLINT_TOP") or \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP_DIRS = ("src", "scripts", "docs", "bench", "tests", "tools", "include",
            "debian", ".ci")
# the files that state the supported kernels: each holds the sentence
KERNEL_FILES = ("README.md", "docs/hardware.md", "dkms.conf", "debian/control",
                "src/compat/probe.sh", "src/compat/compat.h")

findings = []


def find(path, line, msg):
    findings.append(f"{path}:{line}: {msg}")


def docs():
    """The Markdown documents, relative to TOP."""
    names = ["README.md", "bench/README.md"]
    names += sorted(os.path.relpath(p, TOP)
                    for p in glob.glob(os.path.join(TOP, "docs", "*.md")))
    return [n for n in names if os.path.exists(os.path.join(TOP, n))]


def lines(name):
    with open(os.path.join(TOP, name), encoding="utf-8") as f:
        return f.read().split("\n")


def make_targets():
    """The rules of the Makefiles: NAME: at a line's start."""
    files = [os.path.join(TOP, "Makefile")]
    for pat in ("*.mk", "scripts/*.mk", "bench/*.mk"):
        files += glob.glob(os.path.join(TOP, pat))
    rules = set()
    for path in files:
        with open(path, encoding="utf-8") as f:
            for ln in f:
                m = re.match(r"^([a-z][a-z0-9_.-]*(?:\s+[a-z][a-z0-9_.-]*)*)\s*:(?!=)", ln)
                if m:
                    rules.update(m.group(1).split())
    return rules


def check_targets():
    rules = make_targets()
    for name in docs():
        for i, ln in enumerate(lines(name), 1):
            for m in re.finditer(r"`make\s+([a-z][a-z0-9_-]*)", ln):
                if m.group(1) not in rules and not foreign(ln, m.start()):
                    find(name, i, f"`make {m.group(1)}`: no such rule in the Makefiles")


def foreign(ln, at, prev=""):
    """Whether the quoted name at AT is another project's ("the kernel's
    `scripts/kernel-doc`", "Debian's `make kernelrelease`"), or a file the
    reader is told to create ("Create `src/flush_mine.c`"). PREV is the
    line before: the words may end it when the name starts this one."""
    before = ln[:at]
    if not before.strip():
        before = prev + " "
    return re.search(r"(?:kernel's|Debian's|kernel|headers'|[Cc]reate)\s*$",
                     before.rstrip() + " ") is not None


PATH_RE = re.compile(r"`((?:%s)/[^`\s]*)`" % "|".join(re.escape(d) for d in TOP_DIRS))


def path_exists(p):
    p = p.rstrip(".,;:)")
    p = re.sub(r":[0-9][0-9,-]*$", "", p)           # file:LINE
    p = re.sub(r"\(\)$", "", p)
    if re.search(r"[A-Z]{2,}|<|\{|\$", p):           # a pattern: NAME, <x>, {a,b}, $VAR
        parts = p.split("/")
        keep = []
        for part in parts:
            if re.search(r"[A-Z]{2,}|<|\{|\$", part):
                break
            keep.append(part)
        p = "/".join(keep)
        if not p:
            return True
    full = os.path.join(TOP, p)
    return bool(glob.glob(full)) or os.path.exists(full)


def check_paths():
    for name in docs():
        text = lines(name)
        for i, ln in enumerate(text, 1):
            for m in PATH_RE.finditer(ln):
                p = m.group(1)
                prev = text[i - 2] if i > 1 else ""
                if p.endswith(".ko") or foreign(ln, m.start(), prev):
                    continue
                if not path_exists(p):
                    find(name, i, f"`{p}`: no such file or directory")


def hazard_defs():
    """{id: (line, entry text)} of docs/hazards.md."""
    out = {}
    text = lines("docs/hazards.md")
    cur = None
    for i, ln in enumerate(text, 1):
        m = re.match(r"^\*\*(H\d+)\.", ln)
        if m:
            cur = m.group(1)
            out[cur] = [i, ln]
        elif ln.startswith("#"):
            cur = None
        elif cur:
            out[cur][1] += "\n" + ln
    return out


def tree_files(dirs):
    for d in dirs:
        for root, subdirs, files in os.walk(os.path.join(TOP, d)):
            subdirs[:] = [s for s in subdirs if not s.startswith(".")]
            for f in files:
                if f.endswith((".o", ".ko", ".cmd", ".mod", ".mod.c", ".jsonl", ".log")):
                    continue
                yield os.path.join(root, f)


def check_hazards():
    defs = hazard_defs()
    cited = {}
    for path in tree_files(("src", "tests", "scripts", "bench", "include", "tools")):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        for m in re.finditer(r"\bH(\d+)\b", text):
            cited.setdefault("H" + m.group(1), os.path.relpath(path, TOP))
    for h, (line, entry) in sorted(defs.items(), key=lambda x: int(x[0][1:])):
        if h not in cited and not re.search(r"\buntested\b", entry, re.I):
            find("docs/hazards.md", line,
                 f"{h} is cited by no code, test or script, and its entry does not say \"untested\"")
    for name in docs():
        for i, ln in enumerate(lines(name), 1):
            for m in re.finditer(r"\bH(\d+)\b", ln):
                if "H" + m.group(1) not in defs:
                    find(name, i, f"H{m.group(1)}: no such hazard in docs/hazards.md")
    for h, path in sorted(cited.items()):
        if h not in defs:
            find(path, 0, f"{h}: no such hazard in docs/hazards.md")


def cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    # split on | outside backquotes, \| escaped
    out, cur, code = [], "", False
    i = 0
    while i < len(row):
        c = row[i]
        if c == "\\" and i + 1 < len(row) and row[i + 1] == "|":
            cur += "|"
            i += 2
            continue
        if c == "`":
            code = not code
        if c == "|" and not code:
            out.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    out.append(cur)
    return out


def check_tables():
    for name in docs():
        text = lines(name)
        fence = False
        i = 0
        while i < len(text):
            ln = text[i]
            if ln.lstrip().startswith("```"):
                fence = not fence
            if not fence and ln.lstrip().startswith("|") and i + 1 < len(text) and \
                    re.match(r"^\s*\|?\s*:?-{3,}", text[i + 1]):
                want = len(cells(ln))
                sep = len(cells(text[i + 1]))
                if sep != want:
                    find(name, i + 2, f"table separator has {sep} cells, the header {want}")
                j = i + 2
                while j < len(text) and text[j].lstrip().startswith("|"):
                    n = len(cells(text[j]))
                    if n != want:
                        find(name, j + 1, f"table row has {n} cells, the header {want}")
                    j += 1
                i = j
                continue
            i += 1


def kernels():
    """[(name, series)] of scripts/kernels/, in version order."""
    out = []
    for path in glob.glob(os.path.join(TOP, "scripts", "kernels", "*")):
        with open(path, encoding="utf-8") as f:
            m = re.search(r"^FWQ_K_SERIES=([0-9.]+)", f.read(), re.M)
        if m:
            out.append((os.path.basename(path), m.group(1)))
    return sorted(out, key=lambda k: [int(x) for x in k[1].split(".")])


def supported_sentence():
    series = [s for _, s in kernels()]
    if len(series) > 1:
        listed = ", ".join(series[:-1]) + " and " + series[-1]
    else:
        listed = series[0] if series else "none"
    return f"Supported kernels: Linux {listed}, x86_64 (scripts/kernels/)."


def check_kernels():
    want = supported_sentence()
    for name in KERNEL_FILES:
        path = os.path.join(TOP, name)
        if not os.path.exists(path):
            find(name, 0, "missing: it states the supported kernels")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # the sentence may be folded over comment or prose lines
        flat = re.sub(r"\s*\n\s*(?:#|\*|//)?\s*", " ", text)
        if want not in flat:
            find(name, 0, f"does not say, word for word: \"{want}\"")
    dkms = os.path.join(TOP, "dkms.conf")
    if os.path.exists(dkms):
        with open(dkms, encoding="utf-8") as f:
            m = re.search(r'^BUILD_EXCLUSIVE_KERNEL="([^"]*)"', f.read(), re.M)
        series = sorted(n for n, _ in kernels())
        if not m:
            find("dkms.conf", 0, "no BUILD_EXCLUSIVE_KERNEL")
        else:
            rx = re.compile(m.group(1))
            for n in series:
                if not rx.search(n + ".0-1-amd64"):
                    find("dkms.conf", 0, f"BUILD_EXCLUSIVE_KERNEL refuses {n}, a supported kernel")
            for other in ("6.0", "6.2", "6.11", "6.13", "7.2", "7.4", "8.3"):
                if other not in series and rx.search(other + ".0-1-amd64"):
                    find("dkms.conf", 0, f"BUILD_EXCLUSIVE_KERNEL accepts {other}, not in scripts/kernels/")
    names = {n for n, _ in kernels()}
    for name in docs():
        for i, ln in enumerate(lines(name), 1):
            for m in re.finditer(r"\bKERNEL=([0-9][0-9.]*[0-9])", ln):
                if m.group(1) not in names:
                    find(name, i, f"KERNEL={m.group(1)}: no scripts/kernels/{m.group(1)}")


FIGURES = "docs/figures.tsv"
FIG_RE = re.compile(r"<!--\s*fig:([A-Za-z0-9_.-]+)\s*-->")


def figures():
    """{key: (line, value, unit)} of docs/figures.tsv; a bad row is a finding."""
    out = {}
    path = os.path.join(TOP, FIGURES)
    if not os.path.exists(path):
        return out
    for i, ln in enumerate(lines(FIGURES), 1):
        if not ln.strip() or ln.startswith("#"):
            continue
        f = ln.split("\t")
        if len(f) != 6:
            find(FIGURES, i, f"{len(f)} fields, not 6: key, value, unit, commit, date, what ran")
            continue
        key, value, unit, commit, date, what = f
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", key) or key in out:
            find(FIGURES, i, f"key '{key}': not a unique name of [A-Za-z0-9_.-]")
        if not re.fullmatch(r"[0-9][0-9.,]*", value):
            find(FIGURES, i, f"{key}: value '{value}' is not a number")
        if not re.fullmatch(r"[0-9a-f]{7,40}", commit):
            find(FIGURES, i, f"{key}: commit '{commit}' is not a commit id")
        if not re.fullmatch(r"20[0-9]{2}-[01][0-9]-[0-3][0-9]", date):
            find(FIGURES, i, f"{key}: date '{date}' is not YYYY-MM-DD")
        if not what.strip():
            find(FIGURES, i, f"{key}: says nothing of what ran")
        out[key] = (i, value, unit)
    return out


def check_figures():
    figs = figures()
    quoted = set()
    for name in docs():
        for i, ln in enumerate(lines(name), 1):
            for m in FIG_RE.finditer(ln):
                key = m.group(1)
                if key not in figs:
                    find(name, i, f"fig:{key}: no such figure in {FIGURES}")
                    continue
                quoted.add(key)
                _, value, unit = figs[key]
                before = ln[:m.start()].rstrip()
                want = [value] + ([value + unit, value + " " + unit] if unit else [])
                if not any(before.endswith(w) and not re.search(r"[0-9.,]$", before[:-len(w)])
                           for w in want):
                    got = re.search(r"[0-9][0-9.,]*\s*\S*$", before)
                    find(name, i, f"fig:{key} quotes '{got.group(0) if got else before[-12:]}',"
                         f" {FIGURES} says '{value}{(' ' + unit) if unit else ''}'")
    for key, (line, _, _) in sorted(figs.items(), key=lambda x: x[1][0]):
        if key not in quoted:
            find(FIGURES, line, f"{key}: quoted by no document (<!-- fig:{key} -->)")


CHECKS = {
    "targets": check_targets,
    "paths": check_paths,
    "hazards": check_hazards,
    "tables": check_tables,
    "kernels": check_kernels,
    "figures": check_figures,
}


def main(argv):
    if "--list" in argv:
        for name, fn in CHECKS.items():
            print(name)
        return 0
    if "--sentence" in argv:
        print(supported_sentence())
        return 0
    names = [a for a in argv if not a.startswith("-")] or list(CHECKS)
    for n in names:
        if n not in CHECKS:
            print(f"doclint: unknown check '{n}' (--list)", file=sys.stderr)
            return 2
    for n in names:
        before = len(findings)
        CHECKS[n]()
        for f in findings[before:]:
            print(f"{n}: {f}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
