#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-distro.sh [--distro 12|13|all] [--out DIR] [--prepare-only]: the
# user's journey with the fwq-dkms package on a real Debian system (make
# check-distro; not a make check lane): Debian 12 (--distro 12, the
# default, what .ci/run runs), Debian 13 (--distro 13), or both, 12 first
# (all). Each step is one test line, "ok N distro.STEP # S s", and the run
# ends with "N passed, N failed". Debian 13's steps are named
# distro.13.STEP. The chroot steps come first, each boot reading a disk
# image made when its kernel's step ended, so the boots come last:
#
#   debootstrap      a minimal system of the journey's suite (bookworm,
#                    trixie; debootstrap --variant=minbase) with, through
#                    the chroot's own apt, systemd, dkms, python3,
#                    gnuplot-nox and the suite's stock kernel image and
#                    headers (linux-image-amd64, linux-headers-amd64: 6.1
#                    in bookworm, 6.12 in trixie), kept in
#                    $FWQ_CACHE/distro/base-SUITE-HASH; HASH covers the
#                    suite, the apt source and this stage's code, so a
#                    second run reuses it
#   install_deb      make deb, then apt-get install of the .deb in a copy
#                    of that system (chroot): DKMS builds fwq for the
#                    chroot's kernel, with the chroot's compiler (gcc-12,
#                    gcc-14), not the host's; then the copy as it is now
#                    becomes the stock kernel's boot's ext4 disk image
#   install_6.12     Debian 12: the bookworm-backports kernel image and
#                    headers (the suite's linux-image-amd64/
#                    linux-headers-amd64) in the chroot: DKMS's kernel hook
#                    must build fwq for it; then boot_6.12's disk image
#   install_7.3      Debian 13: the same with trixie-backports' 7.3
#   purge            apt-get purge fwq-dkms; nothing of fwq may remain in
#                    /lib/modules, /var/lib/dkms, /usr/src, /usr/share/fwq
#   boot_6.1         Debian 12's 6.1 image booted in QEMU (TCG) with its own
#                    kernel, initramfs and systemd; the guest
#                    (scripts/distro/fwq-distro-test.sh) modprobes fwq and
#                    fwq_bench, runs fwq-bench --help, --list, --quick
#                    --scale 1 --redo 0, a run filtered to S1's kwq and
#                    wake=pick cells, compare of the two and replay of the
#                    first, reads /sys/kernel/debug/fwq/, modprobe -r,
#                    checks three of fwq-bench's errors (a bad argument:
#                    exit 2), and writes its results to a
#                    second disk; its tests are listed as distro.6.1.NAME
#   boot_6.12        Debian 12's 6.12 kernel booted: load, read debugfs,
#                    unload; then module.sig_enforce=1 and
#                    lockdown=integrity, raised at run time as Secure Boot
#                    would have them: fwq-bench's lockdown (8),
#                    refused-module (6) and missing-headers (5) errors from
#                    the real kernel and tools (distro.6.12.NAME)
#   13.boot_6.12,    Debian 13's images booted, each as boot_6.1's
#   13.boot_7.3      (distro.13.6.12.NAME, distro.13.7.3.NAME)
#
# --prepare-only stops before the boots: .ci/run runs the chroot steps
# that way in the background while make check runs (they mostly wait on
# the network and the disk), and make check-distro DISTRO_OUT=DIR then
# finds them done in DIR: it lists their test lines again and only
# boots. A DIR prepared from another state of the tree is refused; give
# both runs the same --distro.
# The results (tests, bench results.jsonl, table.txt, summary.md, plots,
# debugfs, dmesg, consoles) go to DIR (default results/check-distro-TIME).
# The apt source is the machine's configured Debian source (fwq_apt).
# The steps are functions that only step() calls:
# shellcheck disable=SC2317
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP"

out=
prepare_only=0
distro=12
usage="usage: $0 [--distro 12|13|all] [--out DIR] [--prepare-only]"
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:-}; shift 2 ;;
	--prepare-only) prepare_only=1; shift ;;
	--distro) distro=${2:-}; shift 2 ;;
	*) fwq_die 2 "$usage" ;;
	esac
done
case "$distro" in
12|13) journeys=$distro ;;
all) journeys="12 13" ;;
*) fwq_die 2 "check-distro: bad --distro '$distro' (12, 13 or all)" ;;
esac
[ "$(id -u)" = 0 ] || fwq_die 2 "check-distro needs root (debootstrap, chroot)"
if ! command -v debootstrap > /dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		debootstrap >&2 || fwq_die 2 "cannot install debootstrap"
fi
for c in debootstrap mke2fs unshare chroot; do
	command -v "$c" > /dev/null || fwq_die 2 "$c is missing"
done
[ -n "$out" ] || out=$FWQ_TOP/results/check-distro-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)
t_start=$(fwq_now)
n=0

# step NAME CMD...: one test line; the output in $out/NAME.log
step() {
	local name=$1 start rc=0

	shift
	n=$((n + 1))
	start=$(fwq_mark)
	# in the background, so that set -e holds inside the step (it is off
	# in a function called on the left of ||)
	"$@" > "$out/$name.log" 2>&1 < /dev/null &
	wait $! || rc=$?
	fwq_lane_time "distro.$name" - "$start" \
		"$([ $rc -eq 0 ] && echo ok || echo "exit $rc")"
	if [ $rc -eq 0 ]; then
		fwq_tap_result 0 "$n distro.$name" \
			"$(fwq_elapsed "$start")s${note:+ ($note)}"
	else
		tail -n 20 "$out/$name.log" | sed 's/^/# /'
		fwq_tap_result $rc "$n distro.$name" \
			"exit $rc, $(fwq_elapsed "$start")s" || :
	fi
	note=
	return $rc
}
note=

finish() {
	echo "# results in $out"
	echo "# check-distro wall time: $(fwq_elapsed "$t_start")s"
	fwq_tap_summary
	exit
}

# croot ROOT CMD...: CMD in a chroot of ROOT, with /proc, /sys and /dev
# mounted in a private mount namespace (gone when CMD ends)
croot() {
	local root=$1

	shift
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare -m --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount -t sysfs sys "$r/sys" &&
		mount --rbind /dev "$r/dev" && exec chroot "$r" "$@"' \
		sh "$root" env -i DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
		HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

capt() { # capt ROOT APT-GET-ARGS...
	local root=$1

	shift
	croot "$root" apt-get -y -q -o Dpkg::Use-Pty=0 --no-install-recommends "$@"
}

# journey 12|13: the variables of that journey: its suite, the prefix of
# its step names, the stock and backports kernel series, the guest test's
# mode on the backports kernel, its chroot, its prepared stamp and test
# lines (--prepare-only), the apt source and its cached base
journey() {
	case "$1" in
	12)
		suite=bookworm pfx='' jsfx='' kbase=6.1 kbpo=6.12 bpo_mode=loadlock ;;
	13)
		suite=trixie pfx=13. jsfx=-13 kbase=6.12 kbpo=7.3 bpo_mode=full ;;
	esac
	root=$out/root$jsfx
	prepared=$out/prepared$jsfx
	tap=$out/prepare$jsfx.tap
	# the machine's Debian source, as fwq_apt derives it
	fwq_apt "$suite" --version > "$out/apt-$suite.log" 2>&1 ||
		fwq_die 2 "no Debian apt source (see $out/apt-$suite.log)"
	src_line=$(cat "$FWQ_CACHE/apt/$suite/sources.list")
	uri=$(printf '%s\n' "$src_line" | sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p')
	keyring=$(printf '%s\n' "$src_line" | sed -n 's/.*signed-by=\([^] ]*\).*/\1/p')
	[ -n "$uri" ] || fwq_die 2 "cannot read the apt source from $FWQ_CACHE/apt/$suite/sources.list"
	hash=$( { echo "$suite $uri $keyring"; sed -n '/^# BASE-BEGIN/,/^# BASE-END/p' "$0"; } |
		sha256sum | cut -c1-16)
	base=$FWQ_CACHE/distro/base-$suite-$hash
}

# BASE-BEGIN: the cached stage; its text is part of the cache key
base_pkgs="systemd-sysv udev kmod dkms python3 gnuplot-nox linux-image-amd64 linux-headers-amd64"
make_base() {
	local tmp=$1

	rm -rf "$tmp"
	debootstrap --variant=minbase ${keyring:+--keyring="$keyring"} \
		"$suite" "$tmp" "$uri"
	printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
	chmod 755 "$tmp/usr/sbin/policy-rc.d"
	# shellcheck disable=SC2086 # a list of package names
	capt "$tmp" install $base_pkgs
	capt "$tmp" clean
	echo fwq-distro > "$tmp/etc/hostname"
	: > "$tmp/etc/machine-id"
	[ -n "$(find "$tmp/lib/modules" -mindepth 1 -maxdepth 1 -name "$kbase.*")" ] ||
		{ echo "no $kbase kernel in the base"; return 1; }
}
# BASE-END

# the debootstrap step: the journey's cached base, or a new one
base_step() {
	local rc=0

	mkdir -p "$FWQ_CACHE/distro"
	# one base maker at a time (another run may be at it)
	exec 8> "$FWQ_CACHE/distro/.lock"
	flock 8
	if [ -e "$base/.fwq-done" ]; then
		note="cached: $base"
		step "${pfx}debootstrap" true
	else
		# the suite's older bases, and those named before the suite
		# was part of the name
		rm -rf "$FWQ_CACHE/distro/base-$suite-"* \
			"$FWQ_CACHE"/distro/base-????????????????
		if step "${pfx}debootstrap" make_base "$base.tmp"; then
			mv "$base.tmp" "$base"
			touch "$base/.fwq-done"
		else
			rc=1
		fi
	fi
	flock -u 8
	return $rc
}

# tree_id: the state of the tree the chroot steps packaged (a prepared
# DIR is only used by the same state)
tree_id() {
	{ git -C "$FWQ_TOP" rev-parse HEAD; git -C "$FWQ_TOP" diff HEAD; } 2>/dev/null |
		sha256sum | cut -c1-16
}

krel_of() { # krel_of SERIES: the release of ROOT's kernel of SERIES
	find "$root/lib/modules" -mindepth 1 -maxdepth 1 -name "$1.*" -printf '%f\n' | sort -V | tail -n 1
}

install_deb() {
	local krel

	rm -rf "$root"
	cp -a "$base" "$root"
	scripts/deb.sh build "$out/deb"
	cp "$out"/deb/fwq-dkms_*_all.deb "$root/tmp/"
	capt "$root" install "/tmp/$(basename "$out"/deb/fwq-dkms_*_all.deb)"
	krel=$(krel_of "$kbase")
	croot "$root" dkms status fwq
	find "$root/lib/modules/$krel" -name 'fwq*.ko*' | grep -q fwq_bench ||
		{ echo "no fwq modules for $krel"; return 1; }
	install -m 755 scripts/distro/fwq-distro-test.sh "$root/usr/local/sbin/fwq-distro-test"
	install -m 644 scripts/distro/fwq-distro-test.service "$root/etc/systemd/system/"
	croot "$root" systemctl enable fwq-distro-test.service
	image "$pfx$kbase" "$kbase"
}

# image LABEL SERIES: ROOT as it is now, for LABEL's boot: an ext4 disk
# image, and the release, image and initramfs of its kernel of SERIES, in
# $out/image-LABEL/; the later chroot steps leave them as they are
image() {
	local d=$out/image-$1 krel

	krel=$(krel_of "$2")
	[ -n "$krel" ] || { echo "no $2 kernel in the root"; return 1; }
	rm -rf "$d"
	mkdir -p "$d"
	rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/resolv.conf"
	cp "$root/boot/vmlinuz-$krel" "$d/vmlinuz"
	cp "$root/boot/initrd.img-$krel" "$d/initrd.img"
	mke2fs -q -t ext4 -L fwqroot -d "$root" "$d/disk.img" 4G
	echo "$krel" > "$d/krel"
}

# boot LABEL MODE LIMIT: LABEL's disk image (image) booted with its
# kernel, the guest test in MODE (fwq-distro-test.sh); the guest's tests
# (distro.LABEL.NAME) and files in $out/LABEL/.
boot() {
	local label=$1 mode=$2 limit=$3 krel img dir qemu qroot d rc=0
	local idir=$out/image-$1
	local append="root=/dev/vda rw console=ttyS0 no_timer_check fwq_distro=$mode systemd.show_status=1"
	local -a q

	img=$idir/disk.img
	[ -e "$img" ] || { echo "no disk image for $label (its install step failed)"; return 1; }
	krel=$(cat "$idir/krel")
	dir=$out/$label
	rm -rf "$dir"
	mkdir -p "$dir/files"
	truncate -s 256M "$dir/results.img"
	qemu=$("$FWQ_TOP/scripts/get-qemu.sh" "$FWQ_QEMU_SUITE")
	q=("$qemu" -nodefaults -display none -no-reboot
	   -machine pc -accel "${FWQ_QEMU_ACCEL:-tcg,thread=multi}" -cpu max
	   -smp 2 -m 2048
	   -kernel "$idir/vmlinuz" -initrd "$idir/initrd.img"
	   -append "$append"
	   -drive "file=$img,format=raw,if=virtio"
	   -drive "file=$dir/results.img,format=raw,if=virtio"
	   -serial "file:$dir/console.log")
	qroot=$(dirname "$(dirname "$qemu")")
	for d in "$qroot/share/seabios" "$qroot/share/qemu"; do
		[ "$qroot" = /usr ] || [ ! -d "$d" ] || q+=(-L "$d")
	done
	echo "booting $krel ($mode), limit ${limit}s"
	timeout "$limit" "${q[@]}" || rc=$?
	rm -rf "$idir"
	tar -xf "$dir/results.img" -C "$dir/files" 2>/dev/null ||
		{ echo "no results from the guest (qemu rc $rc)"; tail -n 30 "$dir/console.log"; return 1; }
	rm -f "$dir/results.img"
	[ "$(cat "$dir/files/krel")" = "$krel" ] || { echo "booted $(cat "$dir/files/krel"), not $krel"; return 1; }
	[ -s "$dir/files/tests.txt" ] || return 1
	! grep -q '^not ok' "$dir/files/tests.txt"
}

# guest_tests LABEL: list and count the guest's tests
guest_tests() {
	local f=$out/$1/files/tests.txt

	[ -s "$f" ] || return 0
	sed -E "s/^(ok|not ok) [0-9]+ /\1 distro.$1./" "$f"
	fwq_tap_count "$f"
}

# install_bpo: the suite's backports kernel (SUITE-backports'
# linux-image-amd64 and linux-headers-amd64, of series KBPO); DKMS's
# kernel hook must build fwq for it
install_bpo() {
	local krel

	printf 'deb %s%s %s-backports main\n' "${keyring:+[signed-by=$keyring] }" "$uri" "$suite" \
		> "$root/etc/apt/sources.list.d/backports.list"
	printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	capt "$root" update
	capt "$root" install -t "$suite-backports" linux-image-amd64 linux-headers-amd64
	capt "$root" clean
	krel=$(krel_of "$kbpo")
	[ -n "$krel" ] || { echo "no $kbpo kernel installed"; return 1; }
	croot "$root" dkms status fwq
	find "$root/lib/modules/$krel" -name 'fwq*.ko*' | grep -q fwq_bench ||
		{ echo "DKMS did not build fwq for $krel"; return 1; }
	image "$pfx$kbpo" "$kbpo"
}

purge() {
	local left

	printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	capt "$root" purge fwq-dkms
	left=$(find "$root/lib/modules" "$root/var/lib/dkms" "$root/usr/src" \
		"$root/usr/share" "$root/usr/bin" -name 'fwq*' 2>/dev/null |
		grep -v '^'"$root"'/usr/share/doc/fwq-dkms$' || true)
	if [ -n "$left" ]; then
		echo "left after purge:"
		echo "$left"
		return 1
	fi
	croot "$root" dpkg -l fwq-dkms 2>&1 | tail -n 1
	echo "nothing of fwq remains"
}

# prepare: the journey's chroot steps; fails when its boots cannot run
prepare() {
	base_step || return 1
	step "${pfx}install_deb" install_deb || return 1
	step "${pfx}install_$kbpo" install_bpo || return 1
	step "${pfx}purge" purge || :
}

# the chroot steps of each journey, or their test lines from a run with
# --prepare-only; the journeys whose boots can run
boots=
for j in $journeys; do
	journey "$j"
	if [ $prepare_only -eq 0 ] && [ -e "$prepared" ]; then
		[ "$(cat "$prepared")" = "$(tree_id)" ] ||
			fwq_die 2 "$out was prepared from another state of the tree: remove it, or give another --out"
		echo "# the chroot steps, run before (--prepare-only): $out"
		cat "$tap"
		fwq_tap_count "$tap"
		n=$((n + $(grep -c 'ok [0-9]* distro\.' "$tap"))) || :
		grep -q '^not ok [0-9]* distro\.[0-9.]*\(debootstrap\|install\)' "$tap" ||
			boots="$boots $j"
		continue
	fi
	rm -f "$prepared"
	if [ $prepare_only -eq 1 ]; then
		export FWQ_TAP_LOG=$tap
		: > "$FWQ_TAP_LOG"
	fi
	! prepare || boots="$boots $j"
	if [ $prepare_only -eq 1 ]; then
		tree_id > "$prepared"
		unset FWQ_TAP_LOG
	fi
done
[ $prepare_only -eq 0 ] || finish

# limits well above the measured boots (docs/testing.md, "make
# check-distro"), so that a hung guest costs minutes, not a lane's worth
# of CI
for j in $boots; do
	journey "$j"
	step "${pfx}boot_$kbase" boot "$pfx$kbase" full 480 || :
	guest_tests "$pfx$kbase"
	step "${pfx}boot_$kbpo" boot "$pfx$kbpo" "$bpo_mode" 480 || :
	guest_tests "$pfx$kbpo"
	for bench in "$out/$pfx$kbase/files/bench" "$out/$pfx$kbpo/files/bench"; do
		[ -d "$bench" ] || continue
		python3 bench/bench_report.py "$bench" > /dev/null 2>&1 || true
		echo "# bench results: $bench (results.jsonl, table.txt, summary.md, plots/)"
	done
done
# the roots and images are gone: a later run with this DIR prepares again
for j in $journeys; do
	journey "$j"
	rm -rf "$root"
	rm -f "$prepared"
done
rm -rf "$out"/image-*
finish
