#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""vm-diag.py: ask a hung fwq test guest where it is, through QEMU's monitor.

  vm-diag.py --monitor SOCK --console LOG --out DIR [--system-map MAP]
             [--why TEXT] [--settle S] [--quiet S]

vm-run.sh calls this when a guest reaches its timeout or stops making
progress, before it kills QEMU. Two views, so that a guest whose kernel no
longer answers still says something:

  1. QEMU's own view, which needs nothing from the guest: every vCPU's
     registers ("info registers -a"), its RIP resolved against the guest
     kernel's System.map (the guest boots with nokaslr), and a scan of the
     top of its kernel stack for kernel text addresses (like the "?" lines
     of a kernel backtrace: candidates, not a proven call chain).
  2. The guest kernel's view: magic SysRq through the emulated keyboard:
     "l" (a backtrace of every CPU, by NMI) and "w" (the tasks in D state);
     then an NMI on every vCPU, which the guest (booted with
     unknown_nmi_panic panic_print=0x1) answers with a panic that prints
     the stacks of its own CPU and of every task, even when no CPU takes
     interrupts any more. The console bytes written after the first
     request are copied out.

Writes DIR/diag.txt (the summary: why, the vCPUs, resolved RIPs and stack
candidates, the SysRq output) and DIR/diag-regs.txt (raw registers). Exit
0 when diag.txt was written, 2 when the monitor could not be reached.
Python 3 standard library only.
"""

import argparse
import bisect
import os
import re
import socket
import subprocess
import sys
import time

PROMPT = b"(qemu) "
ANSI = re.compile(rb"\x1b\[[0-9;]*[A-Za-z]|\x1b[()][A-Za-z0-9]")
KTEXT_LO = 0xffffffff80000000


class Monitor:
    """A QEMU human monitor on a UNIX socket."""

    def __init__(self, path, timeout):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.dead = None
        self._read_prompt()

    def _read_prompt(self):
        buf = b""
        while not buf.endswith(PROMPT):
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("monitor closed")
            buf += chunk
        return buf

    def cmd(self, line):
        """The output of one monitor command; a monitor that stopped
        answering (QEMU itself hung) gives a note instead."""
        if self.dead:
            return "(monitor gave up earlier: %s)" % self.dead
        try:
            self.sock.sendall(line.encode() + b"\n")
            raw = ANSI.sub(b"", self._read_prompt())
        except OSError as e:
            self.dead = "%s: %s" % (line, e or "timed out")
            return "(monitor did not answer %s)" % self.dead
        text = raw.decode("utf-8", "replace").replace("\r", "")
        lines = text.split("\n")
        # the monitor echoes the command line first and ends on the prompt
        if lines and lines[0].strip().endswith(line.strip()):
            lines = lines[1:]
        if lines and lines[-1].startswith("(qemu)"):
            lines = lines[:-1]
        return "\n".join(lines).strip("\n")


def module_text(ko):
    """{section: [(offset, name)]} of a module's functions, from objdump."""
    try:
        out = subprocess.run(["objdump", "-t", ko], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    secs = {}
    for line in out.split("\n"):
        m = re.match(r"([0-9a-f]{16}) .{6}F (\S+)\s+([0-9a-f]+) (\S+)$", line)
        if m:
            secs.setdefault(m.group(2), []).append(
                (int(m.group(1), 16), int(m.group(3), 16), m.group(4)))
    return secs


class SymbolMap:
    """Kernel text symbols from a System.map, plus the loaded modules'."""

    def __init__(self, path):
        self.addrs = []
        self.names = []
        self.end = 0
        self.mods = []
        if not path or not os.path.exists(path):
            return
        syms = []
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3 or parts[1] not in "tTwW":
                    continue
                try:
                    syms.append((int(parts[0], 16), parts[2]))
                except ValueError:
                    continue
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]
        for a, n in syms:
            if n == "_etext":
                self.end = a
        if not self.end and self.addrs:
            self.end = self.addrs[-1]

    def add_modules(self, heartbeat, kos):
        """Functions of the modules loaded in the guest: their text
        sections' addresses from its heartbeat ("sec MODULE SECTION ADDR"
        lines), their offsets from the .ko files it booted with."""
        loaded = []
        try:
            with open(heartbeat, encoding="utf-8", errors="replace") as f:
                for line in f:
                    parts = line.split()
                    if parts[:1] == ["mods"]:
                        loaded = []
                    elif len(parts) == 4 and parts[0] == "sec":
                        loaded.append((parts[1], parts[2], int(parts[3], 16)))
        except (OSError, ValueError):
            return
        byname = {os.path.basename(k)[:-3].replace("-", "_"): k for k in kos}
        cache = {}
        for name, sec, base in loaded:
            if name not in byname:
                continue
            if name not in cache:
                cache[name] = module_text(byname[name])
            for off, size, fn in cache[name].get(sec, []):
                self.mods.append((base + off, size, fn, name))

    def lookup(self, addr):
        """'func+0xoff' for a kernel or module text address, else None."""
        for start, size, fn, name in self.mods:
            if start <= addr < start + max(size, 1):
                return "%s+0x%x [%s]" % (fn, addr - start, name)
        if not self.addrs or addr < self.addrs[0] or addr >= self.end:
            return None
        i = bisect.bisect_right(self.addrs, addr) - 1
        return "%s+0x%x" % (self.names[i], addr - self.addrs[i])


def cpu_regs(text):
    """Split 'info registers -a' output into {cpu: {reg: value}}."""
    cpus = {}
    cur = None
    for line in text.split("\n"):
        m = re.match(r"\s*CPU#(\d+)", line)
        if m:
            cur = int(m.group(1))
            cpus[cur] = {}
            continue
        if cur is None:
            continue
        for reg, val in re.findall(r"\b([A-Z][A-Z0-9]{1,3})=([0-9a-fA-F]+)\b",
                                   line):
            cpus[cur].setdefault(reg, int(val, 16))
    return cpus


def stack_scan(mon, cpu, rsp, symbols, words):
    """Kernel text addresses among the top WORDS words at RSP of CPU."""
    if rsp < 0xff00000000000000:
        return ["    (rsp %#x is not a kernel address)" % rsp]
    mon.cmd("cpu %d" % cpu)
    out = mon.cmd("x /%dgx %#x" % (words, rsp))
    found = []
    after_int3 = 0
    for line in out.split("\n"):
        m = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
        if not m:
            continue
        for val in re.findall(r"0x([0-9a-f]{16})", m.group(2)):
            addr = int(val, 16)
            sym = symbols.lookup(addr)
            if not sym:
                continue
            found.append("    ? %s (%s)" % (sym, val))
            if after_int3:
                # an int3 frame holds the trap site + 1 (or the site, once
                # the handler moved it back): what does memory hold there
                # now? 0xcc is a live int3; anything else a patched one
                site = mon.cmd("x /2xb %#x" % (addr - 1)).strip()
                found.append("      bytes at %#x now: %s" %
                             (addr - 1, site.split(":")[-1].strip()))
                after_int3 -= 1
            if sym.startswith("asm_exc_int3+"):
                after_int3 = 2
    return found or ["    (no kernel text address in the top %d words)" % words]


def settle(console, limit, quiet):
    """Wait for the guest's answer to a request: until the console has
    grown and then stayed quiet for QUIET seconds, or LIMIT seconds in all
    (a kernel that does not answer). Returns the seconds waited."""
    t0 = time.monotonic()
    size = last = -1
    changed = t0
    while True:
        now = time.monotonic()
        if now - t0 >= limit:
            break
        try:
            cur = os.path.getsize(console)
        except OSError:
            cur = 0
        if size < 0:
            size = last = cur
        elif cur != last:
            last = cur
            changed = now
        elif last != size and now - changed >= quiet:
            break
        time.sleep(0.2)
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--monitor", required=True)
    ap.add_argument("--console", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--system-map", default="")
    ap.add_argument("--heartbeat", default="",
                    help="the guest's heartbeat.log (its module list)")
    ap.add_argument("--ko", action="append", default=[],
                    help="a module the guest booted with (repeatable)")
    ap.add_argument("--why", default="")
    ap.add_argument("--settle", type=float, default=8.0,
                    help="at most this many seconds for each SysRq report "
                    "(twice that for the NMI)")
    ap.add_argument("--quiet", type=float, default=2.0,
                    help="a report is over once the console has been quiet "
                    "this long after it grew")
    ap.add_argument("--stack-words", type=int, default=48)
    args = ap.parse_args()

    report = ["fwq vm diagnosis: %s" % (args.why or "requested"),
              "time: %s" % time.strftime("%Y-%m-%d %H:%M:%S")]
    try:
        mon = Monitor(args.monitor, 20)
    except OSError as e:
        report.append("QEMU monitor %s not reachable: %s" % (args.monitor, e))
        with open(os.path.join(args.out, "diag.txt"), "w") as f:
            f.write("\n".join(report) + "\n")
        return 2

    symbols = SymbolMap(args.system_map)
    if args.heartbeat:
        symbols.add_modules(args.heartbeat, args.ko)
    report.append("symbols: %s (%d text symbols), modules: %s" %
                  (args.system_map or "none", len(symbols.addrs),
                   " ".join(sorted({m[3] for m in symbols.mods})) or "none"))
    report += ["", "== info status", mon.cmd("info status"),
               "", "== info cpus", mon.cmd("info cpus")]

    regs = mon.cmd("info registers -a")
    with open(os.path.join(args.out, "diag-regs.txt"), "w") as f:
        f.write(regs + "\n")
    report += ["", "== vCPUs as QEMU sees them (RIP, then stack candidates)"]
    for cpu, r in sorted(cpu_regs(regs).items()):
        rip = r.get("RIP", 0)
        rsp = r.get("RSP", 0)
        sym = symbols.lookup(rip)
        if sym is None and rip >= KTEXT_LO:
            sym = "module or unknown text"
        flags = r.get("RFL", 0)
        report.append("CPU#%d RIP=%016x %s RSP=%016x IF=%d HLT=%d" %
                      (cpu, rip, sym or "(user or unknown)", rsp,
                       1 if flags & 0x200 else 0, r.get("HLT", 0)))
        try:
            report += stack_scan(mon, cpu, rsp, symbols, args.stack_words)
        except OSError as e:
            report.append("    (stack read failed: %s)" % e)

    # The code at each RIP as it is in guest memory now: if a vCPU keeps
    # trapping on an int3 that memory no longer holds, the emulator runs
    # stale translated code (a cross-vCPU code patching problem).
    seen = set()
    report += ["", "== guest memory at each vCPU's RIP"]
    for cpu, r in sorted(cpu_regs(regs).items()):
        rip = r.get("RIP", 0)
        if rip < KTEXT_LO or rip in seen:
            continue
        seen.add(rip)
        mon.cmd("cpu %d" % cpu)
        report.append("RIP %016x %s (CPU#%d):" %
                      (rip, symbols.lookup(rip) or "?", cpu))
        report.append("    " + mon.cmd("x /8xb %#x" % rip).replace("\n", "\n    "))
        report.append("    " + mon.cmd("x /2i %#x" % rip).replace("\n", "\n    "))

    # The guest's own view: SysRq l (all-CPU backtraces), w (D state).
    try:
        start = os.path.getsize(args.console)
    except OSError:
        start = 0
    for key, what in (("l", "backtrace of all active CPUs"),
                      ("w", "blocked (D state) tasks")):
        try:
            mon.cmd("sendkey alt-sysrq-%s" % key)
        except OSError as e:
            report.append("sendkey sysrq-%s failed: %s" % (key, e))
        waited = settle(args.console, args.settle, args.quiet)
        report.append("")
        report.append("== requested SysRq %s (%s), waited %.1fs" %
                      (key, what, waited))
    # Last resort, and the end of the guest: an NMI to every vCPU. The
    # guest boots with unknown_nmi_panic and panic_print=0x1, so the first
    # CPU to take it panics with its own stack and every task's.
    try:
        mon.cmd("nmi")
        waited = settle(args.console, args.settle * 2, args.quiet)
        report += ["", "== requested an NMI on every vCPU (panic, all "
                   "tasks), waited %.1fs" % waited]
    except OSError as e:
        report.append("nmi failed: %s" % e)
    try:
        with open(args.console, "rb") as f:
            f.seek(start)
            sysrq = f.read().decode("utf-8", "replace").replace("\r", "")
    except OSError:
        sysrq = ""
    report += ["", "== console after the requests (%d bytes)" % len(sysrq),
               sysrq.rstrip("\n") or "(the guest printed nothing: its kernel "
               "did not answer)"]
    with open(os.path.join(args.out, "diag.txt"), "w") as f:
        f.write("\n".join(report) + "\n")
    print(start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
