#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel-run.sh --lane lockdep|kcsan|rt --plan PLAN
#                     [--preset small|wide|timing] [--timeout S] [--out DIR]
#                     [--append "CMDLINE"] [--no-build] [--prepare-only]
#
# Run a guest plan on a debug kernel lane (--lane rt: Debian's PREEMPT_RT
# image and headers instead of a built kernel, vm-run.sh --flavour rt):
#   1. scripts/debug-kernel.sh builds the lane's kernel (once per machine);
#   2. the module sources of this tree (tracked and untracked files, as the
#      top-level make sees them) are copied to .cache/debug-build/<lane>
#      and built there against the lane's build tree, with its kernel's
#      toolchain (scripts/toolchain.sh), so the tree's own
#      .ko files (built for the Debian kernel) are left alone; if the
#      test modules do not build for the lane's kernel, the engine and
#      fwq_bench.ko alone (FWQ_TESTS=n), and the plan's test steps fail;
#   3. the kernel image is put where scripts/get-kernel.sh looks for it
#      ($FWQ_CACHE/kernel/<release>/boot/vmlinuz-<release>) and
#      scripts/vm-run.sh boots it with KREL=<release> --modules <copy>.
# FWQ_DK_KDIR=<finished build tree> skips step 1 and uses that kernel;
# --no-build fails instead of building a lane kernel that is not built yet
# (make check-debug builds them in steps of their own, with a time limit).
# --prepare-only stops before the boot (steps 1 and 2 only; .ci/run runs
# them in the background): step 2 is skipped when .cache/debug-build/<lane>
# holds a build of the same sources against the same kernel tree.
# Exit code: vm-run.sh's (0 pass, 1 fail, 2 setup, 3 badness, 124 timeout).
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
TOP=$FWQ_TOP

die() { echo "debug-kernel-run: $*" >&2; exit 2; }

lane=
append=
prepare_only=0
dkargs=()
vmargs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--lane) lane=${2:-}; shift 2 || die "--lane needs a value" ;;
	--no-build) dkargs+=(--no-build); shift ;;
	--prepare-only) prepare_only=1; shift ;;
	--append) append=${2:-}; shift 2 || die "--append needs a value" ;;
	--plan|--preset|--timeout|--out)
		[ $# -ge 2 ] || die "$1 needs a value"
		vmargs+=("$1" "$2"); shift 2 ;;
	-h|--help) sed -n '3,26p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
case "$lane" in
lockdep|kcsan|rt) ;;
*) die "--lane lockdep|kcsan|rt required" ;;
esac

if [ "$lane" = rt ]; then
	# the -rt headers and image: make check's deps.sh fetches only the
	# generic ones (quick when they are here already)
	FLAVOUR=rt KDIR='' KREL='' "$TOP/scripts/deps.sh" >&2 ||
		die "cannot install the PREEMPT_RT headers and image (scripts/deps.sh)"
	kdir=$(FLAVOUR=rt KDIR='' KREL='' "$TOP/scripts/kdir.sh" --kdir) ||
		die "no PREEMPT_RT headers (scripts/deps.sh)"
	rel=$(KDIR=$kdir KREL='' "$TOP/scripts/kdir.sh" --krel) ||
		die "cannot read the RT release"
	vmargs+=(--flavour rt)
else
	if [ -n "${FWQ_DK_KDIR:-}" ]; then
		# a finished build tree given by hand (e.g. an older config)
		kdir=$FWQ_DK_KDIR
		bz=$kdir/arch/x86/boot/bzImage
		rel=$(cat "$kdir/include/config/kernel.release" 2>/dev/null)
	else
		info=$("$TOP/scripts/debug-kernel.sh" --lane "$lane" \
			"${dkargs[@]}") ||
			die "debug kernel build failed"
		kdir=$(sed -n 's/^FWQ_DK_KDIR=//p' <<< "$info")
		bz=$(sed -n 's/^FWQ_DK_BZIMAGE=//p' <<< "$info")
		rel=$(sed -n 's/^FWQ_DK_RELEASE=//p' <<< "$info")
	fi
	if [ ! -r "$bz" ] || [ -z "$rel" ]; then
		die "debug-kernel.sh gave no image"
	fi
	# the image where get-kernel.sh finds a cached kernel for $rel
	mkdir -p "$FWQ_CACHE/kernel/$rel/boot" || die "cannot write $FWQ_CACHE"
	ln -sfn "$bz" "$FWQ_CACHE/kernel/$rel/boot/vmlinuz-$rel"
fi

# module sources, copied so the tree's Debian-built .ko files stay as they
# are; one build of a lane at a time (a --prepare-only run may be at it)
bdir=$TOP/.cache/debug-build/$lane
mkdir -p "$TOP/.cache/debug-build" || die "cannot create $bdir"
exec 9> "$bdir.lock"
flock 9
rm -rf "$bdir.src"
mkdir -p "$bdir.src" || die "cannot create $bdir.src"
fwq_copy_sources "$bdir.src" || die "copying the sources failed"
# the sources and the kernel tree they are built against
srcid=$( { echo "$kdir $rel"; cd "$bdir.src" && find . -type f | sort | xargs sha256sum; } |
	sha256sum | cut -c1-16)

# with the kernel's own toolchain (scripts/toolchain.sh: 7.3's is the
# trixie build root; the debug kernels' and 6.12's, the host's)
build() {
	"$TOP/scripts/toolchain.sh" "$kdir" -- \
		nice -n 10 make -C "$kdir" M="$bdir" -j"$(nproc)" "$@" modules \
		>"$bdir/build.log" 2>&1
}
if [ "$(cat "$bdir/.fwq-srcid" 2>/dev/null)" = "$srcid" ]; then
	rm -rf "$bdir.src"
	echo "debug-kernel-run: modules of these sources already built in $bdir" >&2
else
	rm -rf "$bdir"
	mv "$bdir.src" "$bdir"
	# Everything; if the test modules do not build for this kernel,
	# without them, saying why.
	if ! build; then
		echo "debug-kernel-run: full module build failed; retrying without the test modules (FWQ_TESTS=n):" >&2
		grep -E 'error|undefined|\*\*\*' "$bdir/build.log" | head -n 5 >&2
		build FWQ_TESTS=n ||
			{ tail -n 30 "$bdir/build.log" >&2; die "module build failed"; }
	fi
	echo "$srcid" > "$bdir/.fwq-srcid"
fi
flock -u 9
[ "$prepare_only" -eq 0 ] || { echo "debug-kernel-run: lane $lane prepared ($rel, $bdir)" >&2; exit 0; }

# KCSAN: a report must not panic the guest, since the kernel's own races
# (no fwq frame) are only listed (vm-run.sh, console-scan.sh); a report of
# fwq's, or a WARNING, still fails the run from the console scan.
[ "$lane" = kcsan ] && append="panic_on_warn=0${append:+ $append}"
[ -n "$append" ] && vmargs+=(--append "$append")
echo "debug-kernel-run: lane $lane, kernel $rel, modules from $bdir" >&2
KREL=$rel "$TOP/scripts/vm-run.sh" --modules "$bdir" "${vmargs[@]}"
