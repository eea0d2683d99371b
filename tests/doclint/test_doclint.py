#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/doclint.py, the doc lint of make lint.

  test_doclint.py [--out DIR] [unittest args]

Each test copies the tree's documents and the files they name into a
scratch directory, plants one false statement of one kind there (a make
rule that does not exist, a path that does not exist, a hazard nothing
cites, a table row with a cell too many, a wrong supported kernel, a
dkms.conf that refuses a supported kernel, a quoted figure that is not
docs/figures.tsv's, a figure no document quotes) and runs the lint on the copy
(FWQ_DOCLINT_TOP): it must exit 1 and name the planted line. The
unplanted copy must pass, so that every failure is the plant's. With
--out, DIR/tests.txt gets one "ok NAME" or "not ok NAME" line per test
(make check's cmd lanes read it). The last line is "N passed, N failed".
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import taprun  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LINT = os.path.join(TOP, "scripts", "doclint.py")
SKIP_DIRS = {".git", ".cache", "results", "__pycache__", "debian/tmp"}
SKIP_EXT = (".o", ".ko", ".cmd", ".mod", ".mod.c", ".a", ".jsonl", ".log",
            ".order", ".symvers", ".deb")


def copy_tree(dst):
    """The tree's source files (no build products, results or caches)."""
    for root, dirs, files in os.walk(TOP):
        rel = os.path.relpath(root, TOP)
        dirs[:] = [d for d in dirs
                   if d not in SKIP_DIRS and os.path.join(rel, d) not in SKIP_DIRS
                   and (d == ".ci" or not d.startswith("."))]
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for f in files:
            if f.endswith(SKIP_EXT) or f.startswith("."):
                continue
            src = os.path.join(root, f)
            if os.path.islink(src) or not os.path.isfile(src):
                continue
            shutil.copy(src, os.path.join(dst, rel, f))


def lint(top, *checks):
    env = dict(os.environ, FWQ_DOCLINT_TOP=top)
    p = subprocess.run([sys.executable, LINT, *checks], env=env,
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


class Plant(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pristine = tempfile.mkdtemp(prefix="fwq-doclint.")
        copy_tree(cls.pristine)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.pristine, ignore_errors=True)

    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="fwq-doclint-t.")
        shutil.rmtree(self.top)
        shutil.copytree(self.pristine, self.top, symlinks=True)

    def tearDown(self):
        shutil.rmtree(self.top, ignore_errors=True)

    def edit(self, name, fn):
        path = os.path.join(self.top, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = fn(text)
        self.assertNotEqual(new, text, f"the plant changed nothing in {name}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)

    def append(self, name, text):
        self.edit(name, lambda t: t + text)

    def assert_fails(self, check, pattern):
        rc, out = lint(self.top, check)
        sys.stderr.write(f"# doclint {check}: {out.strip()}\n")
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, pattern)

    def test_clean_copy_passes(self):
        rc, out = lint(self.top)
        self.assertEqual(rc, 0, out)

    def test_missing_target(self):
        self.append("docs/testing.md", "\nRun `make no-such-rule` first.\n")
        self.assert_fails("targets", r"docs/testing\.md:\d+: .*no-such-rule")

    def test_missing_path(self):
        self.append("docs/design.md", "\nSee `src/no_such_file.c`.\n")
        self.assert_fails("paths", r"docs/design\.md:\d+: `src/no_such_file\.c`")

    # the planted ids are spelt apart here: the lint reads this file too
    def test_uncited_hazard(self):
        self.append("docs/hazards.md",
                    "\n**H" "98. A planted hazard.** Nothing cites this one.\n")
        self.assert_fails("hazards", r"docs/hazards\.md:\d+: H9[8] is cited by no")

    def test_unknown_hazard_cited(self):
        self.append("docs/design.md", "\nThis is hazard H" "97.\n")
        self.assert_fails("hazards", r"docs/design\.md:\d+: H9[7]: no such hazard")

    def test_bad_table(self):
        self.append("docs/design.md",
                    "\n| a | b |\n|---|---|\n| 1 | 2 | 3 |\n")
        self.assert_fails("tables", r"docs/design\.md:\d+: .*3 cells.*2")

    def test_wrong_kernel_sentence(self):
        self.edit("README.md", lambda t: t.replace(
            "Supported kernels: Linux 6.1, 6.12 and 7.3",
            "Supported kernels: Linux 6.1, 6.6 and 7.3", 1))
        self.assert_fails("kernels", r"README\.md:0: does not say")

    def test_wrong_kernel_name(self):
        self.append("docs/hardware.md", "\nTry `make check KERNEL=6.6`.\n")
        self.assert_fails("kernels", r"docs/hardware\.md:\d+: KERNEL=6\.6")

    def test_dkms_refuses_supported(self):
        self.edit("dkms.conf", lambda t: re.sub(
            r'BUILD_EXCLUSIVE_KERNEL="[^"]*"',
            'BUILD_EXCLUSIVE_KERNEL="^(6\\\\.1|7\\\\.3)\\\\."', t))
        self.assert_fails("kernels", r"dkms\.conf:0: BUILD_EXCLUSIVE_KERNEL refuses 6\.12")

    def test_new_kernel_file(self):
        with open(os.path.join(self.top, "scripts", "kernels", "7.3")) as f:
            text = f.read()
        with open(os.path.join(self.top, "scripts", "kernels", "7.4"), "w") as f:
            f.write(re.sub(r"^FWQ_K_SERIES=.*$", "FWQ_K_SERIES=7.4", text, flags=re.M))
        self.assert_fails("kernels", r"does not say, word for word: .*7\.4")

    def test_figure_mismatch(self):
        self.edit("README.md", lambda t: re.sub(
            r"[0-9]+ s<!-- fig:check\.time -->", "1177 s<!-- fig:check.time -->", t, count=1))
        self.assert_fails("figures", r"README\.md:\d+: fig:check\.time quotes '1177 s', "
                          r"docs/figures\.tsv says")

    def test_figure_unknown(self):
        self.append("docs/design.md", "\nIt took 12 s<!-- fig:no.such.figure -->.\n")
        self.assert_fails("figures", r"docs/design\.md:\d+: fig:no\.such\.figure: no such figure")

    def test_figure_unquoted(self):
        self.append("docs/figures.tsv",
                    "planted.figure\t7\ts\t0123abc\t2026-12-07\tnothing ran\n")
        self.assert_fails("figures", r"docs/figures\.tsv:\d+: planted\.figure: quoted by no document")


if __name__ == "__main__":
    sys.exit(taprun.main(sys.argv[1:], prefix="doclint."))
