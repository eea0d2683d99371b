# SPDX-License-Identifier: GPL-2.0
"""unittest runner for fwq's Python tests, as make check's cmd lanes read
them: with --out DIR, DIR/tests.txt gets one "ok NAME", "not ok NAME" or
"skip NAME" line per test; the last line printed is "N passed, N failed".

    sys.exit(taprun.main(sys.argv[1:], module="__main__", prefix=""))
"""

import os
import sys
import unittest


class TapResult(unittest.TextTestResult):
    """Also keeps "ok NAME" / "not ok NAME" lines for make check."""

    prefix = ""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.tap = []

    def name(self, test):
        return self.prefix + test.id().split(".", 1)[1]

    def addSuccess(self, test):
        super().addSuccess(test)
        self.tap.append(f"ok {self.name(test)}")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.tap.append(f"not ok {self.name(test)} # failed")

    def addError(self, test, err):
        super().addError(test, err)
        self.tap.append(f"not ok {self.name(test)} # error")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.tap.append(f"skip {self.name(test)} # {reason}")


def main(argv, module="__main__", prefix=""):
    """Run MODULE's tests with ARGV ([--out DIR] [unittest args]); 0 if all
    passed. PREFIX goes before each test's CLASS.TEST name in tests.txt."""
    out = None
    if len(argv) >= 2 and argv[0] == "--out":
        out, argv = argv[1], argv[2:]
    result = type("Result", (TapResult,), {"prefix": prefix})
    prog = unittest.main(module=module, argv=[sys.argv[0]] + argv, exit=False,
                         testRunner=unittest.TextTestRunner(resultclass=result,
                                                            stream=sys.stderr, verbosity=2))
    res = prog.result
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "tests.txt"), "w") as f:
            f.write("\n".join(res.tap) + "\n")
    failed = len(res.failures) + len(res.errors)
    print(f"{res.testsRun - failed - len(res.skipped)} passed, {failed} failed")
    return 0 if res.wasSuccessful() else 1
