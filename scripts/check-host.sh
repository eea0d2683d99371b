#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-host.sh [--distro 13|12] [--out DIR] [--keep]: the README's two
# commands on a fresh Debian machine (make check-host; not a make check
# lane): a debootstrapped root of that release stands for the user's
# machine, and in there, as root, with an
# empty $FWQ_CACHE and only what a minimal install has, the tree runs
# "make check-quick" and then "make bench QUICK=1", each installing and
# fetching what it needs itself. Each step is one test line, "ok N
# host.13.STEP # S s", and the run ends with "N passed, N failed":
#
#   base         a minimal system (debootstrap --variant=minbase, plus
#                make, git and ca-certificates, which a user who cloned
#                the tree has) with the apt sources a Debian installer
#                writes (SUITE, SUITE-updates, SUITE-security), derived
#                from this machine's (fwq_debian_source); kept in
#                $FWQ_CACHE/host/base-SUITE-HASH (HASH covers the suite,
#                the sources and this stage's code), made once
#   machine      a copy of the base, the machine of this run, and the tree
#                (its tracked and untracked files, not the ignored ones;
#                committed there as one commit) in /root/fwq
#   check_quick  make check-quick, chrooted into the machine (/proc, /sys
#                and /dev bound; its own /var/cache/fwq, empty): it must
#                end "N passed, 0 failed"
#   bench_quick  make bench QUICK=1 there: it must write a summary.md
#   size         what the two commands fetched (the sum of apt's
#                "Fetched" lines in their logs: apt-get install on the
#                machine, and every package fwq's scripts download) and
#                the disk they took (du of the machine against the base,
#                of its /var/cache/fwq and of /var/cache/apt/archives)
#
# The machine is removed at the end (--keep keeps it, in
# $FWQ_CACHE/host/machine-SUITE). The logs, the sizes and the machine's
# results/ go to DIR (default results/check-host-DISTRO-TIME).
# The chroot shares this machine's network and kernel: nothing is loaded
# into the kernel (the guests are QEMU TCG), and the mounts live in a
# mount namespace of each step's own (unshare), so none outlives it.
# The steps are functions that only step() calls:
# shellcheck disable=SC2317
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP"

usage="usage: $0 [--distro 13|12] [--out DIR] [--keep]"
distro=13
out=
keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	--distro) distro=${2:-}; shift 2 || fwq_die 2 "$usage" ;;
	--out) out=${2:-}; shift 2 || fwq_die 2 "$usage" ;;
	--keep) keep=1; shift ;;
	*) fwq_die 2 "$usage" ;;
	esac
done
case "$distro" in
12) suite=bookworm ;;
13) suite=trixie ;;
*) fwq_die 2 "--distro: 12 or 13, not '$distro'" ;;
esac
[ "$(id -u)" -eq 0 ] || fwq_die 2 "make check-host needs root (debootstrap, chroot)"
command -v debootstrap > /dev/null ||
	fwq_die 2 "debootstrap is not installed (apt-get install debootstrap)"
fwq_debian_source || fwq_die 2 "no Debian apt source on this machine to derive $suite's from"

[ -n "$out" ] || out=$FWQ_TOP/results/check-host-$distro-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)
hostdir=$FWQ_CACHE/host
machine=$hostdir/machine-$suite
pfx=host.$distro.
mkdir -p "$hostdir"
# one run of a release at a time: the machine's place is fixed
exec 8> "$hostdir/.lock-$suite"
flock -n 8 || fwq_die 2 "another make check-host DISTRO=$distro is running"

# BASE-BEGIN: the cached stage; its text is part of the cache key
base_pkgs=make,git,ca-certificates
# sources: the apt sources of a Debian installer's system, on this
# machine's archive and security archive
sources() {
	echo "Types: deb"
	echo "URIs: $fwq_src_uri"
	echo "Suites: $suite $suite-updates"
	echo "Components: main"
	[ -z "$fwq_src_keyring" ] || echo "Signed-By: $fwq_src_keyring"
	[ -n "$fwq_sec_uri" ] || return 0
	echo
	echo "Types: deb"
	echo "URIs: $fwq_sec_uri"
	echo "Suites: $suite-security"
	echo "Components: main"
	[ -z "$fwq_sec_keyring" ] || echo "Signed-By: $fwq_sec_keyring"
}
make_base() {
	local tmp=$1

	rm -rf "$tmp"
	nice unshare -m --propagation private debootstrap --variant=minbase \
		--include="$base_pkgs" ${fwq_src_keyring:+--keyring="$fwq_src_keyring"} \
		"$suite" "$tmp" "$fwq_src_uri"
	rm -f "$tmp/etc/apt/sources.list"
	sources > "$tmp/etc/apt/sources.list.d/debian.sources"
	# no service starts in a chroot
	printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
	chmod 755 "$tmp/usr/sbin/policy-rc.d"
	inside "$tmp" apt-get update -q
	inside "$tmp" apt-get clean
}
# BASE-END
hash=$( { sources; sed -n '/^# BASE-BEGIN/,/^# BASE-END/p' "$0"; } |
	sha256sum | cut -c1-16)
base=$hostdir/base-$suite-$hash

# inside ROOT COMMAND...: COMMAND chrooted into ROOT, as root, with /proc,
# /sys and /dev, this machine's resolv.conf, and a clean environment (no
# FWQ_* of this shell: the machine's defaults), in a mount namespace of
# its own
inside() {
	local root=$1

	shift
	cat /etc/resolv.conf > "$root/etc/resolv.conf"
	# shellcheck disable=SC2016 # $0 and $@ are the inner shell's
	unshare -m --propagation private sh -c '
		set -e
		root=$0
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mount -t tmpfs tmpfs "$root/run"
		exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
			LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive "$@"' "$root" "$@"
}

# mounted DIR: is anything mounted at or below DIR (in this namespace)?
mounted() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { f = 1 } END { exit !f }' \
		/proc/self/mountinfo
}

# drop DIR: remove a machine; never across a mount
drop() {
	[ -e "$1" ] || return 0
	mounted "$1" && fwq_die 2 "$1 has mounts: not removing it"
	rm -rf --one-file-system "$1"
}

# step NAME FUNCTION [ARG...]: one test line for FUNCTION, its output in
# $out/NAME.log
step() {
	local name=$1 start rc

	shift
	start=$(fwq_mark)
	set +e
	"$@" > "$out/$name.log" 2>&1 < /dev/null
	rc=$?
	set -e
	[ $rc -eq 0 ] || tail -n 25 "$out/$name.log" | sed 's/^/# /'
	fwq_lane_time "$pfx$name" - "$start" "$([ $rc -eq 0 ] && echo ok || echo "exit $rc")"
	secs[$name]=$(fwq_elapsed "$start")
	fwq_tap_result $rc "$pfx$name" "${secs[$name]}s${note:+, $note}" || :
	note=
	return $rc
}
declare -A secs
note=

base_step() {
	if [ -e "$base/.fwq-done" ]; then
		echo "cached: $base"
		return 0
	fi
	rm -rf "$hostdir/base-$suite-"*
	make_base "$base.tmp"
	mv "$base.tmp" "$base"
	touch "$base/.fwq-done"
}

machine_step() {
	drop "$machine"
	cp -a "$base" "$machine"
	rm -f "$machine/.fwq-done"
	mkdir -p "$machine/root/fwq"
	git ls-files -co --exclude-standard | while IFS= read -r f; do
		[ -e "$f" ] && printf '%s\n' "$f"
	done | cpio -pdm --quiet "$machine/root/fwq"
	inside "$machine" sh -c 'cd /root/fwq && git init -q &&
		git add -A && git -c user.name=fwq -c user.email=fwq@localhost \
			commit -q -m "the tree of make check-host"'
	du -sxk "$machine" | cut -f1 > "$out/machine-start.kb"
}

check_quick_step() {
	inside "$machine" sh -c 'cd /root/fwq && nice -n 5 make check-quick' || return
	tail -n 1 "$out/check_quick.log" | grep -q ' passed, 0 failed$'
}

bench_quick_step() {
	inside "$machine" sh -c 'cd /root/fwq && nice -n 5 make bench QUICK=1' || return
	ls "$machine"/root/fwq/results/bench-*/summary.md
}

# mb BYTES: BYTES in MB (10^6), one decimal
mb() {
	awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'
}

# fetched FILE...: the bytes of apt's "Fetched N UNIT in" lines of FILEs
fetched() {
	cat "$@" 2>/dev/null | tr '\r' '\n' |
		awk '/^Fetched [0-9.,]+ [kMG]?B in / {
			n = $2; gsub(",", "", n)
			m = ($3 == "kB") ? 1e3 : ($3 == "MB") ? 1e6 : ($3 == "GB") ? 1e9 : 1
			s += n * m
		} END { printf "%d\n", s }'
}

size_step() {
	local r=$machine/root/fwq/results start_kb end_kb cq bq

	cq=$(fetched "$out/check_quick.log" "$r"/*-check/deps.log)
	bq=$(fetched "$out/bench_quick.log")
	start_kb=$(cat "$out/machine-start.kb")
	end_kb=$(du -sxk "$machine" | cut -f1)
	{
		echo "fetched by make check-quick: $(mb "$cq") MB"
		echo "fetched by make bench QUICK=1: $(mb "$bq") MB"
		echo "fetched in all: $(mb $((cq + bq))) MB"
		echo "disk taken: $(mb $(((end_kb - start_kb) * 1024))) MB (du of the machine: $(mb $((start_kb * 1024))) MB before, $(mb $((end_kb * 1024))) MB after)"
		echo "of it /var/cache/fwq: $(du -sxm "$machine/var/cache/fwq" | cut -f1) MiB"
		echo "of it /var/cache/apt/archives (apt-get clean frees it): $(du -sxm "$machine/var/cache/apt/archives" | cut -f1) MiB"
		echo "of it the tree's results/: $(du -sxm "$r" | cut -f1) MiB"
		echo "wall: check_quick ${secs[check_quick]}s, bench_quick ${secs[bench_quick]}s"
	} > "$out/size.txt"
	cat "$out/size.txt"
	note="$(mb $((cq + bq))) MB fetched, $(mb $(((end_kb - start_kb) * 1024))) MB disk"
}

echo "# make check-host: Debian $distro ($suite) on $FWQ_HOST_RELEASE, out $out"
if step base base_step && step machine machine_step; then
	step check_quick check_quick_step || :
	step bench_quick bench_quick_step || :
	step size size_step || :
	sed 's/^/# /' "$out/size.txt" 2>/dev/null || :
	mkdir -p "$out/machine-results"
	cp -a "$machine/root/fwq/results/." "$out/machine-results/" 2>/dev/null || :
	if [ $keep = 1 ]; then
		echo "# the machine is kept: $machine"
	else
		drop "$machine"
	fi
fi
fwq_tap_summary
