# SPDX-License-Identifier: GPL-2.0
"""drgn helpers for fwq's objects: workqueues, pools, pwqs, workers,
pending items and stuck workers.

Import it in drgn (``sys.path`` holding this directory, or
``/usr/share/fwq/drgn`` where the package installs it)::

    >>> import fwq
    >>> fwq.attach(prog)                 # fwq.ko's debug info, if missing
    >>> for pool in fwq.for_each_pool(prog):
    ...     print(fwq.pool_line(pool))

or run the command line tool ``fwq-drgn`` (``tools/fwq-drgn``), which
prints the same lines. Everything here reads memory through the drgn
Program only, so it works on a live kernel (/proc/kcore) and on a vmcore
alike. What drgn needs to find fwq's types and variables differs:

- a live kernel: fwq.ko with its debug info (an unstripped build; DKMS
  keeps it, dkms.conf STRIP[]="no"). The kernel's own debug info is not
  needed: attach() places fwq.ko at the addresses of /sys/module/fwq/
  sections and takes the few core symbols it reads (jiffies,
  __per_cpu_offset, ...) from /proc/kallsyms;
- a vmcore: drgn's usual way, the kernel's debug info (vmlinux, Debian's
  linux-image-KREL-dbg) plus fwq.ko, from which drgn finds the loaded
  module itself.

The layouts are fwq's own (src/internal.h); pending items are listed as
debugfs "pending" lists them (src/debugfs.c), so the two can be compared.
"""

import lzma
import os
import tempfile

from drgn import Object, ProgramFlags
from drgn.helpers.linux.list import (
    hlist_for_each_entry,
    list_empty,
    list_for_each_entry,
)

# include/fwq/fwq.h: the work data word
_WORK_STRUCT_PWQ = 1 << 2
_WORK_STRUCT_PWQ_SHIFT = 8
# src/internal.h: pool->flags and worker->flags
_POOL_MANAGER_ACTIVE = 1 << 0
_POOL_DISASSOCIATED = 1 << 2
_WORKER_IDLE = 1 << 2

# the debugfs "pending" view's limits (src/debugfs.c)
PENDING_COUNT_MAX = 100000


class FwqError(Exception):
    """fwq's objects cannot be read (no debug info, fwq not loaded)."""


# --- finding fwq.ko's debug info and the core symbols -------------------

_kallsyms = {}


def _proc_kallsyms():
    """/proc/kallsyms of the running kernel: (by name, sorted by address)."""
    if "live" not in _kallsyms:
        by_name = {}
        by_addr = []
        try:
            with open("/proc/kallsyms", encoding="ascii",
                      errors="replace") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) < 3:
                        continue
                    addr = int(parts[0], 16)
                    by_name.setdefault(parts[2], addr)
                    if parts[1] in "tTwW" and addr:
                        # "name [module]" for a module's, as %ps prints
                        name = parts[2]
                        if len(parts) > 3:
                            name += " " + parts[3]
                        by_addr.append((addr, name))
        except OSError:
            pass
        by_addr.sort()
        _kallsyms["live"] = (by_name, by_addr)
    return _kallsyms["live"]


def _is_live(prog):
    return bool(prog.flags & ProgramFlags.IS_LIVE)


def symbol_address(prog, name):
    """The address of a kernel symbol: drgn's symbols, else kallsyms."""
    try:
        return prog.symbol(name).address
    except LookupError:
        pass
    if _is_live(prog):
        addr = _proc_kallsyms()[0].get(name)
        if addr:
            return addr
    else:
        try:
            from drgn.helpers.linux.kallsyms import load_vmlinux_kallsyms

            if "core" not in _kallsyms:
                _kallsyms["core"] = load_vmlinux_kallsyms(prog)
            syms = _kallsyms["core"](prog, name, None, True)
            if syms:
                return syms[0].address
        except (ImportError, LookupError, ValueError):
            pass
    raise FwqError(f"no address for the kernel symbol {name}")


def func_name(prog, addr):
    """The function at @addr as the kernel's %ps prints it: "name", or
    "name [module]" for a module's; its address in hex if unknown."""
    addr = int(addr)
    if not addr:
        return "(null)"
    if not _is_live(prog):
        try:
            name = prog.symbol(addr).name
        except LookupError:
            return hex(addr)
        try:
            mod = prog.module(addr).name
        except (AttributeError, LookupError):
            mod = "kernel"
        return name if mod == "kernel" else f"{name} [{mod}]"
    if _is_live(prog):
        by_addr = _proc_kallsyms()[1]
        lo, hi = 0, len(by_addr)
        while lo < hi:
            mid = (lo + hi) // 2
            if by_addr[mid][0] <= addr:
                lo = mid + 1
            else:
                hi = mid
        if lo and by_addr[lo - 1][0] == addr:
            return by_addr[lo - 1][1]
    return hex(addr)


def _have_types(prog):
    try:
        prog.type("struct fwq_pool")
        prog["fwq_workqueues"]
        return True
    except LookupError:
        return False


def _ko_file(path):
    """@path, or a decompressed copy of a .ko.xz."""
    if not path.endswith(".xz"):
        return path
    fd, out = tempfile.mkstemp(prefix="fwq-drgn-", suffix=".ko")
    with os.fdopen(fd, "wb") as f, lzma.open(path) as src:
        f.write(src.read())
    return out


def default_ko():
    """Where the running kernel's fwq.ko is: modules.dep's path."""
    rel = os.uname().release
    base = f"/lib/modules/{rel}"
    try:
        with open(f"{base}/modules.dep", encoding="utf-8") as f:
            for line in f:
                path = line.split(":", 1)[0]
                if os.path.basename(path) in ("fwq.ko", "fwq.ko.xz"):
                    return os.path.join(base, path)
    except OSError:
        pass
    return None


def _attach_live(prog, ko):
    """Place fwq.ko at the live module's sections (/sys/module/fwq)."""
    sysmod = "/sys/module/fwq"
    if not os.path.isdir(sysmod):
        raise FwqError("fwq is not loaded (no /sys/module/fwq)")
    base = None
    with open("/proc/modules", encoding="ascii") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == "fwq" and len(parts) >= 6:
                base = int(parts[5], 16)
    if not base:
        raise FwqError("no address for fwq in /proc/modules (not root?)")
    module = prog.relocatable_module("fwq", base, create=True)
    secs = f"{sysmod}/sections"
    for name in os.listdir(secs):
        with open(os.path.join(secs, name), encoding="ascii") as f:
            module.section_addresses[name] = int(f.read().strip(), 16)
    note = f"{sysmod}/notes/.note.gnu.build-id"
    force = True
    try:
        with open(note, "rb") as f:
            data = f.read()
        # an ELF note: namesz, descsz, type, "GNU\0", the build ID
        namesz = int.from_bytes(data[0:4], "little")
        descsz = int.from_bytes(data[4:8], "little")
        off = 12 + ((namesz + 3) & ~3)
        module.build_id = data[off:off + descsz]
        force = False
    except (OSError, ValueError):
        pass
    module.try_file(_ko_file(ko), force=force)
    if not _have_types(prog):
        raise FwqError(f"{ko} does not match the loaded fwq.ko, or has no "
                       "debug info (a stripped build?)")


def attach(prog, ko=None):
    """Make fwq's types and variables available in @prog.

    Nothing is done when they are (drgn loaded fwq.ko itself). On a live
    kernel fwq.ko (@ko, default the installed one) is placed at the
    loaded module's sections; on a vmcore drgn must have found it.
    """
    if _have_types(prog):
        return
    if ko is None:
        ko = default_ko()
    if _is_live(prog):
        if not ko:
            raise FwqError("no fwq.ko found: give its path (--ko)")
        _attach_live(prog, ko)
        return
    if ko:
        try:
            prog.load_debug_info([ko])
        except Exception:  # drgn reports what is missing; checked below
            pass
    if not _have_types(prog):
        raise FwqError("no debug info for fwq in this vmcore: drgn needs the "
                       "kernel's (vmlinux) and fwq.ko's (-s fwq.ko)")


# --- the core kernel's few values ---------------------------------------


def jiffies(prog):
    return prog.read_u64(symbol_address(prog, "jiffies"))


def hz(prog):
    """CONFIG_HZ: fwq_hz (src/debugfs.c), else from tick_nsec
    (NSEC_PER_SEC / HZ, rounded; gone in newer kernels)."""
    try:
        return prog["fwq_hz"].value_()
    except LookupError:
        pass
    tick = prog.read_u64(symbol_address(prog, "tick_nsec"))
    if not tick:
        raise FwqError("cannot tell HZ (no fwq_hz, tick_nsec is 0)")
    return max(1, round(1e9 / tick))


def possible_cpus(prog):
    """The possible CPUs: __cpu_possible_mask's bits below nr_cpu_ids."""
    nr = prog.read_u32(symbol_address(prog, "nr_cpu_ids"))
    mask = symbol_address(prog, "__cpu_possible_mask")
    cpus = []
    for word in range((nr + 63) // 64):
        bits = prog.read_u64(mask + 8 * word)
        for bit in range(64):
            cpu = 64 * word + bit
            if cpu < nr and bits & (1 << bit):
                cpus.append(cpu)
    return cpus


def per_cpu_address(prog, addr, cpu):
    """A per-CPU address of @cpu (__per_cpu_offset[cpu] added)."""
    off = prog.read_u64(symbol_address(prog, "__per_cpu_offset") + 8 * cpu)
    return (int(addr) + off) & 0xFFFFFFFFFFFFFFFF


def _enum_name(val, prefix):
    """"pick" for FWQ_WAKE_PICK, from an enum object's value."""
    name = None
    try:
        for e in val.type_.type.enumerators:
            if e.value == val.value_():
                name = e.name
    except AttributeError:
        pass
    if name is None:
        return str(val.value_())
    return name[len(prefix):].lower() if name.startswith(prefix) else name


# --- workqueues, pools, pwqs --------------------------------------------


def for_each_workqueue(prog):
    """Every fwq workqueue (struct fwq_workqueue *), oldest first."""
    return list_for_each_entry("struct fwq_workqueue",
                               prog["fwq_workqueues"].address_of_(), "list")


def find_workqueue(prog, name):
    for wq in for_each_workqueue(prog):
        if wq.name.string_().decode() == name:
            return wq
    return None


def for_each_pool(prog):
    """Every pool: the per-CPU ones of each (wake, kicked_list) pool
    variant that has them, CPU by CPU, then the unbound ones."""
    pools = []
    cpu_pools = prog["fwq_cpu_pools"]
    nr_std = 2  # FWQ_NR_STD_POOLS: normal and highpri
    cpus = None
    for i in range(len(cpu_pools)):
        ptr = cpu_pools[i].value_()
        if not ptr:
            continue
        if cpus is None:
            cpus = possible_cpus(prog)
            size = prog.type("struct fwq_pool").size
        for cpu in cpus:
            base = per_cpu_address(prog, ptr, cpu)
            for j in range(nr_std):
                pools.append(Object(prog, "struct fwq_pool *",
                                    base + j * size))
    hash_tab = prog["fwq_unbound_pool_hash"]
    unbound = []
    for i in range(len(hash_tab)):
        for pool in hlist_for_each_entry("struct fwq_pool",
                                         hash_tab[i].address_of_(),
                                         "hash_node"):
            unbound.append(pool)
    unbound.sort(key=lambda p: p.id.value_())
    return pools + unbound


def pool_workers(pool):
    """The workers attached to @pool (struct fwq_worker *)."""
    return list_for_each_entry("struct fwq_worker",
                               pool.workers.address_of_(), "node")


def worker_state(worker):
    """busy (runs an item), manager, kicked, idle or other."""
    pool = worker.pool
    if worker.current_work.value_():
        return "busy"
    if pool and pool.manager.value_() == worker.value_():
        return "manager"
    if worker.kicked.value_():
        return "kicked"
    if worker.flags.value_() & _WORKER_IDLE:
        return "idle"
    return "other"


def pool_worklist(pool):
    return list_for_each_entry("struct fwq_work",
                               pool.worklist.address_of_(), "entry")


def pool_line(pool):
    """One pool, as fwq-drgn pools prints it."""
    prog = pool.prog_
    cpu = pool.cpu.value_()
    where = (f"cpu={cpu}{'H' if pool.highpri.value_() else ''}" if cpu >= 0
             else f"unbound node={pool.node.value_()}")
    states = {}
    for w in pool_workers(pool):
        s = worker_state(w)
        states[s] = states.get(s, 0) + 1
    wl = sum(1 for _ in pool_worklist(pool))
    flags = pool.flags.value_()
    age = (jiffies(prog) - pool.last_progress_ts.value_()) & (2**64 - 1)
    return (f"pool {pool.id.value_()}: {where}"
            f"{' disassociated' if flags & _POOL_DISASSOCIATED else ''}"
            f" wake={_enum_name(pool.attrs.wake, 'FWQ_WAKE_')}"
            f" kicked_list={_enum_name(pool.attrs.kicked, 'FWQ_KICKED_')}"
            f" workers={pool.nr_workers.value_()} idle={pool.nr_idle.value_()}"
            f" busy={states.get('busy', 0)}"
            f" nr_running={pool.nr_running.counter.value_()}"
            f" worklist={wl} manager={1 if flags & _POOL_MANAGER_ACTIVE else 0}"
            f" progress_age_ms={age * 1000 // hz(prog)}")


def for_each_pwq(wq):
    """The pwqs of workqueue @wq (struct fwq_pwq *), oldest first."""
    return list_for_each_entry("struct fwq_pwq", wq.pwqs.address_of_(),
                               "pwqs_node")


def work_pwq(work):
    """The pwq a queued item points to, or 0."""
    # atomic_long_t: a signed long, made the unsigned word it is
    data = work.data.counter.value_() & (2**64 - 1)
    if data & _WORK_STRUCT_PWQ:
        return data & ~((1 << _WORK_STRUCT_PWQ_SHIFT) - 1) & (2**64 - 1)
    return 0


def pwq_pending(pwq):
    """The items waiting on @pwq, in the order they will run: ("active",
    work) for those on the pool's worklist, then ("inactive", work) for
    those max_active holds back."""
    addr = pwq.value_()
    n = 0
    for work in pool_worklist(pwq.pool):
        if work_pwq(work) == addr:
            yield "active", work
            n += 1
            if n == PENDING_COUNT_MAX:
                break
    n = 0
    for work in list_for_each_entry("struct fwq_work",
                                     pwq.inactive_works.address_of_(),
                                     "entry"):
        yield "inactive", work
        n += 1
        if n == PENDING_COUNT_MAX:
            break


def pwq_line(pwq):
    pool = pwq.pool
    cpu = pool.cpu.value_()
    where = f"cpu={cpu}" if cpu >= 0 else "unbound"
    inactive = 0 if list_empty(pwq.inactive_works.address_of_()) else sum(
        1 for s, _ in pwq_pending(pwq) if s == "inactive")
    return (f"pwq {pwq.wq.name.string_().decode()} pool={pool.id.value_()} "
            f"{where} refcnt={pwq.refcnt.value_()}"
            f" nr_active={pwq.nr_active.value_()} inactive={inactive}"
            f" in_flight={pwq.total_in_flight.value_()}")


def pending_lines(pwq, limit=8):
    """The lines debugfs "pending" prints for @pwq (none if nothing
    waits), its first @limit items with their functions."""
    prog = pwq.prog_
    items = list(pwq_pending(pwq))
    active = sum(1 for s, _ in items if s == "active")
    inactive = len(items) - active
    if not items:
        return []
    pool = pwq.pool
    cpu = pool.cpu.value_()
    where = f"cpu={cpu}" if cpu >= 0 else "unbound"
    plus_a = "+" if active == PENDING_COUNT_MAX else ""
    plus_i = "+" if inactive == PENDING_COUNT_MAX else ""
    lines = [f"pwq {pwq.wq.name.string_().decode()} pool={pool.id.value_()} "
             f"{where} active={active}{plus_a} inactive={inactive}{plus_i}"]
    for state, work in items[:limit]:
        lines.append(f"  {state} {func_name(prog, work.func.value_())}")
    if len(items) > limit:
        lines.append(f"  ... {len(items) - limit} more")
    return lines


def wq_line(wq):
    v = wq.variant
    kind = "unbound" if wq.unbound_attrs.value_() else "percpu"
    return (f"wq {wq.name.string_().decode()}: {kind}"
            f" wake={_enum_name(v.wake, 'FWQ_WAKE_')}"
            f",kicked_list={_enum_name(v.kicked, 'FWQ_KICKED_')}"
            f",flush={_enum_name(v.flush, 'FWQ_FLUSH_')}"
            f" max_active={wq.max_active.value_()}"
            f" pwqs={sum(1 for _ in for_each_pwq(wq))}"
            f" flushes={wq.nr_flushes.value_()}")


# --- workers ------------------------------------------------------------


def worker_line(worker, now=None, tick_hz=None):
    prog = worker.prog_
    pool = worker.pool
    task = worker.task
    state = worker_state(worker)
    line = (f"worker pool={pool.id.value_()} id={worker.id.value_()}"
            f" pid={task.pid.value_()} comm={task.comm.string_().decode()}"
            f" state={state}")
    if state == "busy":
        now = jiffies(prog) if now is None else now
        tick_hz = hz(prog) if tick_hz is None else tick_hz
        age = (now - worker.current_start.value_()) & (2**64 - 1)
        pwq = worker.current_pwq
        wq = pwq.wq.name.string_().decode() if pwq.value_() else "?"
        line += (f" wq={wq} func={func_name(prog, worker.current_func.value_())}"
                 f" for_ms={age * 1000 // tick_hz}")
    return line


def stuck_workers(prog, min_ms=0):
    """(worker, ms) of every busy worker whose item has run @min_ms or
    longer, longest first: what the watchdog would name."""
    now = jiffies(prog)
    tick_hz = hz(prog)
    out = []
    for pool in for_each_pool(prog):
        for w in pool_workers(pool):
            if not w.current_work.value_():
                continue
            ms = ((now - w.current_start.value_()) & (2**64 - 1)) * 1000 // tick_hz
            if ms >= min_ms:
                out.append((w, ms))
    out.sort(key=lambda t: -t[1])
    return out


__all__ = [
    "FwqError", "attach", "default_ko", "for_each_pool", "for_each_pwq",
    "for_each_workqueue", "find_workqueue", "func_name", "hz", "jiffies",
    "pending_lines", "pool_line", "pool_workers", "pwq_line", "pwq_pending",
    "stuck_workers", "symbol_address", "worker_line", "worker_state",
    "wq_line",
]
