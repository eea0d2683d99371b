#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of bench/bench_report.py: pure Python, no guest.

  test_bench_report.py [--out DIR] [unittest args]

Fixture result files in (fixtures/, written by fixtures.py), known
intervals and verdicts out; a simulation of the intervals' coverage; bad
input. With --out, DIR/tests.txt gets one "ok NAME" or "not ok NAME" line
per test (make check lists them). Exit 0 when every test passed.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
REPORT = os.path.join(TOP, "bench", "bench_report.py")
sys.path.insert(0, os.path.join(TOP, "bench"))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "pylib"))
# no __pycache__ in the source tree (the DKMS and Debian packages copy it)
sys.dont_write_bytecode = True

import bench_report as br  # noqa: E402
import fixtures  # noqa: E402
import taprun  # noqa: E402


def run_report(*args):
    """bench_report.py ARGS: (exit code, stdout, stderr)."""
    p = subprocess.run([sys.executable, REPORT, *args], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


class Scratch(unittest.TestCase):
    """A test with a scratch folder, self.tmp."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bench-report-test.")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fixture(self, name):
        """A copy of fixture NAME's folder in the scratch folder."""
        d = os.path.join(self.tmp, name)
        shutil.copytree(fixtures.folder(name), d)
        return d

    def report(self, name):
        """The report of fixture NAME: summary.md's text."""
        d = self.fixture(name)
        rc, out, err = run_report(d)
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Traceback", err)
        with open(os.path.join(d, "summary.md")) as f:
            return f.read()

    def row(self, text, *starts):
        """The one table row of text that starts with the cells starts."""
        pre = "| " + " | ".join(starts)
        rows = [line for line in text.splitlines()
                if re.sub(r" +\|", " |", line).startswith(pre)]
        self.assertEqual(len(rows), 1, f"rows starting {pre!r}: {rows}")
        return re.sub(r" +", " ", rows[0])

    def assertRow(self, text, starts, *cells):
        """The row of text that starts with the cells starts (row()) holds
        each of cells; returns it."""
        r = self.row(text, *starts)
        for cell in cells:
            self.assertIn(cell, r)
        return r


class OrderStatistics(unittest.TestCase):
    """The interval for the median: order statistics from Bin(n, 1/2)."""

    def test_coverage_exact(self):
        self.assertEqual(br.coverage(7, 1), Fraction(63, 64))       # 98.4375%
        self.assertEqual(br.coverage(7, 2), Fraction(7, 8))         # 87.5%
        self.assertEqual(br.coverage(3, 1), Fraction(3, 4))         # 75%
        self.assertEqual(br.coverage(9, 2), 1 - Fraction(2 * 10, 512))

    def test_order_d(self):
        self.assertEqual(br.order_d(7, 0.95), 1)
        self.assertEqual(br.order_d(9, 0.95), 2)
        self.assertEqual(br.order_d(12, 0.95), 3)
        self.assertIsNone(br.order_d(5, 0.95))
        self.assertIsNone(br.order_d(1, 0.5))
        self.assertEqual(br.min_pairs(0.95), 6)
        self.assertEqual(br.min_pairs(1 - Fraction(1, 20) / 65), 12)

    def test_interval_of_seven(self):
        ci = br.median_ci([1.06, 1.02, 1.09, 1.04, 1.12, 1.03, 1.08])
        self.assertEqual((ci.lo, ci.hi, ci.d, ci.n), (1.02, 1.12, 1, 7))
        self.assertEqual(br.fmt_ci(ci), "1.06x [1.02-1.12], 98.4%")
        self.assertTrue(br.significant(ci))

    def test_too_few(self):
        ci = br.median_ci([1.1, 1.2, 1.3])
        self.assertIsNone(ci.lo)
        self.assertEqual(br.fmt_ci(ci), "1.20x, not shown (n<6)")
        self.assertFalse(br.significant(ci))
        self.assertIsNone(br.median_ci([]))

    def test_holds_one(self):
        ci = br.median_ci([0.9, 1.1, 1.0, 0.95, 1.05, 1.02, 0.98, 1.01, 0.99])
        self.assertEqual(br.fmt_ci(ci), "1.00x [0.95-1.05]~, 96.1%")


def draws(rng, dist, n):
    if dist == "lognormal":
        return [rng.lognormvariate(0.1, 0.3) for _ in range(n)]
    # skewed, heavy right tail: a shifted exponential, median 1 + ln 2 / 3
    return [1 + rng.expovariate(3.0) for _ in range(n)]


MEDIANS = {"lognormal": 2.718281828459045 ** 0.1, "exponential": 1 + 0.6931471805599453 / 3}
SIM_DRAWS = 10000


class Simulation(unittest.TestCase):
    """The stated coverage holds: for n = 3, 5, 7 and 9 ratios, every
    interval [x(d), x(n+1-d)] the report can state, over SIM_DRAWS seeded
    draws from each of two distributions, holds the true median as often as
    it says, within 1.5 points."""

    measured = {}

    def test_coverage(self):
        rng = random.Random(46)
        for n in (3, 5, 7, 9):
            for d in range(1, n // 2 + 1):
                stated = br.coverage(n, d)
                for dist, med in MEDIANS.items():
                    hit = 0
                    for _ in range(SIM_DRAWS):
                        ci = br.median_ci(draws(rng, dist, n), stated)
                        self.assertEqual(ci.d, d)
                        hit += ci.lo <= med <= ci.hi
                    got = hit / SIM_DRAWS
                    Simulation.measured[(n, d, dist)] = (float(stated), got)
                    self.assertLessEqual(abs(got - float(stated)), 0.015,
                                         f"n={n} d={d} {dist}: stated {float(stated):.4f}, "
                                         f"measured {got:.4f}")

    def test_report_level(self):
        """At the report's level (95%), what it picks for each n."""
        picks = {n: br.order_d(n, br.LEVEL) for n in (3, 5, 7, 9)}
        self.assertEqual(picks, {3: None, 5: None, 7: 1, 9: 2})

    @classmethod
    def tearDownClass(cls):
        for (n, d, dist), (stated, got) in sorted(cls.measured.items()):
            print(f"# coverage n={n} [x({d}), x({n + 1 - d})] {dist}: stated "
                  f"{100 * stated:.2f}%, measured {100 * got:.2f}% over {SIM_DRAWS} draws",
                  file=sys.stderr)


class SignTestHolm(unittest.TestCase):
    """The sign test, Holm's method, and their agreement with the
    intervals."""

    def test_sign_test(self):
        c = br.Cell([1.1] * 7, "up", "items_per_sec")
        self.assertEqual((c.p, c.side), (Fraction(2, 128), "up"))
        c = br.Cell([0.9] * 6 + [1.1], "up", "items_per_sec")
        self.assertEqual((c.p, c.side), (Fraction(2 * 8, 128), "down"))
        # a ratio of exactly 1.0 counts against the effect
        c = br.Cell([1.1] * 6 + [1.0], "up", "items_per_sec")
        self.assertEqual(c.p, Fraction(2 * 8, 128))
        c = br.Cell([1.0] * 7, "same", "items_per_sec")
        self.assertEqual((c.p, c.side), (Fraction(2, 128), "in"))
        c = br.Cell([2.0] * 7, "same", "flush_p50_ns")
        self.assertEqual((c.p, c.side), (Fraction(2, 128), "up"))

    def test_holm_adjusted(self):
        fam = br.Family()
        # p = 2/4096 (12 above), 2/128 (7 above), 2*8/128 (6 of 7 above)
        cells = [fam.add(br.Cell(r, "up", "items_per_sec", primary=True))
                 for r in ([1.1] * 12, [1.1] * 7, [0.9] + [1.1] * 6)]
        fam.add(br.Cell([], "up", "items_per_sec", primary=True))
        fam.holm()
        self.assertEqual(fam.m, 3)
        self.assertEqual(cells[0].adj, 3 * Fraction(2, 4096))
        self.assertEqual(cells[1].adj, 2 * Fraction(2, 128))
        self.assertEqual(cells[2].adj, Fraction(16, 128))
        self.assertEqual([c.rejected for c in cells], [True, True, False])
        self.assertEqual([c.word() for c in cells],
                         ["reproduced (faster)", "reproduced (faster)", "not shown"])
        self.assertEqual(cells[1].level, 1 - Fraction(1, 20) / 2)

    def test_holm_stops(self):
        """A cell after the first one Holm keeps is kept, even where its own
        bound would let it go; tied p-values go together."""
        fam = br.Family()
        a = fam.add(br.Cell([1.1] * 7 + [0.9], "up", "items_per_sec", primary=True))      # 18/256
        b = fam.add(br.Cell([1.1] * 10 + [0.9] * 3, "up", "items_per_sec", primary=True))  # 756/8192
        c = fam.add(br.Cell([1.1, 0.9] * 3, "up", "items_per_sec", primary=True))        # 1
        fam.holm(alpha=Fraction(1, 5))
        self.assertEqual((a.p, b.p), (Fraction(18, 256), Fraction(756, 8192)))
        # a: 18/256 > 0.2/3, so Holm stops there; b's own bound, 0.2/2,
        # is above its p, but it comes after a
        self.assertLess(b.p, Fraction(1, 5) / 2)
        self.assertEqual([x.rejected for x in (a, b, c)], [False, False, False])
        self.assertEqual(b.adj, 3 * a.p)
        fam = br.Family()
        a = fam.add(br.Cell([1.1] * 4 + [0.9], "up", "items_per_sec", primary=True))   # p 12/32
        b = fam.add(br.Cell([1.1] * 5, "up", "items_per_sec", primary=True))           # p 2/32
        c = fam.add(br.Cell([1.1] * 5, "up", "items_per_sec", primary=True))
        fam.holm(alpha=Fraction(1, 5))
        # 3 * 2/32 = 0.1875 <= 0.2: b and c (tied) both go; a: 0.375 > 0.2
        self.assertEqual([x.rejected for x in (a, b, c)], [False, True, True])
        self.assertEqual(b.level, c.level)

    def test_duality(self):
        """Rejected exactly when the interval at the cell's Holm level
        excludes 1.0 (on the side of the verdict), while every cell before
        it was rejected: random families, seeded."""
        rng = random.Random(1)
        for _ in range(300):
            fam = br.Family()
            cells = []
            for _ in range(rng.randint(1, 8)):
                n = rng.randint(1, 16)
                shift = rng.choice([0.0, 0.05, 0.2, -0.2])
                cells.append(fam.add(br.Cell([rng.gauss(1 + shift, 0.1) for _ in range(n)],
                                             rng.choice(["up", "down"]), "items_per_sec", primary=True)))
            fam.holm()
            ranked = sorted(cells, key=lambda c: c.p)
            going = True
            for c in ranked:
                fw = c.fw
                excl = fw.d is not None and (fw.lo > 1 or fw.hi < 1)
                going = going and excl
                self.assertEqual(c.rejected, going, (c.p, c.adj, c.level))
                if c.rejected:
                    self.assertEqual(fw.lo > 1, c.side == "up")

    def test_same_bounds(self):
        fam = br.Family()
        ins = fam.add(br.Cell([1.0, 0.9, 1.1, 1.2, 0.8, 1.05, 0.95, 1.0], "same",
                              "items_per_sec", primary=True))
        out = fam.add(br.Cell([0.5] * 8, "same", "items_per_sec", primary=True))
        fam.holm()
        self.assertEqual(ins.word(), "reproduced (no change)")
        self.assertEqual(out.word(), "contradicted (slower)")
        lo, hi = br.SAME_BOUNDS
        self.assertTrue(lo <= ins.fw.lo and ins.fw.hi <= hi)
        self.assertTrue(out.fw.hi < lo)


    def test_secondary(self):
        """A secondary cell is read on its own at 95%, whatever the primary
        family: 7 ratios above 1.0 (p 2/128) are reproduced, and Holm's m
        counts the primary cells only."""
        fam = br.Family()
        prim = [fam.add(br.Cell([1.1] * 7, "up", "items_per_sec", primary=True))
                for _ in range(4)]
        sec = fam.add(br.Cell([1.1] * 7, "up", "items_per_sec"))
        sec6 = fam.add(br.Cell([1.1] * 5 + [0.9], "up", "items_per_sec"))
        fam.holm()
        self.assertEqual(fam.m, 4)
        # 4 primary cells: the first level, 98.75%, takes 8 pairs
        self.assertEqual([c.word() for c in prim], ["not shown (n<8)"] * 4)
        self.assertEqual(sec.word(), "reproduced (faster; secondary)")
        self.assertEqual(sec.level, 1 - br.ALPHA)
        self.assertEqual(sec.holm_text(), "secondary: p 0.016; >=95%: [1.10-1.10], 98.4%")
        # 6 pairs, one below 1.0: p 14/64
        self.assertEqual(sec6.word(), "not shown (secondary)")
        s = fam.summary()
        self.assertIn("over the 4 primary verdict cells", s)
        self.assertIn("The other 2 cells with data are secondary", s)
        self.assertIn("(1 reproduced or contradicted; 6 to 7 pairs)", s)

    def test_nine_primary(self):
        """The report's primary family, 9 cells (one per claim row): Holm's
        first level is 99.44%, which 9 pairs reach and 8 do not."""
        fam = br.Family()
        for _ in range(9):
            fam.add(br.Cell([1.1] * 9, "up", "items_per_sec", primary=True))
        fam.holm()
        self.assertEqual(br.min_pairs(fam.first_level()), 9)
        self.assertTrue(all(c.rejected for c in fam.cells))
        fam = br.Family()
        for _ in range(9):
            fam.add(br.Cell([1.1] * 8, "up", "items_per_sec", primary=True))
        fam.holm()
        self.assertEqual({c.word() for c in fam.cells}, {"not shown (n<9)"})
        self.assertEqual(sum(bool(c.get("primary")) for cl in br.CLAIMS
                             for c in cl.get("cases", [])) +
                         sum(1 for cl in br.CLAIMS if cl.get("primary")), 9)


class Fixtures(Scratch):
    """Fixture result files in, known intervals and verdicts out."""

    def test_in_sync(self):
        """The committed fixtures are what fixtures.py writes."""
        for name in fixtures.FIXTURES:
            for fn, text in fixtures.files(name).items():
                with open(os.path.join(fixtures.folder(name), fn)) as f:
                    self.assertEqual(f.read(), text, f"{name}/{fn}: run fixtures.py")

    def test_holm_twelve(self):
        s = self.report("s1-holm")
        self.assertIn("Holm's step-down method over the 2 primary verdict cells", s)
        self.assertIn("1 of them reproduced or contradicted", s)
        self.assertIn("the first cell's is 97.5%, which takes at least 7 pairs", s)
        self.assertIn("The other 6 cells with data are secondary", s)
        r = self.row(s, "system", "v5 +10.7% / -10.0%")
        self.assertIn("| +24.7% / -37.5% |", r)
        self.assertIn("| 1.07x [1.04-1.11], 96.1% | p 0.00098; >=97.5%: [1.03-1.12], 99.4% "
                      "| reproduced (faster), 1.07x against 1.107x claimed |", r)
        self.assertIn("| 0.90x [0.86-0.93], 96.1% | secondary: p 0.00049; >=95%: [0.86-0.93], "
                      "96.1% | reproduced (lower; secondary), 0.90x against 0.900x claimed |", r)
        r = self.row(s, "cpu", "v5 -2.6% / +3.5% (no change)")
        self.assertIn("reproduced (no change; secondary), 1.00x against 0.974x claimed", r)
        self.assertIn("reproduced (no change; secondary), 1.00x against 1.035x claimed", r)
        r = self.row(s, "system", "v3 +17.2% / -21.1%; v5 +10.7% / -10.0%: 1.059x / 0.877x")
        self.assertIn("| 1.00x [0.96-1.04]~, 96.1% | p 1; >=95%: [0.96-1.04]~, 96.1% "
                      "| not shown, 1.00x against 1.059x claimed |", r)
        self.assertIn("contradicted (higher; secondary), 1.07x against 0.877x claimed", r)
        r = self.row(s, "cpu", "v3 +17.9% / -13.6%; v5 -2.6% / +3.5%: 1.210x / 0.835x")
        self.assertIn("reproduced (faster; secondary), 1.22x against 1.210x claimed", r)
        self.assertIn("reproduced (lower; secondary), 0.89x against 0.835x claimed", r)
        self.assertIn("Verdict A2: reproduced (4 reproduced, 0 contradicted, 0 not shown of 4)",
                      s)
        self.assertIn("Verdict A2-wakeq: mixed (2 reproduced, 1 contradicted, 1 not shown of 4)",
                      s)
        self.assertIn("S1, `wake=wakeq,kicked_list=on` against `wake=pick`", s)

    def test_seven(self):
        s = self.report("s1-seven")
        self.assertIn("over the 2 primary verdict cells", s)
        self.assertIn("the first cell's is 97.5%, which takes at least 7 pairs", s)
        self.assertRow(s, ("system", "v5 +10.7% / -10.0%"),
                       "| 1.06x [1.02-1.12], 98.4% | p 0.031; >=97.5%: [1.02-1.12], 98.4% "
                       "| reproduced (faster), 1.06x against 1.107x claimed |",
                       "| secondary: p 0.016; >=95%: [0.89-0.98], 98.4% "
                       "| reproduced (lower; secondary), 0.94x against 0.900x claimed |")
        # the table's cell: the interval on its own
        self.assertRow(s, ("enq", "2", "unbound", "system", "wake=pick"),
                       "| 1.06x [1.02-1.12], 98.4% |")

    def test_three(self):
        s = self.report("s1-three")
        self.assertRow(s, ("system", "v5 +10.7% / -10.0%"),
                       "| 1.06x, not shown (n<6) |",
                       "| p 0.500; >=97.5%: not shown (n<7) "
                       "| not shown (n<6), 1.06x against 1.107x claimed |",
                       "| not shown (n<6; secondary), 0.94x against 0.900x claimed |")

    def test_flush_headline_fidelity(self):
        s = self.report("flush")
        self.assertIn("over the 7 primary verdict cells", s)
        self.assertIn("the first cell's is 99.286%, which takes at least 9 pairs", s)
        self.assertRow(s, ("percpu", "flushes_per_sec higher", "15.3k -> 660.0k"),
                       "| 44.00x [40.00-48.00], 98.4% | p 0.109; >=99.286%: not shown (n<9) |",
                       "| 192 -> 0 |", "not shown (n<9), 44.00x against 105x claimed")
        self.assertRow(s, ("unbound", "flushes_per_sec higher", "15.3k -> 243.2k"),
                       "16.00x against 9.6x claimed")
        self.assertIn("## Headline on 7.3", s)
        self.assertRow(s, ("B1", "S4a percpu", "flushes_per_sec unchanged", "flush=coalesce"),
                       "| 1.00x [0.97-1.03]~, 98.4% |",
                       "| secondary: p 0.016; >=95%: [0.97-1.03]~, 98.4% |",
                       "reproduced (no change; secondary), 1.00x against no change claimed")
        r = self.row(s, "7.3", "192", "S4a unbound", "flushes_per_sec", "flush=coalesce")
        self.assertIn("| 1.00x [0.97-1.03]~, 98.4% |", r)

    def test_flush_claims(self):
        """B2, B3, B4 and C1 from the fixture's S4b, S4c, S5 and S6."""
        s = self.report("flush")
        r = self.row(s, "percpu", "flushes_per_sec higher", "30.3k -> 45.0k")
        self.assertIn("| 1.50x [1.35-1.65], 98.4% | p 0.109; >=99.286%: not shown (n<9) |", r)
        r = self.row(s, "unbound", "flushes_per_sec lower")
        self.assertIn("not shown (n<9), 0.81x against 0.800-0.850x claimed", r)
        r = self.row(s, "percpu", "flushes_per_sec unchanged")
        self.assertIn("reproduced (no change; secondary)", r)
        r = self.row(s, "flush=active", "flush_p50_ns lower")
        self.assertIn("| 0.67x [0.61-0.74], 98.4% |", r)
        self.assertIn("Verdict B3: partly reproduced (3 reproduced, 0 contradicted, 1 not shown "
                      "of 4)", s)

    def test_mutex_wait(self):
        """The flush-mutex wait: S4b, S5 and S6 rows, C1's column, B2's,
        B4's and C1's notes, kwq's beside fwq's."""
        s = self.report("flush")
        self.assertRow(s, ("flush=coalesce", "flushes_per_sec higher"),
                       "| p50 8000 -> 5333, p99 90.0k -> 60.0k, share 0.20 -> 0.13 |")
        self.assertIn("- percpu flush-mutex wait, base -> flush=active -> kwq: p50 8000 -> 5333 "
                      "-> 8000, p99 90.0k -> 60.0k -> 90.0k, share 0.20 -> 0.13 -> 0.20", s)
        self.assertIn("- S6 flush-mutex wait, flush=coalesce -> kwq: p50 5333 -> 8000", s)
        self.assertIn("mutex wait p50 ns", s)

    def test_counts(self):
        """The counts beside the timing: B1's, B2's, the headline's with a
        disagreement flagged, and the fidelity rows' with the share within
        0.90-1.10."""
        s = self.report("flush")
        r = self.row(s, "percpu", "flushes_per_sec higher", "15.3k -> 660.0k")
        self.assertIn("| insns 10000 -> 400 (0.040x), mem 3500 -> 180 (0.051x) |", r)
        r = self.row(s, "percpu", "flushes_per_sec higher", "30.3k -> 45.0k")
        self.assertIn("| insns 8000 -> 9000 (1.125x), mem 3000 -> 2900 (0.967x) |", r)
        # not rejected: no flag, whatever the counts say
        self.assertNotIn("DISAGREE", r)
        r = self.row(s, "B1", "S4a percpu", "flushes_per_sec higher", "flush=active")
        self.assertIn("| insns 10740 -> 12000 (1.117x), mem 3638 -> 3000 (0.825x) |", r)
        self.assertIn("reproduced (faster; secondary), 29.33x against 105x claimed; TIMING AND "
                      "COUNT DISAGREE (instructions 1.117x) |", r)
        r = self.row(s, "B1", "S4a unbound", "flushes_per_sec higher", "flush=active")
        self.assertNotIn("DISAGREE", r)
        r = self.row(s, "flush=coalesce", "flushes_per_sec higher")
        self.assertIn("| insns 8000 -> 7900 (0.988x), mem 3000 -> 2950 (0.983x) |", r)
        r = self.row(s, "B3".replace("B3", "unbound"), "flushes_per_sec lower")
        self.assertIn("| not counted |", r)
        r = self.row(s, "7.3", "192", "S4a percpu", "flushes_per_sec", "flush=coalesce")
        self.assertIn("| 9624, 10740, 0.896x | 3470, 3638, 0.954x | 60, 41 |", r)
        self.assertIn("Counts: 0 of 2 counted paths within 0.90-1.10 of kwq's", s)
        # without icount.jsonl, no count column at all
        s = self.report("s1-seven")
        self.assertNotIn("count per op", s)

    def test_baseline_from_results(self):
        s = self.report("baseline")
        self.assertIn("Baseline (the variant the /base ratios divide by, read from the runs): "
                      "`wake=claim,kicked_list=off,flush=each`", s)
        self.assertIn("/base = ratio to the baseline `wake=claim,kicked_list=off,flush=each`", s)
        r = self.row(s, "enq", "2", "unbound", "cache", "wake=locked")
        self.assertIn("| 1.06x [1.02-1.12], 98.4% |", r)
        self.assertEqual(br.baseline([json.loads(x) for x in
                                      fixtures.files("s1-seven")["results.jsonl"].split("\n")
                                      if x]),
                         fixtures.BASE)

    def test_count_phases(self):
        """--count-phases: the phases a count boot is to run, the paths and
        variants the report reads for its possible CPUs; none for a boot no
        row reads."""
        d = self.fixture("flush")
        rc, out, err = run_report("--count-phases", d, "p192", "8 192")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        base, active = fixtures.FLUSH[0], fixtures.FLUSH[2]
        for t in ("percpu", "unbound"):
            for v in (base, active):
                self.assertIn(f"flush {t} fwq {v} default 400", lines)
                self.assertIn(f"qflush {t} fwq {v} default 50", lines)
        # C1's S6: coalesce's queue and flush; B4's S5
        self.assertIn(f"qflush unbound fwq {fixtures.FLUSH[1]} default 50", lines)
        self.assertIn(f"s5 unbound fwq {fixtures.FLUSH[1]} default 50", lines)
        self.assertEqual(len(lines), 12, out)
        # the ones that run with every CPU online first
        ops = [x.split()[0] for x in lines]
        self.assertEqual(ops, sorted(ops, key=lambda o: o in ("kick", "qflush", "s5")))
        rc, out, err = run_report("--count-phases", d, "p192:7.3", "8 192")
        self.assertIn("flush percpu kwq - default 400", out.splitlines())
        self.assertIn(f"flush unbound fwq {fixtures.FLUSH[3]} default 400", out.splitlines())
        rc, out, err = run_report("--count-phases", d, "p8:7.3", "8 192")
        self.assertEqual((rc, out), (0, ""), err)
        rc, out, err = run_report("--count-phases", d, "p192", "8 x")
        self.assertEqual(rc, 2)
        self.assertEqual(len(err.splitlines()), 1, err)

    def test_run_time(self):
        """timing.txt's boots in summary.md's "Where the time went"."""
        d = self.fixture("s1-seven")
        with open(os.path.join(d, "timing.txt"), "w") as f:
            f.write("enq runs=238 wall_s=301 suite_start_s=12.5 suite_s=270.1\n"
                    "count:p8 phases=30 wall_s=75\n")
        rc, out, err = run_report(d)
        self.assertEqual(rc, 0, err)
        with open(os.path.join(d, "summary.md")) as f:
            s = f.read()
        self.assertIn("376 s in the boots in all", s)
        r = self.row(s, "enq", "238")
        self.assertIn("| 301 | 12.5 | 270.1 |", r)
        r = self.row(s, "count:p8", "30")
        self.assertIn("| 75 | - | - |", r)

    def test_compare(self):
        a, b = self.fixture("s1-seven"), os.path.join(self.tmp, "again")
        shutil.copytree(a, b)
        out = os.path.join(self.tmp, "cmp")
        rc, stdout, err = run_report("--compare", out, a, b)
        self.assertEqual(rc, 0, err)
        self.assertIn("1.06x [1.02-1.12], 98.4%", stdout)
        self.assertTrue(os.path.exists(os.path.join(out, "repeatability.md")))
        # the verdicts, cell by cell: the same in both copies
        self.assertIn("4 of 4 verdict cells (the claims' and the headline rows') give the "
                      "same verdict in every run", stdout)
        self.assertIn("| A2 system items_per_sec | reproduced (faster) | reproduced (faster) "
                      "| yes |", re.sub(r" +\|", " |", stdout))


FWQ_BENCH = os.path.join(TOP, "bench", "fwq-bench.sh")


def run_cli(*args, cwd=None):
    """fwq-bench ARGS (bench/fwq-bench.sh): (exit code, stdout, stderr)."""
    p = subprocess.run(["sh", FWQ_BENCH, *args], capture_output=True, text=True,
                       timeout=120, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


class Cli(Scratch):
    """fwq-bench compare and replay on fixture results: bench_report.py's
    --compare and --replay, printed, written only with --out; bad
    arguments: one line on stderr, exit 2, nothing written."""

    def listing(self, d):
        return sorted(os.listdir(d))

    def test_compare(self):
        a, b = self.fixture("s1-seven"), os.path.join(self.tmp, "again")
        shutil.copytree(a, b)
        before = self.listing(a)
        rc, out, err = run_cli("compare", a, b, cwd=self.tmp)
        self.assertEqual(rc, 0, err)
        # the report's interval for the same ratio
        self.assertIn("1.06x [1.02-1.12], 98.4%", out)
        self.assertIn("4 of 4 verdict cells", out)
        self.assertEqual(self.listing(a), before)
        self.assertEqual(self.listing(b), before)
        self.assertNotIn("repeatability.md", self.listing(self.tmp))
        o = os.path.join(self.tmp, "cmp")
        rc, out2, err = run_cli("compare", "--out", o, a, b)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out2, out)
        with open(os.path.join(o, "repeatability.md")) as f:
            self.assertEqual(f.read(), out)

    def test_replay(self):
        d = self.fixture("flush")
        before = self.listing(d)
        rc, out, err = run_cli("replay", os.path.join(d, "results.jsonl"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.listing(d), before)
        self.assertIn("## S4a idle flush", out)
        # a folder holding results.jsonl is the same
        rc, out2, err = run_cli("replay", d)
        self.assertEqual((rc, out2), (0, out), err)
        # the report of the same folder prints the same, and --out writes
        # the same summary.md as it does
        o = os.path.join(self.tmp, "again")
        rc, out3, err = run_cli("replay", "--out", o, os.path.join(d, "results.jsonl"))
        self.assertEqual((rc, out3), (0, out), err)
        self.assertEqual(self.listing(d), before)
        rc, out4, err = run_report(d)
        self.assertEqual((rc, out4), (0, out), err)
        for fn in ("summary.md", "table.txt"):
            with open(os.path.join(o, fn)) as f, open(os.path.join(d, fn)) as g:
                self.assertEqual(f.read(), g.read(), fn)

    def test_bad(self):
        d = self.fixture("s1-seven")
        bad_file = os.path.join(self.tmp, "bad.jsonl")
        with open(bad_file, "w") as f:
            f.write('{"schema": "fwq_bench/1"\n')
        o = os.path.join(self.tmp, "o")
        for args, want in ((["compare", d], "compare needs two results folders"),
                           (["compare", "--out", o, d], "compare needs two"),
                           (["compare", "--bogus", d, d], "unknown option --bogus"),
                           (["compare", d, "--out"], "--out needs a folder"),
                           (["compare", "--out", o, d, self.tmp], "results.jsonl: No such file"),
                           (["replay"], "replay needs one results file"),
                           (["replay", d, d], "replay needs one results file"),
                           (["replay", os.path.join(self.tmp, "none")], "no such file"),
                           (["replay", "--out", o, bad_file], "bad.jsonl:1: not a whole JSON")):
            before = self.listing(self.tmp)
            rc, out, err = run_cli(*args, cwd=self.tmp)
            self.assertEqual(rc, 2, (args, err))
            self.assertEqual(len(err.splitlines()), 1, (args, err))
            self.assertIn(want, err, args)
            self.assertNotIn("Traceback", err)
            self.assertEqual(out, "", args)
            self.assertEqual(self.listing(self.tmp), before, args)


class ResultsSchema(unittest.TestCase):
    """bench/README.md's "Results schema" against the writer, fwq_bench's C
    (bench/main.c report_run(), bench/scenarios.c bench_scenario_report()
    and the functions they call): the same fields, in the same objects,
    with the same JSON types; and every field bench_report.py reads is
    documented. The writer's keys are read from its bo_*() calls: a literal
    key, a key snprintf()ed from a format ("%s" is a <name> of the table),
    a string assigned to the key's variable, or a literal passed for a
    parameter."""

    SRC = ("bench/main.c", "bench/scenarios.c")
    # the object each writer function's keys go in ("": its own bo_open()s)
    PARENT = {"report_run": "", "report_topology": "", "report_probe": "host",
              "bench_scenario_report": "", "report_dist": "metrics",
              "report_cdf": "metrics", "report_flush_wait": "metrics",
              "report_stats": "metrics", "report_lockstat": "metrics"}
    TYPES = {"bo_str": {"string"}, "bo_u64": {"integer"}, "bo_milli": {"number"},
             "bo_ratio": {"number", "null"}, "bo_null": {"null"}, "bo_open": {"object"},
             "bo_arr_open": {"array"}}

    def writer(self):
        """{path: {JSON types}} of the C writer; "*" for a <name>."""
        text = ""
        for p in self.SRC:
            with open(os.path.join(TOP, p)) as f:
                text += f.read()
        funcs = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(
            r"^(?:static )?void (\w+)\(([^)]*)\)\n\{\n(.*?)^\}", text, re.M | re.S)}

        def passed(fn, pos):
            out = set()
            for m in re.finditer(rf"\b{fn}\(([^;]*?)\);", text, re.S):
                args = [a.strip() for a in m.group(1).split(",")]
                if len(args) > pos and args[pos].startswith('"'):
                    out.add(args[pos].strip('"'))
            return out

        fields = {}
        for fn, parent in self.PARENT.items():
            self.assertIn(fn, funcs, f"the writer has no {fn}()")
            params, body = funcs[fn]
            pnames = [p.split()[-1].lstrip("*") for p in params.split(",")]
            stack, fmts, lits = [parent] if parent else [], {}, {}
            for m in re.finditer(r'snprintf\((\w+), sizeof\(\w+\),\s*"([^"]*)"|'
                                 r'\*?(\w+) = "([^"]*)"|\b(bo_\w+)\(o(?:, ([^,)]+))?', body):
                if m.group(1):
                    fmts[m.group(1)] = {m.group(2).replace("%s", "*")}
                    continue
                if m.group(3):
                    lits.setdefault(m.group(3), set()).add(m.group(4))
                    continue
                call, arg = m.group(5), (m.group(6) or "").strip()
                if call == "bo_close":
                    stack.pop()
                    continue
                if call not in self.TYPES:
                    continue
                if arg.startswith('"'):
                    names = {arg.strip('"')}
                elif arg in fmts:
                    names = fmts[arg]
                elif arg in lits:
                    names = lits[arg]
                elif arg in pnames:
                    names = passed(fn, pnames.index(arg))
                else:
                    self.fail(f"{fn}(): cannot tell the key {arg}")
                self.assertTrue(names, f"{fn}(): no key for {arg}")
                for nm in names:
                    path = ".".join(stack + [nm])
                    fields.setdefault(path, set()).update(self.TYPES[call])
                if call == "bo_open":
                    stack.append("*" if len(names) > 1 else next(iter(names)))
            self.assertEqual(stack, [parent] if parent else [], f"{fn}(): unbalanced bo_open")
        return fields

    def documented(self):
        """{path: {JSON types}} of bench/README.md's "Results schema"
        table, a <name> as "*"; and the expansions of each <name>."""
        with open(os.path.join(TOP, "bench", "README.md")) as f:
            text = f.read()
        m = re.search(r"^## Results schema\n(.*?)(?=^## |\Z)", text, re.M | re.S)
        self.assertIsNotNone(m, "bench/README.md has no \"Results schema\" section")
        doc = {}
        for row in re.finditer(r"^\| `([^`]+)` \| ([^|]+) \|", m.group(1), re.M):
            path = re.sub(r"<\w+>", "*", row.group(1))
            self.assertNotIn(path, doc, f"{row.group(1)} twice")
            doc[path] = set(row.group(2).strip().split(" or "))
        names = {}
        for item in re.finditer(r"`<(\w+)>`: ([^;\n]*(?:\n  [^;\n]*)*)", m.group(1)):
            names[item.group(1)] = set(re.findall(r"`(\w+)`", item.group(2)))
        return doc, names

    def test_writer_documented(self):
        doc, _ = self.documented()
        wrote = self.writer()
        self.assertGreater(len(wrote), 50)
        missing = sorted(p for p in wrote if p not in doc)
        self.assertEqual(missing, [], "written by fwq_bench, not in bench/README.md")
        extra = sorted(p for p in doc if p not in wrote)
        self.assertEqual(extra, [], "in bench/README.md, not written by fwq_bench")
        for path, types in doc.items():
            self.assertEqual(types, wrote[path], f"{path}: documented {types}, written "
                             f"{wrote[path]}")

    def test_names(self):
        """Each <name> of the table is listed under it, with its values;
        <probe>'s are the host objects the writer writes."""
        doc, names = self.documented()
        wrote = self.writer()
        with open(os.path.join(TOP, "bench", "README.md")) as f:
            used = set(re.findall(r"`[^`]*<(\w+)>[^`]*` \|", f.read()))
        self.assertTrue(used)
        self.assertEqual(used - set(names), set(), "a <name> not listed")
        for n in used:
            self.assertTrue(names[n], f"<{n}> lists no value")
        self.assertEqual({p.split(".")[1] for p, t in wrote.items()
                          if p.count(".") == 1 and p.startswith("host.") and "object" in t},
                         names["probe"])

    def test_reader_documented(self):
        """Every field bench_report.py checks or tabulates is documented."""
        doc, names = self.documented()
        read = [p for p, _ in br.RUN_FIELDS + br.METRIC_FIELDS + br.HOST_FIELDS]
        read += [f"host.probe_before.{k}" for k in br.PROBE_LISTS]
        read += [f"metrics.{m}" for ms in br.METRICS.values() for m, _, _ in ms]
        pats = [re.escape(d).replace(r"\*", r"\w+") for d in doc]
        for path in read:
            self.assertTrue(any(re.fullmatch(p, path) for p in pats),
                            f"bench_report.py reads {path}, not in bench/README.md")


def host_fixture(name):
    """The runs of slow-host fixture fixtures/host-NAME (record_probes.py),
    None if it is not recorded."""
    path = os.path.join(HERE, "fixtures", f"host-{name}", "probes.jsonl")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class HostProbe(unittest.TestCase):
    """The slow-host rule (bench_report.probe_slow(), bench/bench.h's
    bench_probe_slow()) on synthetic probes and on probes recorded on an
    idle and on a loaded host: at most 10% of the idle runs slow, at least
    half of the loaded ones, and fwq_bench's own "slow" the same as the
    rule's on every recorded run. Deterministic: it reads recorded figures,
    times nothing."""

    def probe(self, stolen, window=None):
        window = window or [2000] * len(stolen)
        return {"cpus": list(range(len(stolen))), "pass_mns": [60000] * len(stolen),
                "window_us": window, "stolen_us": stolen, "max_gap_us": stolen}

    def test_rule(self):
        self.assertFalse(br.probe_slow(self.probe([0, 0])))
        self.assertFalse(br.probe_slow(self.probe([499, 0])))
        # 250 permille of the window, on one CPU, is slow
        self.assertTrue(br.probe_slow(self.probe([0, 500])))
        self.assertTrue(br.probe_slow(self.probe([0, 2500], [2000, 4500])))
        self.assertFalse(br.probe_slow(self.probe([0, 1000], [2000, 4001])))
        h = {"probe_before": self.probe([0, 0]), "probe_after": self.probe([600, 0])}
        self.assertTrue(br.run_slow(h))
        h["probe_after"] = self.probe([0, 0])
        self.assertFalse(br.run_slow(h))
        self.assertIsNone(br.run_slow({"slow": 1}))

    def check(self, name, lo, hi):
        runs = host_fixture(name)
        if runs is None:
            self.skipTest(f"fixtures/host-{name} not recorded (record_probes.py)")
        slow = [br.run_slow(r["host"]) for r in runs]
        self.assertNotIn(None, slow)
        # fwq_bench decided the same, run by run
        self.assertEqual([bool(r["host"]["slow"]) for r in runs], slow)
        share = sum(slow) / len(slow)
        print(f"# slow host: {name}: {sum(slow)} of {len(slow)} runs slow "
              f"({100 * share:.1f}%)", file=sys.stderr)
        self.assertGreaterEqual(share, lo)
        self.assertLessEqual(share, hi)
        return runs

    def test_idle(self):
        self.check("idle", 0.0, 0.10)

    def test_loaded(self):
        self.check("loaded", 0.50, 1.0)


class BadInput(Scratch):
    """Bad input: one error line on stderr, exit 2, no traceback, nothing
    written."""

    def bad(self, text, want):
        d = os.path.join(self.tmp, "bad")
        os.makedirs(d)
        if text is not None:
            with open(os.path.join(d, "results.jsonl"), "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode())
        rc, out, err = run_report(d)
        self.assertEqual(rc, 2, err)
        self.assertNotIn("Traceback", err)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("bench_report: "), err)
        self.assertRegex(lines[0], want)
        self.assertEqual(sorted(os.listdir(d)), [] if text is None else ["results.jsonl"])

    def good(self):
        return fixtures.files("s1-seven")["results.jsonl"].splitlines(keepends=True)

    def edited(self, i, fn):
        """The s1-seven fixture with run i passed through fn."""
        lines = self.good()
        r = json.loads(lines[i])
        fn(r)
        lines[i] = json.dumps(r) + "\n"
        return "".join(lines)

    def test_empty(self):
        self.bad("", r"results\.jsonl: no runs \(the file is empty\)$")

    def test_blank(self):
        self.bad("\n\n", r"no runs")

    def test_missing(self):
        self.bad(None, r"results\.jsonl: No such file or directory$")

    def test_truncated(self):
        lines = self.good()
        self.bad("".join(lines[:5]) + lines[5][:len(lines[5]) // 2] + "\n",
                 r"results\.jsonl:6: not a whole JSON object .*truncated")

    def test_truncated_last(self):
        lines = self.good()
        self.bad("".join(lines[:-1]) + lines[-1][:100], r"results\.jsonl:35: not a whole")

    def test_missing_field(self):
        self.bad(self.edited(3, lambda r: r.pop("topology")),
                 r"results\.jsonl:4: the run has no \"topology\"$")

    def test_missing_nested_field(self):
        self.bad(self.edited(0, lambda r: r["topology"].pop("nr_cpu_ids")),
                 r":1: the run has no \"topology.nr_cpu_ids\"$")

    def test_missing_metrics(self):
        self.bad(self.edited(2, lambda r: r.pop("metrics")), r":3: the run has no \"metrics\"$")

    def test_wrong_type(self):
        self.bad(self.edited(1, lambda r: r.update(threads="2")),
                 r":2: \"threads\" is \"2\", not an integer$")

    def test_schema(self):
        self.bad(self.edited(0, lambda r: r.update(schema="fwq_bench/2")),
                 r":1: schema \"fwq_bench/2\", not \"fwq_bench/1\"$")

    def test_not_object(self):
        self.bad("[1, 2]\n", r":1: not a JSON object$")

    def test_bad_variant(self):
        self.bad(self.edited(1, lambda r: r.update(variant="wake=pick")),
                 r":2: variant \"wake=pick\" does not name the axes")

    def test_bad_host(self):
        self.bad(self.edited(1, lambda r: r["host"].pop("slow")),
                 r":2: the run has no \"host.slow\"$")

    def test_not_utf8(self):
        self.bad(b"\xff\xfe{}\n", r"not UTF-8 text$")

    def test_compare_bad(self):
        a = self.fixture("s1-seven")
        d = os.path.join(self.tmp, "empty")
        os.makedirs(d)
        open(os.path.join(d, "results.jsonl"), "w").close()
        rc, out, err = run_report("--compare", os.path.join(self.tmp, "o"), a, d)
        self.assertEqual(rc, 2)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertNotIn("Traceback", err)

    def test_bad_counts(self):
        d = self.fixture("flush")
        with open(os.path.join(d, "icount.jsonl"), "a") as f:
            f.write('{"schema": "fwq_icount/1", "label": "p8", "op": "kick"')
        rc, out, err = run_report(d)
        self.assertEqual(rc, 2, err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertRegex(err, r"icount\.jsonl:\d+: not a whole JSON object")
        with open(os.path.join(d, "icount.jsonl"), "w") as f:
            f.write('{"schema": "fwq_icount/1", "label": "p8", "op": "kick", "type": "unbound", '
                    '"scope": "cache", "target": "kwq", "variant": "kernel", "insns": 5}\n')
        rc, out, err = run_report(d)
        self.assertEqual(rc, 2, err)
        self.assertRegex(err, r"icount\.jsonl:1: \"insns\" is not a median, min and max$")

    def test_usage(self):
        for args in ([], ["a", "b"], ["--bogus"], ["--compare", "o", "a"], ["--replay"],
                     ["--replay", "a", "b", "c"], ["--replay", "-x"],
                     ["--count-phases", "a", "p8"]):
            rc, out, err = run_report(*args)
            self.assertEqual(rc, 2, args)
            self.assertEqual(err.splitlines(), [br.USAGE], args)


if __name__ == "__main__":
    sys.exit(taprun.main(sys.argv[1:]))
