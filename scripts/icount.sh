#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# icount.sh [--kernels LIST] [--reps N] [--possible P] [--preset P]
#           [--pages] [--phases FILE [--jsonl FILE --label L]] [--no-build]
#           [--out DIR]: guest
# instructions per workqueue operation, fwq's designs against the kernel's
# own workqueue, counted by a QEMU TCG plugin: a cost figure without timing
# noise (make icount; docs/testing.md, "Instruction counts").
#
# For each kernel (default "6.12 7.3"; names from scripts/kernels/): builds
# the tree, boots scripts/plans/icount.plan under QEMU with the plugin of
# tools/icount/ loaded, and writes DIR/KERNEL/report.md
# (tools/icount/icount_report.py): instructions per idle flush (percpu and
# unbound workqueues) and per enqueue, the ratio to kwq, and for fwq's copy
# of the booted kernel's design (FWQ_K_DESIGN in scripts/kernels/) the
# functions where it and kwq spend them. The plugin is built against
# qemu-plugin.h of the QEMU the guests run, taken from its Debian source
# package (downloaded into the cache, never installed), and glib's headers
# (libglib2.0-dev). DIR defaults to results/<timestamp>-icount/.
# --possible P boots with possible_cpus=P (scripts/vm-run.sh), so the flush
# walks see a large CPU space as the bench's p64 and p192 boots do.
# --preset P boots vm-run.sh's preset P (default small; timing is the
# bench's topology). --pages also counts the distinct guest pages each
# loop touched (the plugin's pages=on: a callback per memory access, so
# the guest runs slower).
# --phases FILE runs FILE's phases instead of the registry's, each line
# "OP TYPE TARGET VARIANT SCOPE N" (scripts/plans/icount.plan, tests/icount/:
# OP flush, queue, kick, qflush or s5; VARIANT - for kwq; SCOPE default for
# the workqueue's own), --reps times; make bench (bench/bench.sh) makes
# them. --jsonl appends each operation's counts to FILE as JSON, labelled
# L (tools/icount/icount_report.py). --no-build: the modules are built for
# the kernel already (bench.sh built them).
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP" || exit 2

kernels="6.12 7.3"
reps=3
possible=
preset=small
pages=
out=
phases=
jsonl=
label=
build=1
while [ $# -gt 0 ]; do
	case "$1" in
	--kernels) kernels=${2:-}; shift 2 || exit 2 ;;
	--reps) reps=${2:-}; shift 2 || exit 2 ;;
	--possible) possible=${2:-}; shift 2 || exit 2 ;;
	--preset) preset=${2:-}; shift 2 || exit 2 ;;
	--pages) pages=,pages=on; shift ;;
	--phases) phases=${2:-}; shift 2 || exit 2 ;;
	--jsonl) jsonl=${2:-}; shift 2 || exit 2 ;;
	--label) label=${2:-}; shift 2 || exit 2 ;;
	--no-build) build=0; shift ;;
	--out) out=${2:-}; shift 2 || exit 2 ;;
	-h|--help) awk 'NR >= 4 && !/^#/ { exit } NR >= 4' "$0" |
		sed 's/^# \{0,1\}//'; exit 0 ;;
	*) fwq_die 2 "unknown argument $1" ;;
	esac
done
case "$reps" in ''|*[!0-9]*|0) fwq_die 2 "--reps needs a positive number" ;; esac
case "$possible" in *[!0-9]*|0) fwq_die 2 "--possible needs a positive number" ;; esac
case "$preset" in ''|*[!a-z0-9_-]*) fwq_die 2 "bad --preset '$preset'" ;; esac
[ -r "$FWQ_TOP/scripts/presets/$preset" ] || fwq_die 2 "no preset scripts/presets/$preset"
for k in $kernels; do
	fwq_kernel_names --all | grep -qx -- "$k" ||
		fwq_die 2 "--kernels: unknown kernel '$k'"
done
[ -z "$phases" ] || [ -r "$phases" ] || fwq_die 2 "--phases: cannot read $phases"
[ -z "$jsonl" ] || [ -n "$label" ] || fwq_die 2 "--jsonl needs --label"
[ -n "$out" ] || out=$FWQ_TOP/results/$(date +%Y%m%d-%H%M%S)-icount
mkdir -p "$out" || fwq_die 2 "cannot create $out"
out=$(cd "$out" && pwd)

# the QEMU of the guests, and the version of its Debian package
qemu=$("$FWQ_TOP/scripts/get-qemu.sh" "$FWQ_QEMU_SUITE") ||
	fwq_die 2 "no QEMU (scripts/get-qemu.sh $FWQ_QEMU_SUITE)"
qver=$("$qemu" --version | sed -n 's/.*(Debian \([^)]*\)).*/\1/p')
[ -n "$qver" ] || fwq_die 2 "$qemu: not a Debian QEMU, no source package to build the plugin against"
[ -r /usr/include/glib-2.0/glib.h ] || apt-get install -y -q libglib2.0-dev >&2 ||
	fwq_die 2 "installing libglib2.0-dev failed"

# qemu-plugin.h from the source package of that version, once per version
inc=$FWQ_CACHE/qemu/plugin-include/${qver//[:~]/_}
if [ ! -s "$inc/qemu-plugin.h" ]; then
	fwq_cache_lock "$FWQ_CACHE/qemu/.lock" .src
	src=$FWQ_CACHE/apt/$FWQ_QEMU_SUITE-src
	if [ ! -s "$src/sources.list" ]; then
		fwq_debian_source || exit 2
		mkdir -p "$src/lists/partial" "$src/cache/archives/partial"
		echo "deb-src ${fwq_src_keyring:+[signed-by=$fwq_src_keyring] }$fwq_src_uri $FWQ_QEMU_SUITE main" \
			> "$src/sources.list"
	fi
	aopt=(-o "Dir::Etc::sourcelist=$src/sources.list" -o Dir::Etc::sourceparts=-
	      -o "Dir::State::Lists=$src/lists" -o "Dir::Cache=$src/cache")
	# only the upstream tarball: the registry may not serve the rest
	apt-get "${aopt[@]}" update -q >&2 ||
		fwq_die 2 "apt-get update for $FWQ_QEMU_SUITE's sources failed"
	read -r uri file _ hash < <(apt-get "${aopt[@]}" source --print-uris -q \
		"qemu=$qver" 2>/dev/null | grep "\.orig\.tar\.xz' ") ||
		fwq_die 2 "no source package for qemu $qver in $FWQ_QEMU_SUITE"
	/usr/lib/apt/apt-helper download-file "${uri//\'/}" "$FWQ_TMP/$file" \
		"$hash" >&2 || fwq_die 2 "downloading $file failed"
	tar -xJf "$FWQ_TMP/$file" -C "$FWQ_TMP" --wildcards \
		'*/include/qemu/qemu-plugin.h' ||
		fwq_die 2 "no qemu-plugin.h in the qemu $qver source"
	mkdir -p "$inc"
	mv "$FWQ_TMP"/qemu-*/include/qemu/qemu-plugin.h "$inc/"
fi
# shellcheck disable=SC2046 # pkg-config's flags are words
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -I"$inc" \
	$(pkg-config --cflags glib-2.0) -o "$out/fwq-icount.so" \
	"$FWQ_TOP/tools/icount/fwq-icount.c" ||
	fwq_die 2 "building the plugin failed"

# The phases' variants, from the kernels' files and the registry: kwq;
# fwq's copy of each kernel's design (FWQ_K_DESIGN, scripts/kernels/); and
# fwq's default variant, mainline, with each flush design no kernel's
# copy has (the flush phases) and each wake design no copy has, with the
# kicked list it was posted with (the queue phase).
designs=$(for k in $(fwq_kernel_names); do
	(fwq_kernel_load "$k" && [ -n "$FWQ_K_DESIGN" ] && echo "$FWQ_K_DESIGN")
done | awk '!seen[$0]++')
ic_flush=kwq
ic_queue=kwq
for d in $designs; do
	ic_flush+=";$d"
	ic_queue+=";$d"
done
for f in $(fwq_registry flush); do
	grep -q "flush=$f\$" <<< "$designs" || ic_flush+=";mainline,flush=$f"
done
while read -r w kl; do
	grep -q "wake=$w," <<< "$designs" ||
		ic_queue+=";mainline,wake=$w,kicked_list=$kl"
done < <(fwq_registry pairs)

rc=0
for k in $kernels; do
	kout=$out/$k
	mkdir -p "$kout"
	KERNEL=$k "$FWQ_TOP/scripts/deps.sh" >&2 ||
		fwq_die 2 "dependency installation failed (kernel $k)"
	if [ $build = 1 ]; then
		(unset KDIR KREL; make -C "$FWQ_TOP" KERNEL="$k" modules) > "$kout/build.log" 2>&1 ||
			{ tail -n 20 "$kout/build.log" >&2; fwq_die 2 "build failed (kernel $k)"; }
	fi
	plan=$FWQ_TOP/scripts/plans/icount.plan
	if [ -n "$phases" ]; then
		# the phases first, then the plan that runs them
		plan=$kout/icount.plan
		{
			echo "cat > /tmp/icount.phases <<'FWQ_ICOUNT_EOF'"
			cat "$phases"
			echo "FWQ_ICOUNT_EOF"
			cat "$FWQ_TOP/scripts/plans/icount.plan"
		} > "$plan"
	fi
	KERNEL=$k FWQ_QEMU_ARGS="-plugin $out/fwq-icount.so,out=$kout/icount.txt$pages" \
		"$FWQ_TOP/scripts/vm-run.sh" --preset "$preset" \
		--plan "$plan" --timeout 1200 \
		--out "$kout/vm" --append "fwqt.icount_reps=$reps fwqt.icount_flush=$ic_flush fwqt.icount_queue=$ic_queue${possible:+ possible_cpus=$possible}" >&2 ||
		{ fwq_log "kernel $k: the guest run failed ($kout/vm)"; rc=1; continue; }
	own=$(fwq_kernel_load "$k" && echo "$FWQ_K_DESIGN")
	python3 "$FWQ_TOP/tools/icount/icount_report.py" ${own:+--equal "$own"} \
		${jsonl:+--jsonl "$jsonl" --label "$label"} \
		"$kout/icount.txt" "$kout/vm/results.txt" > "$kout/report.md" ||
		{ fwq_log "kernel $k: no report"; rc=1; continue; }
	echo "## kernel $k"
	grep -A8 '^## ' "$kout/report.md" | grep -v '^Where' || true
done
fwq_log "icount: $out"
exit $rc
