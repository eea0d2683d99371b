#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-compile.sh [--out DIR] [--series GLOB] [--list]: the compile-only
# lane (make check-compile). For every amd64 linux-headers series of
# scripts/compile-series, the headers (linux-headers-ABI-amd64, its
# -common and linux-kbuild packages) are fetched with apt-get download and
# unpacked into $FWQ_CACHE/headers (fwq_unpack_headers; never installed),
# unless a tree of that release is there already, and fwq.ko, fwq_bench.ko
# and the test modules are built against them with W=1 and sparse on every
# file (C=2), in a scratch copy of the tree, with the toolchain the series
# names (scripts/toolchain.sh: the host's gcc-12, or a debootstrapped
# build root, made once by scripts/mkroot.sh). Each series is one line
#   ok compile.SUITE.SERIES (ABI) build W=1 sparse: N warnings
# and any compiler or sparse warning, or a failed build, makes it "not
# ok", with the findings above it as "#" lines. A release outside the range
# the guests boot (src/compat/probe.sh) is built with
# FWQ_UNTESTED_KERNEL=y, and its line says so. A series marked may-fail
# (experimental's) is reported with "# TODO" and not counted. Ends with
# "N passed, N failed"; exit 1 if any counted series failed.
#   --out DIR  keep each series' build log there (default: a scratch
#              directory, removed)
#   --series GLOB  only the series whose SUITE.SERIES matches GLOB (e.g.
#              'trixie*', 'sid.7.2')
#   --list     print the series and ABIs that would be built, and stop
# Nothing is installed on the build host, and /etc/apt is not changed.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

out=
only='*'
list=n
while [ $# -gt 0 ]; do
	case "$1" in
	--out)
		[ $# -ge 2 ] || fwq_die 2 "--out needs a directory"
		out=$2
		shift 2
		;;
	--series)
		[ $# -ge 2 ] || fwq_die 2 "--series needs a pattern"
		only=$2
		shift 2
		;;
	--list)
		list=y
		shift
		;;
	*)
		fwq_die 2 "usage: $0 [--out DIR] [--series GLOB] [--list]"
		;;
	esac
done

# suite_of SUITE: fwq_apt's suite argument for a compile-series SUITE
# ("-": the system's configured sources, "")
suite_of() {
	[ "$1" = - ] || printf '%s\n' "$1"
}

# headers_names SUITE PREFIX: the linux-headers-PREFIX* package names that
# SUITE's index lists (the host's installed packages left out)
headers_names() {
	fwq_apt_cache "$(suite_of "$1")" -o Dir::State::status=/dev/null pkgnames \
		"linux-headers-$2" 2> /dev/null
}

# abis SUITE SERIES: the ABIs to build for one line of compile-series
abis() {
	local suite=$1 series=$2 s

	case "$series" in
	newest)
		fwq_apt_cache "$(suite_of "$suite")" -o Dir::State::status=/dev/null \
			depends linux-headers-amd64 2> /dev/null |
			sed -n 's/^ *Depends: linux-headers-\([0-9][^ ]*\)-amd64$/\1/p' |
			sort -V | tail -n 1
		;;
	*.*)
		headers_names "$suite" "$series." |
			sed -n "s/^linux-headers-\(${series//./\\.}\.[^-]*\(-[0-9][^-]*\)\{0,1\}\)-amd64\$/\1/p" |
			sort -V | tail -n 1
		;;
	*)
		# each SERIES.x series the index lists, its newest ABI
		for s in $(headers_names "$suite" "$series." |
			sed -n "s/^linux-headers-\($series\.[0-9]*\)[.-].*-amd64\$/\1/p" |
			sort -uV); do
			abis "$suite" "$s"
		done
		;;
	esac
}

# plan: "NAME SUITE SERIES ABI TOOLCHAIN EXPECT" lines, one per build (NAME:
# the suite's name, the host's codename for "-")
plan() {
	local suite series tc expect abi

	while read -r suite series tc expect; do
		case "$suite" in
		''|'#'*) continue ;;
		esac
		name=$suite
		if [ "$suite" = - ]; then
			# shellcheck disable=SC1091 # the host's
			name=$(. /etc/os-release && echo "${VERSION_CODENAME:-host}")
		fi
		abi=$(abis "$suite" "$series")
		if [ -z "$abi" ]; then
			# shellcheck disable=SC2053 # GLOB is a pattern
			[[ $name.$series == $only ]] || continue
			echo "$name $suite $series - $tc $expect"
			continue
		fi
		for abi in $abi; do
			[[ $abi =~ ^[0-9]+\.[0-9]+ ]] || continue
			# shellcheck disable=SC2053 # GLOB is a pattern
			[[ $name.${BASH_REMATCH[0]} == $only ]] || continue
			echo "$name $suite ${BASH_REMATCH[0]} $abi $tc $expect"
		done
	done < "$FWQ_TOP/scripts/compile-series"
}

passed=0
failed=0
allowed=0
# result RC EXPECT NAME NOTE [LOG]: the series' line, with LOG's findings
# above it when it failed
result() {
	local rc=$1 expect=$2 name=$3 note=$4 log=${5:-}

	if [ "$rc" -eq 0 ]; then
		echo "ok $name $note"
		passed=$((passed + 1))
		return
	fi
	[ -n "$log" ] && [ -s "$log" ] && sed 's/^/# /' "$log"
	if [ "$expect" = may-fail ]; then
		echo "not ok $name $note # TODO allowed to fail"
		allowed=$((allowed + 1))
	else
		echo "not ok $name $note"
		failed=$((failed + 1))
	fi
}

# build KDIR TOOLCHAIN LOG FINDINGS [MAKE ARGS]: the W=1 C=2 build of a
# scratch copy of the tree against KDIR; the compiler and sparse
# findings into FINDINGS
build() {
	local kdir=$1 tc=$2 log=$3 findings=$4 tmp rc=0

	shift 4
	tmp=$(mktemp -d)
	fwq_copy_sources "$tmp"
	# Debian's headers from 6.13 on lack the kernel's
	# scripts/checker-valid.sh, so C=2 alone turns sparse off with a make
	# warning ("sparse is not available or not up to date"); the command
	# line's KBUILD_CHECKSRC=2 overrides that, and the CHECK lines prove
	# that sparse ran.
	FWQ_TOOLCHAIN=${tc%%:*} "$FWQ_TOP/scripts/toolchain.sh" "$kdir" \
		--bind "$tmp" -- make -C "$kdir" M="$tmp" -j"$(nproc)" \
		W=1 C=2 KBUILD_CHECKSRC=2 "$@" modules > "$log" 2>&1 || rc=1
	# kbuild's notice that pahole is not the kernel's own (sid's 1.32 for
	# trixie-backports' kernels, made with 1.30) is about the toolchain,
	# not fwq: shown, not counted
	grep -x 'warning: pahole version differs from the one used to build the kernel' \
		"$log" | sort -u | sed 's/^warning: /# note: /'
	grep -E 'warning:|error:|sparse:' "$log" | sed "s|$tmp/||g" |
		grep -vx 'warning: pahole version differs from the one used to build the kernel' \
		> "$findings" || :
	if ! grep -q '^  CHECK ' "$log"; then
		echo "sparse did not run (no CHECK line in the build log)" >> "$findings"
		rc=1
	fi
	if [ $rc -eq 0 ] && ! ls "$tmp/src/fwq.ko" "$tmp/bench/fwq_bench.ko" \
		"$tmp/tests/selftest/fwq_test.ko" > /dev/null 2>&1; then
		echo "the build made no fwq.ko, fwq_bench.ko or fwq_test.ko" >> "$findings"
		rc=1
	fi
	if [ $rc -ne 0 ] && [ ! -s "$findings" ]; then
		tail -n 30 "$log" | sed "s|$tmp/||g" > "$findings"
	fi
	rm -rf "$tmp"
	return $rc
}

if [ "$list" = y ]; then
	plan
	exit 0
fi

mapfile -t lines < <(plan)
[ ${#lines[@]} -gt 0 ] || fwq_die 2 "no series of scripts/compile-series matches '$only'"
keep=$out
[ -n "$out" ] || out=$(mktemp -d)
mkdir -p "$out"
start=$(fwq_now)
for line in "${lines[@]}"; do
	read -r sname suite series abi tc expect <<< "$line"
	name=compile.$sname.$series
	note="($abi) build W=1 sparse:"
	log=$out/$sname-$series.log
	findings=$out/$sname-$series.findings
	: > "$findings"
	if [ "$abi" = - ]; then
		echo "$sname lists no linux-headers-$series ABI" > "$findings"
		result 1 "$expect" "$name" "$note no headers" "$findings"
		continue
	fi
	krel=$abi-amd64
	# the headers: installed, in the cache, or unpacked into it now (in a
	# subshell: fwq_unpack_headers holds the cache lock until it exits)
	if ! kdir=$(fwq_headers_dir "$krel"); then
		if ! (fwq_unpack_headers "$(suite_of "$suite")" "$krel") > "$log" 2>&1 ||
		   ! kdir=$(fwq_headers_dir "$krel"); then
			tail -n 5 "$log" > "$findings"
			result 1 "$expect" "$name" "$note headers not fetched" "$findings"
			continue
		fi
	fi
	# the toolchain: the host's, or a build root (made once)
	if [ "$tc" != host ]; then
		root_pkgs=
		[ "$tc" = "${tc#*:}" ] || root_pkgs=${tc#*:}
		# shellcheck disable=SC2086 # the packages are words
		if ! "$FWQ_TOP/scripts/mkroot.sh" "${tc%%:*}" ${root_pkgs//,/ } \
			> "$findings" 2>&1; then
			result 1 "$expect" "$name" "$note no ${tc%%:*} build root" "$findings"
			continue
		fi
		: > "$findings"
	fi
	args=()
	v=${series%%.*}
	p=${series#*.}
	case "$(sh "$FWQ_TOP/src/compat/probe.sh" "$kdir" "$v" "$p")" in
	*FWQ_KERNEL_UNTESTED*) args=(FWQ_UNTESTED_KERNEL=y) ;;
	esac
	# the compiler the headers name, and sparse, as the toolchain has them
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^ ]*\) .*/\1/p' \
		"$kdir/include/config/auto.conf" 2> /dev/null)
	# shellcheck disable=SC2016 # $1 is the inner shell's
	echo "# $name: toolchain ${tc%%:*}:" "$(FWQ_TOOLCHAIN=${tc%%:*} \
		"$FWQ_TOP/scripts/toolchain.sh" "$kdir" -- sh -c \
		'"$1" --version | head -n 1; echo sparse; sparse --version' \
		sh "${cc:-gcc}" 2>&1 | tr '\n' ' ')"
	rc=0
	build "$kdir" "$tc" "$log" "$findings" "${args[@]}" || rc=1
	n=$(grep -c 'warning:' "$findings") || :
	[ "$n" -eq 0 ] || rc=1
	note="$note $n warnings"
	[ $rc -eq 0 ] || grep -q 'error:' "$findings" || [ "$n" -gt 0 ] ||
		note="$note, build failed"
	grep -q 'error:' "$findings" && note="$note, errors"
	[ ${#args[@]} -eq 0 ] || note="$note (outside the booted range: FWQ_UNTESTED_KERNEL=y)"
	note="$note, toolchain ${tc%%:*}"
	result $rc "$expect" "$name" "$note" "$findings"
	[ -s "$findings" ] || rm -f "$findings"
done
[ -n "$keep" ] || rm -rf "$out"
[ "$allowed" -eq 0 ] || echo "# $allowed allowed to fail"
echo "# check-compile: $(fwq_elapsed "$start")s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
