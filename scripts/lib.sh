# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by fwq's host-side scripts. Source it; do not run it.
# FWQ_TOP, fwq_log, fwq_die and fwq_registry come from the bench runner's
# own library, bench/runner-lib.sh (the fwq-dkms package ships that one,
# not this).
# shellcheck disable=SC2034 # FWQ_CACHE, FWQ_QEMU_SUITE and FWQ_TMP are for the sourcing script

# shellcheck source=bench/runner-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../bench/runner-lib.sh"
FWQ_CACHE=${FWQ_CACHE:-/var/cache/fwq}
# FWQ_HOST_RELEASE: the Debian release of the build host, the
# VERSION_CODENAME of /etc/os-release (bookworm, trixie; "unknown" if it
# names none). A kernel of scripts/kernels/ is built with the host's own
# apt sources and compiler where its files say this release can, else
# from derived sources in a build root (fwq_kernel_host).
if [ -z "${FWQ_HOST_RELEASE:-}" ] && [ -r /etc/os-release ]; then
	while IFS='=' read -r fwq_k fwq_v; do
		[ "$fwq_k" != VERSION_CODENAME ] || FWQ_HOST_RELEASE=${fwq_v//\"/}
	done < /etc/os-release
	unset fwq_k fwq_v
fi
FWQ_HOST_RELEASE=${FWQ_HOST_RELEASE:-unknown}
# the Debian suite whose QEMU boots the guests (scripts/get-qemu.sh): on
# a Debian 12 host bookworm-backports' (bookworm's 7.2 hangs guests that
# patch kernel text, docs/testing.md), elsewhere the host's own (trixie's
# is the same QEMU 10.0; bookworm-backports' build needs bookworm's
# libraries)
if [ -z "${FWQ_QEMU_SUITE:-}" ]; then
	case "$FWQ_HOST_RELEASE" in
	bookworm) FWQ_QEMU_SUITE=bookworm-backports ;;
	*) FWQ_QEMU_SUITE=$FWQ_HOST_RELEASE ;;
	esac
fi

# fwq_krel_of KDIR: the release string of a headers tree, from utsrelease.h
# (Debian's "make kernelrelease" prints the upstream version, not the ABI).
fwq_krel_of() {
	local h=$1/include/generated/utsrelease.h

	[ -r "$h" ] || return 1
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$h"
}

# fwq_newest_headers FLAVOUR: newest /usr/src/linux-headers-*-amd64 tree of
# that flavour ("" = generic, "rt" = PREEMPT_RT).
fwq_newest_headers() {
	local flavour=$1 d

	for d in /usr/src/linux-headers-*-amd64; do
		[ -r "$d/include/generated/utsrelease.h" ] || continue
		case "$d" in
		*-rt-amd64) [ "$flavour" = rt ] || continue ;;
		*-cloud-amd64) continue ;;
		*) [ "$flavour" = rt ] && continue ;;
		esac
		printf '%s\n' "$d"
	done | sort -V | tail -n 1
}

# Kernels as data: scripts/kernels/NAME is one kernel the project tests,
# sourced by fwq_kernel_load. KERNEL=NAME picks one (default
# FWQ_KERNEL_DEFAULT). Its fields:
#   FWQ_K_DESC      one line for humans
#   FWQ_K_SERIES    the upstream series, e.g. 6.12; its releases start
#                   with "SERIES."
#   FWQ_K_SUITE     the Debian suite of its packages; RELEASE+security:
#                   a release and its security suite (bookworm,
#                   bookworm-security). Another suite's apt source is
#                   derived from the configured one (fwq_apt); the host's
#                   own release is the system's configured sources
#                   (fwq_kernel_host); empty: those, on any host.
#   FWQ_K_ABI       the ABI to use, e.g. 6.12.95+deb12; empty: the one the
#                   suite's linux-headers-amd64 depends on, which deps.sh
#                   resolves and keeps in $FWQ_CACHE/kernel/NAME.abi
#   FWQ_K_FLAVOURS  the flavours tested: amd64 (FLAVOUR=) and rt-amd64
#                   (FLAVOUR=rt)
#   FWQ_K_HEADERS   apt: deps.sh installs the headers package; unpack: it
#                   unpacks the headers, -common and kbuild packages into
#                   $FWQ_CACHE/headers/KREL (never installed; always so
#                   where FWQ_K_SUITE is not the system's sources)
#   FWQ_K_SOURCE    the source package (debug kernels, checkpatch.pl)
#   FWQ_K_TOOLCHAIN where its modules are built: the Debian release whose
#                   compiler its headers name (bookworm, trixie), or host.
#                   On a host of that release, or of one FWQ_K_HOSTS
#                   lists, the host's own gcc and make (host); elsewhere a
#                   debootstrapped root of that release in
#                   $FWQ_CACHE/root/RELEASE (scripts/mkroot.sh, made by
#                   deps.sh), entered by scripts/toolchain.sh
#   FWQ_K_HOSTS     other host releases that build it with their own
#                   FWQ_K_CC (trixie ships bookworm's gcc-12)
#   FWQ_K_CC        the compiler its headers name (their .kernelvariables'
#                   CC): deps.sh installs it on a host that builds the
#                   kernel, and checks new headers against it
#   FWQ_K_COMPAT_FALLBACK  y: the lint's FWQ_COMPAT_FALLBACK=y build runs
#                   on it; n: its headers lack the old interfaces that
#                   src/compat/compat.h's fallbacks call (lint.sh)
#   FWQ_K_SPARSE    y: lint's W=1 build must run sparse; n: no sparse of
#                   the build roots parses its headers, the build is W=1
#                   only (make check-compile runs sid's sparse on them)
#   FWQ_K_BENCH_FULL  y: make bench runs every scenario on it (S3 and S4c
#                   too), not only the shorter suite of a kernel other
#                   than the default (bench/bench.sh)
#   FWQ_K_DESIGN    fwq's variant that re-implements this kernel's own
#                   workqueue design (wake=,kicked_list=,flush=); empty:
#                   none does. make bench's fidelity rows set it against
#                   the kernel's own workqueue (bench/bench_report.py)
#   FWQ_K_BY_HAND   n: one of the kernels make check and CI run a pass
#                   for (fwq_kernel_names); y: tested by hand only, when
#                   named: make check KERNEL=NAME
FWQ_KERNEL_DEFAULT=6.1

# fwq_kernel_load [NAME]: load scripts/kernels/NAME (default: KERNEL, else
# FWQ_KERNEL_DEFAULT) into the FWQ_K_* variables and FWQ_K_NAME.
fwq_kernel_load() {
	local name=${1:-${KERNEL:-$FWQ_KERNEL_DEFAULT}}

	case "$name" in
	''|*/*|.*) return 1 ;;
	esac
	[ -r "$FWQ_TOP/scripts/kernels/$name" ] || return 1
	FWQ_K_NAME=$name
	FWQ_K_DESC=
	FWQ_K_SERIES=
	FWQ_K_SUITE=
	FWQ_K_ABI=
	FWQ_K_FLAVOURS=amd64
	FWQ_K_HEADERS=apt
	FWQ_K_SOURCE=
	FWQ_K_TOOLCHAIN=host
	FWQ_K_HOSTS=
	FWQ_K_CC=
	FWQ_K_COMPAT_FALLBACK=y
	FWQ_K_SPARSE=y
	FWQ_K_BY_HAND=n
	FWQ_K_BENCH_FULL=n
	FWQ_K_DESIGN=
	# shellcheck source=scripts/kernels/6.1
	. "$FWQ_TOP/scripts/kernels/$name"
	fwq_kernel_host
}

# fwq_kernel_host: fit the loaded kernel's fields to the build host
# (FWQ_HOST_RELEASE). A suite that is the host's own release (RELEASE or
# RELEASE+security) becomes the system's configured sources (FWQ_K_SUITE
# empty); any other is derived (fwq_apt), and its headers are unpacked,
# as apt installs only the system's own suites' packages. A toolchain
# whose release, or one of FWQ_K_HOSTS, is the host's becomes host.
fwq_kernel_host() {
	case "$FWQ_K_SUITE" in
	'') ;;
	"$FWQ_HOST_RELEASE"|"$FWQ_HOST_RELEASE+security") FWQ_K_SUITE= ;;
	*) FWQ_K_HEADERS=unpack ;;
	esac
	case " $FWQ_K_TOOLCHAIN $FWQ_K_HOSTS " in
	*" $FWQ_HOST_RELEASE "*) FWQ_K_TOOLCHAIN=host ;;
	esac
}

# fwq_kernel_names [--all]: the names of the kernels the project tests in
# make check and CI (not those with FWQ_K_BY_HAND=y); --all: every kernel
# file, those tested by hand too
fwq_kernel_names() {
	local f n

	for f in "$FWQ_TOP"/scripts/kernels/*; do
		[ -r "$f" ] || continue
		n=$(basename "$f")
		if [ "${1:-}" != --all ]; then
			(fwq_kernel_load "$n" && [ "$FWQ_K_BY_HAND" != y ]) ||
				continue
		fi
		printf '%s\n' "$n"
	done
}

# fwq_kernel_of_krel KREL: load the kernel whose series KREL belongs to
fwq_kernel_of_krel() {
	local n

	for n in $(fwq_kernel_names --all); do
		fwq_kernel_load "$n" || continue
		case "$1" in
		"$FWQ_K_SERIES".*) return 0 ;;
		esac
	done
	return 1
}

# fwq_toolchain_of_kdir KDIR: the toolchain (FWQ_K_TOOLCHAIN) that builds
# against the headers tree KDIR: FWQ_TOOLCHAIN when set (make
# check-compile: two suites' headers of one series may want different
# compilers; the host's own release is host), else that of the kernel
# whose series its release belongs to; host for a release no kernel file
# names.
fwq_toolchain_of_kdir() {
	local krel

	if [ "${FWQ_TOOLCHAIN:-}" = "$FWQ_HOST_RELEASE" ]; then
		echo host
	elif [ -n "${FWQ_TOOLCHAIN:-}" ]; then
		printf '%s\n' "$FWQ_TOOLCHAIN"
	elif krel=$(fwq_krel_of "$1") && fwq_kernel_of_krel "$krel"; then
		printf '%s\n' "$FWQ_K_TOOLCHAIN"
	else
		echo host
	fi
}

# fwq_root_dir SUITE: the build root of a toolchain other than host
fwq_root_dir() {
	printf '%s\n' "$FWQ_CACHE/root/$1"
}

# fwq_flavour_suffix [FLAVOUR]: the package suffix of a flavour
fwq_flavour_suffix() {
	case "${1:-}" in
	'') echo amd64 ;;
	rt) echo rt-amd64 ;;
	*) return 1 ;;
	esac
}

# fwq_kernel_krel [FLAVOUR]: the release of the loaded kernel's flavour
# (FLAVOUR: "" or rt), from its ABI pin or what deps.sh resolved.
fwq_kernel_krel() {
	local abi=$FWQ_K_ABI sfx f=$FWQ_CACHE/kernel/$FWQ_K_NAME.abi

	sfx=$(fwq_flavour_suffix "${1:-}") || return 1
	case " $FWQ_K_FLAVOURS " in
	*" $sfx "*) ;;
	*) return 1 ;;
	esac
	if [ -z "$abi" ] && [ -r "$f" ]; then
		read -r abi < "$f"
	fi
	[ -n "$abi" ] || return 1
	printf '%s-%s\n' "$abi" "$sfx"
}

# fwq_headers_dir KREL: the headers tree of KREL: installed by its package
# or unpacked into the cache.
fwq_headers_dir() {
	local d

	for d in "/lib/modules/$1/build" "/usr/src/linux-headers-$1" \
		 "$FWQ_CACHE/headers/$1/usr/src/linux-headers-$1"; do
		if [ -r "$d/include/generated/utsrelease.h" ]; then
			printf '%s\n' "$d"
			return 0
		fi
	done
	return 1
}

# fwq_kdir: print the headers tree to build against. KDIR wins, then KREL,
# then KERNEL (scripts/kernels/), then the running kernel's build dir, then
# the default kernel, then the newest installed Debian headers of the
# requested FLAVOUR. The harness (check.sh) always sets KERNEL.
fwq_kdir() {
	local flavour=${FLAVOUR:-} d krel

	if [ -n "${KDIR:-}" ]; then
		printf '%s\n' "$KDIR"
		return 0
	fi
	if [ -n "${KREL:-}" ]; then
		fwq_headers_dir "$KREL"
		return
	fi
	if [ -n "${KERNEL:-}" ]; then
		fwq_kernel_load "$KERNEL" || return 1
		krel=$(fwq_kernel_krel "$flavour") || return 1
		fwq_headers_dir "$krel"
		return
	fi
	d=/lib/modules/$(uname -r)/build
	if [ -r "$d/include/generated/utsrelease.h" ]; then
		case "$(uname -r)" in
		*-rt-*) [ "$flavour" = rt ] && { printf '%s\n' "$d"; return 0; } ;;
		*) [ "$flavour" = rt ] || { printf '%s\n' "$d"; return 0; } ;;
		esac
	fi
	if fwq_kernel_load && krel=$(fwq_kernel_krel "$flavour") &&
	   fwq_headers_dir "$krel"; then
		return 0
	fi
	d=$(fwq_newest_headers "$flavour")
	[ -n "$d" ] || return 1
	printf '%s\n' "$d"
}

# fwq_debian_source: set fwq_src_uri and fwq_src_keyring to the system's
# configured Debian archive (/etc/apt): its URI, and the keyring of its
# entry (empty if it names none: apt's trusted keys), and fwq_sec_uri and
# fwq_sec_keyring to its Debian security archive (URI ending in
# /debian-security; empty if none is configured). The deb822 stanzas of
# sources.list.d/*.sources come first, then one-line "deb [OPTIONS] URI
# SUITE COMPONENT..." entries. Used for every other suite fwq fetches
# from (fwq_apt, scripts/mkroot.sh), so that no mirror is named in the
# tree and /etc/apt is never changed.
fwq_debian_source() {
	local kind uri keyring

	fwq_src_uri=
	fwq_src_keyring=
	fwq_sec_uri=
	fwq_sec_keyring=
	while read -r kind uri keyring; do
		case "$kind" in
		main) [ -n "$fwq_src_uri" ] || { fwq_src_uri=$uri; fwq_src_keyring=$keyring; } ;;
		security) [ -n "$fwq_sec_uri" ] || { fwq_sec_uri=$uri; fwq_sec_keyring=$keyring; } ;;
		esac
	done < <(fwq_debian_entries)
	if [ -z "$fwq_src_uri" ]; then
		fwq_log "no Debian source configured in /etc/apt"
		return 1
	fi
}

# fwq_debian_entries: "main URI KEYRING" and "security URI KEYRING" for
# each Debian (/debian) and Debian security (/debian-security) entry of
# /etc/apt that apt reads with deb (not deb-src), in that order; KEYRING
# is the entry's Signed-By file, or "" (an inline key counts as none)
fwq_debian_entries() {
	local f

	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk 'function flush(   i, n, u, k) {
			if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^[Nn][Oo]$/) {
				k = (keyring ~ /^\//) ? keyring : ""
				n = split(uris, u, /[ \t]+/)
				for (i = 1; i <= n; i++) {
					if (u[i] ~ /\/debian\/?$/) print "main", u[i], k
					else if (u[i] ~ /\/debian-security\/?$/) print "security", u[i], k
				}
			}
			types = uris = keyring = enabled = ""
		}
		/^[ \t]*$/ { flush(); next }
		/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
		/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
		/^Signed-By:/ { sub(/^Signed-By:[ \t]*/, ""); keyring = $0 }
		/^Enabled:/ { sub(/^Enabled:[ \t]*/, ""); enabled = $0 }
		END { flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk '$1 != "deb" { next }
		{
			k = ""
			if ($2 ~ /^\[/) {
				for (i = 2; i <= NF; i++) {
					if ($i ~ /^\[?signed-by=/) {
						k = $i
						sub(/^\[?signed-by=/, "", k)
						sub(/\]$/, "", k)
					}
					if ($i ~ /\]$/) break
				}
				i++
			} else {
				i = 2
			}
			if ($i ~ /\/debian\/?$/) print "main", $i, k
			else if ($i ~ /\/debian-security\/?$/) print "security", $i, k
		}' "$f"
	done
}

# fwq_apt SUITE APT-GET-ARGS...: apt-get for another Debian suite, without
# touching /etc/apt: a sources list with the system's configured Debian
# URI and keyring, the other suite, and package lists and caches of its
# own in $FWQ_CACHE/apt/SUITE, updated on first use. SUITE empty: plain
# apt-get. RELEASE+security: RELEASE, and RELEASE-security from the
# system's configured security archive (when it has one: else RELEASE
# alone, with a notice).
fwq_apt() {
	local suite=$1 dir rel

	shift
	if [ -z "$suite" ]; then
		apt-get "$@"
		return
	fi
	dir=$FWQ_CACHE/apt/$suite
	if [ ! -s "$dir/sources.list" ]; then
		fwq_debian_source || return 1
		rel=${suite%+security}
		mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" ||
			return 1
		{
			echo "deb ${fwq_src_keyring:+[signed-by=$fwq_src_keyring] }$fwq_src_uri $rel main"
			if [ "$rel" != "$suite" ] && [ -n "$fwq_sec_uri" ]; then
				echo "deb ${fwq_sec_keyring:+[signed-by=$fwq_sec_keyring] }$fwq_sec_uri $rel-security main"
			elif [ "$rel" != "$suite" ]; then
				fwq_log "no Debian security source configured in /etc/apt: $rel without $rel-security"
			fi
		} > "$dir/sources.list.tmp" && mv "$dir/sources.list.tmp" "$dir/sources.list"
	fi
	if ! ls "$dir"/lists/*_Packages* > /dev/null 2>&1; then
		# shellcheck disable=SC2046 # the options are words without blanks
		apt-get $(fwq_apt_opts "$suite") update -q >&2 || return 1
	fi
	# shellcheck disable=SC2046 # the options are words without blanks
	apt-get $(fwq_apt_opts "$suite") "$@"
}

# fwq_apt_opts SUITE: the apt options of fwq_apt's state for SUITE
fwq_apt_opts() {
	local dir=$FWQ_CACHE/apt/$1

	printf '%s\n' -o "Dir::Etc::sourcelist=$dir/sources.list" \
		-o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$dir/lists" \
		-o "Dir::Cache=$dir/cache"
}

# fwq_apt_cache SUITE APT-CACHE-ARGS...: apt-cache on fwq_apt's lists
fwq_apt_cache() {
	local suite=$1

	shift
	if [ -z "$suite" ]; then
		apt-cache "$@"
		return
	fi
	fwq_apt "$suite" --version > /dev/null || return 1
	# shellcheck disable=SC2046 # the options are words without blanks
	apt-cache $(fwq_apt_opts "$suite") "$@"
}

# fwq_unpack_headers SUITE KREL: the headers package of KREL in SUITE
# (empty: the system's sources) and the -common and kbuild packages it
# depends on, unpacked into $FWQ_CACHE/headers/KREL (not installed: the
# headers of some kernels depend on the image package). The top
# Makefile's absolute include of the -common tree is pointed at the copy.
# Nothing is fetched when KREL's headers are there already. Holds the
# cache lock until the calling script exits: run it in a subshell to call
# it again (scripts/deps.sh, scripts/check-compile.sh).
fwq_unpack_headers() {
	local suite=$1 krel=$2 dest=$FWQ_CACHE/headers/$2 deb
	local -a debs

	fwq_cache_lock "$FWQ_CACHE/headers/.lock" .hdr
	fwq_headers_dir "$krel" > /dev/null && return 0
	mapfile -t debs < <(fwq_apt_cache "$suite" depends "linux-headers-$krel" |
		sed -n 's/^ *|\{0,1\}Depends: \(linux-\(headers\|kbuild\)-[^ ]*\).*/\1/p' | sort -u)
	debs+=("linux-headers-$krel")
	fwq_log "unpacking ${debs[*]} into $dest (not installing them)"
	(cd "$FWQ_TMP" && fwq_apt "$suite" download -q "${debs[@]}") >&2 ||
		fwq_die 2 "downloading the headers of $krel failed"
	mkdir -p "$FWQ_TMP/root"
	for deb in "$FWQ_TMP"/*.deb; do
		dpkg-deb -x "$deb" "$FWQ_TMP/root"
	done
	# 7.3's also names its own place as KBUILD_OUTPUT
	sed -i -e "s|^include /usr/src/|include $dest/usr/src/|" \
		-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$dest/usr/src/|" \
		"$FWQ_TMP/root/usr/src/linux-headers-$krel/Makefile"
	rm -rf "$dest"
	mkdir -p "$(dirname "$dest")"
	mv "$FWQ_TMP/root" "$dest"
	fwq_headers_dir "$krel" > /dev/null ||
		fwq_die 2 "the unpacked headers of $krel have no include/generated/utsrelease.h"
}


# fwq_krel: the target release (KREL, or read from the headers).
fwq_krel() {
	local kdir

	if [ -n "${KREL:-}" ]; then
		printf '%s\n' "$KREL"
		return 0
	fi
	kdir=$(fwq_kdir) || return 1
	fwq_krel_of "$kdir"
}

# fwq_vmlinuz KREL: path of the cached guest kernel image.
fwq_vmlinuz() {
	printf '%s\n' "$FWQ_CACHE/kernel/$1/boot/vmlinuz-$1"
}

# fwq_cache_lock LOCKFILE PREFIX: create LOCKFILE's directory in the cache,
# hold LOCKFILE (fd 9) until the script exits, so that concurrent scripts
# fill the cache once, and set FWQ_TMP to a new scratch directory PREFIX.*
# next to it, removed at exit. apt may download into FWQ_TMP: apt drops
# privileges to _apt for the download when it can write there.
fwq_cache_lock() {
	local dir

	dir=$(dirname "$1")
	mkdir -p "$dir" || fwq_die 2 "cannot create $FWQ_CACHE"
	exec 9>"$1"
	flock 9
	FWQ_TMP=$(mktemp -d "$dir/$2.XXXXXX")
	trap 'rm -rf "$FWQ_TMP"' EXIT
	chmod 0755 "$FWQ_TMP"
	chown _apt "$FWQ_TMP" 2>/dev/null || true
}

fwq_now() {
	date +%s.%N
}

# fwq_elapsed START: seconds since START (from fwq_now or fwq_mark), one
# decimal.
fwq_elapsed() {
	awk -v s="${1%%:*}" -v e="$(fwq_now)" 'BEGIN { printf "%.1f", e - s }'
}

# fwq_cpu_ticks PID: the CPU time of process PID and of the children it
# has waited for (utime + stime + cutime + cstime of /proc/PID/stat), in
# clock ticks. A child's time reaches its parent's cutime when the parent
# reaps it, so a shell's count after a command includes the whole tree.
fwq_cpu_ticks() {
	local line rest

	read -r line < "/proc/$1/stat" || { echo 0; return; }
	rest=${line##*) }
	# shellcheck disable=SC2086 # split into the fields after comm
	set -- $rest
	echo $((${12} + ${13} + ${14} + ${15}))
}

# fwq_mark: fwq_now and the calling shell's CPU ticks (fwq_cpu_ticks), as
# WALL:TICKS, for START=$(fwq_mark); fwq_lane_time then also records the
# CPU seconds the lane's processes used. Called in a command substitution,
# whose shell's parent is the caller.
fwq_mark() {
	local line rest

	read -r line < "/proc/$BASHPID/stat"
	rest=${line##*) }
	# shellcheck disable=SC2086 # split into the fields after comm
	set -- $rest
	echo "$(fwq_now):$(fwq_cpu_ticks "$2")"
}

# fwq_lane_time LANE KERNEL START RESULT: when FWQ_LANE_TIMES names a
# file, add the line "SECONDS<TAB>LANE<TAB>KERNEL<TAB>RESULT<TAB>CPU" to
# it: the seconds since START, and where START came from fwq_mark, the CPU
# seconds this shell's children used since (else "-"). Call it in the shell
# that took START, after the lane's commands were waited for. .ci/run
# prints these lines as its lane table; make check, make check-distro and
# make check-debug each add one per lane.
fwq_lane_time() {
	local cpu=- me=$BASHPID

	[ -n "${FWQ_LANE_TIMES:-}" ] || return 0
	case $3 in
	*:*)
		cpu=$(awk -v a="${3#*:}" -v b="$(fwq_cpu_ticks "$me")" \
			-v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) / hz }')
		;;
	esac
	printf '%s\t%s\t%s\t%s\t%s\n' "$(fwq_elapsed "$3")" "$1" "${2:--}" "$4" \
		"$cpu" >> "$FWQ_LANE_TIMES"
}

# fwq_copy_sources DIR [PATH...]: copy what a module build of the tree
# needs (the module sources, tracked or not, without ignored build
# output), plus PATHs, to DIR, keeping the layout; a scratch M= tree that
# leaves the checkout's own .ko files as they are.
# The scripts are those the build runs: the shim's test module's Kbuild
# calls scripts/shim-gen.sh, which sources lib.sh and calls kdir.sh.
fwq_copy_sources() {
	local dir=$1

	shift
	(cd "$FWQ_TOP" && git ls-files -co --exclude-standard -- Kbuild \
		VERSION include src bench tests Kbuild.include \
		scripts/shim-gen.sh scripts/lib.sh scripts/kdir.sh \
		scripts/kernels "$@" |
		while IFS= read -r f; do
			[ -f "$f" ] && printf '%s\n' "$f"
		done | cpio -pdm --quiet "$dir")
}

# fwq_lane_kind KIND KERNEL: the kind of a lane line of scripts/check.d/
# (its first word) when the lane runs on KERNEL, else fails: "kind:K" is
# a lane of kernel K only, "kind:!K" of every kernel but K. check.sh and
# lanes.sh read the lane files with it.
fwq_lane_kind() {
	case "$1" in
	*:!*) [ "${1#*:!}" != "$2" ] || return 1 ;;
	*:*) [ "${1#*:}" = "$2" ] || return 1 ;;
	esac
	printf '%s\n' "${1%%:*}"
}

# fwq_module_stage NAME [ARG...]: build the module NAME of
# scripts/modules/ (scripts/module-build.sh ARG... NAME) and set the
# FWQ_MB_* variables it prints (module-build.sh's header lists them);
# dies when the build fails or leaves no shimmed module. The XFS and
# loop checks and the XFS bench build their modules with it.
fwq_module_stage() {
	local name=$1 mb

	shift
	mb=$("$FWQ_TOP/scripts/module-build.sh" "$@" "$name" | grep '^FWQ_MB_') ||
		fwq_die 2 "module-build.sh $name failed"
	FWQ_MB_EXTRA='' FWQ_MB_STOCK='' FWQ_MB_SHIM='' FWQ_MB_DEBIAN=''
	FWQ_MB_GUEST='' FWQ_MB_SRCVER=''
	eval "$mb"
	[ -n "$FWQ_MB_SHIM" ] || fwq_die 2 "no shimmed $name.ko"
}

# fwq_stage_guest RUN: the folders of a guest run of the module that
# fwq_module_stage built: out (when empty, results/RUN-DATE), created
# and made absolute; tmp, a scratch folder removed at exit; and
# $tmp/mods, which holds the guest's modules of the kernel's own
# (FWQ_MB_GUEST) in load order as NN-NAME.ko, for the caller to add
# fwq.ko and the module under test to.
fwq_stage_guest() {
	local m n=10

	out=${out:-$FWQ_TOP/results/$1-$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$out" || fwq_die 2 "cannot create $out"
	out=$(cd "$out" && pwd)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/mods"
	for m in $FWQ_MB_GUEST; do
		cp "$m" "$tmp/mods/$n-$(basename "$m")"
		n=$((n + 1))
	done
}

# fwq_vm_judge OUT PREFIX [BYTES]: judge a guest's run from what a
# vm-run.sh --out directory OUT keeps, into the same directory:
#   badness.txt        the kernel badness lines of console.log
#                      (console-scan.sh; its first BYTES bytes only, when
#                      the guest was diagnosed: the SysRq output asked for
#                      after them is no crash). Any fails the run, but a
#                      KCSAN report with no fwq frame (a race inside the
#                      kernel itself) only goes to kcsan-foreign.txt;
#   report.txt         the console from the first badness line on (40
#                      lines, the register dump left out, RIP kept): where
#                      it happened and the call trace, for the summary;
#   emulator.txt       when the first report is an emulator fault, a trap
#                      on an int3 no longer in memory (stale-int3.sh): the
#                      line that says so; vm-run.sh then boots again once;
#   tests.txt          one line per test of ktap.txt (ktap-summary.sh),
#                      named under PREFIX (PRESET.PLAN).
# The first four are left out when empty. Returns ktap-summary.sh's exit
# code (1: a KTAP failure). vm-run.sh judges each boot with it, make
# recheck (scripts/recheck.sh) a saved one.
fwq_vm_judge() {
	local out=$1 prefix=$2 at=${3:-} first

	rm -f "$out"/{badness.txt,report.txt,kcsan-foreign.txt,emulator.txt,tests.txt}
	if [ -n "$at" ]; then
		head -c "$at" "$out/console.log"
	else
		cat "$out/console.log"
	fi | "$FWQ_TOP/scripts/console-scan.sh" --foreign "$out/kcsan-foreign.txt" \
		> "$out/badness.txt"
	[ -s "$out/badness.txt" ] || rm -f "$out/badness.txt"
	if [ -s "$out/badness.txt" ]; then
		first=$(head -n 1 "$out/badness.txt")
		tr -d '\r' < "$out/console.log" |
			awk -v first="$first" 'n == 0 && index($0, first) { n = 1 }
				n == 0 { next }
				/\] (R[A-Z0-9][A-Z0-9]?|FS|CS|CR2|PKRU|DR[0-7]|Code): / &&
				    !/\] RIP: / { next }
				n <= 40 { print; n++ }' > "$out/report.txt"
		[ -s "$out/report.txt" ] || rm -f "$out/report.txt"
		if [ -n "$at" ]; then
			head -c "$at" "$out/console.log"
		else
			cat "$out/console.log"
		fi | "$FWQ_TOP/scripts/stale-int3.sh" > "$out/emulator.txt" ||
			rm -f "$out/emulator.txt"
	fi
	[ -s "$out/kcsan-foreign.txt" ] || rm -f "$out/kcsan-foreign.txt"
	"$FWQ_TOP/scripts/ktap-summary.sh" --prefix "$prefix" "$out/ktap.txt" \
		> "$out/tests.txt" 2>&1
}

# fwq_show_badness DIR: the first badness lines of a vm-run.sh --out DIR
# and the console excerpt of the first report (RIP and call trace), as
# "#" lines (make check, make recheck)
fwq_show_badness() {
	[ -s "$1/badness.txt" ] || return 0
	head -n 10 "$1/badness.txt" | sed 's/^/# badness: /'
	[ -s "$1/report.txt" ] && sed 's/^/# report: /' "$1/report.txt"
	return 0
}

# The tally of a script that prints one "ok NAME" / "not ok NAME" line per
# test and ends with "N passed, N failed" (check.sh, check-distro.sh,
# selfcheck.sh, hang-matrix.sh, fwq-bench-test.sh, recheck.sh).
# FWQ_TAP_LOG, when set, is a file that gets a copy of every result line.
fwq_tap_passed=0
fwq_tap_failed=0
fwq_tap_skipped=0

# fwq_tap_result RC NAME [NOTE]: "ok NAME # NOTE" when RC is 0, else
# "not ok NAME # NOTE"; counted. Returns 0 for ok, 1 for not ok.
fwq_tap_result() {
	local line

	if [ "$1" -eq 0 ]; then
		line="ok $2${3:+ # $3}"
		fwq_tap_passed=$((fwq_tap_passed + 1))
	else
		line="not ok $2${3:+ # $3}"
		fwq_tap_failed=$((fwq_tap_failed + 1))
	fi
	echo "$line"
	[ -z "${FWQ_TAP_LOG:-}" ] || echo "$line" >> "$FWQ_TAP_LOG"
	[ "$1" -eq 0 ]
}

# fwq_tap_count FILE: add the "ok" / "not ok" / "skip" lines of FILE (results
# printed by another script) to the tally
fwq_tap_count() {
	local p f s

	# grep -c prints 0 and fails when nothing matches
	p=$(grep -c '^ok ' "$1") || :
	f=$(grep -c '^not ok ' "$1") || :
	s=$(grep -c '^skip ' "$1") || :
	fwq_tap_passed=$((fwq_tap_passed + p))
	fwq_tap_failed=$((fwq_tap_failed + f))
	fwq_tap_skipped=$((fwq_tap_skipped + s))
}

# fwq_tap_summary: "N passed, N failed" (and a "# N skipped" line before it
# when some were); returns 1 if any test failed
fwq_tap_summary() {
	[ "$fwq_tap_skipped" -eq 0 ] || echo "# $fwq_tap_skipped skipped"
	echo "$fwq_tap_passed passed, $fwq_tap_failed failed"
	[ "$fwq_tap_failed" -eq 0 ]
}
