#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once per machine) a trimmed Debian debug kernel for one fwq debug
# lane, and print where it is. The kernel is KERNEL's (scripts/kernels/,
# default 6.1): its source package FWQ_K_SOURCE.
#
#   scripts/debug-kernel.sh --lane lockdep|kcsan [--jobs N] [--config-only]
#                           [--no-build] [--max-seconds S]
#   scripts/debug-kernel.sh --deps-only
#
# Lanes:
#   lockdep  PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, KASAN, DEBUG_OBJECTS_WORK,
#            kmemleak   (scripts/kconfig/debug-lockdep-kasan.config)
#   kcsan    KCSAN      (scripts/kconfig/debug-kcsan.config)
#
# The source is Debian's linux-source-6.1 (installed with apt-get when
# missing and running as root; a kernel of another suite has its source
# package downloaded, not installed), unpacked once under $FWQ_CACHE/src.  The
# config is allnoconfig + scripts/kconfig/debug-base.config + the lane
# fragment, then olddefconfig; every fragment line is checked in the result.
# The build tree lives in $FWQ_CACHE/debug-kernel/<lane>-<sha of .config>,
# so an unchanged config never rebuilds; an interrupted build resumes.
# --no-build fails (exit 1) instead of building a kernel that is not built
# yet; --max-seconds S stops a build that runs longer (exit 1; it resumes
# next time), so a CI run reports a slow build instead of running out of
# time. --deps-only installs the build's packages and stops (.ci/run does
# every apt-get install before it starts the builds in the background).
#
# On success the last lines on stdout are shell assignments:
#   FWQ_DK_KDIR=<build tree: pass as KDIR= to build fwq for this kernel>
#   FWQ_DK_BZIMAGE=<bzImage to boot>
#   FWQ_DK_RELEASE=<kernel release string>
#   FWQ_DK_BUILD_S=<seconds the build took when it was built>
# Exit: 0 ok, 2 setup error (missing tools, bad config), 1 build failure.

set -euo pipefail

LANE=
JOBS=$(nproc)
CONFIG_ONLY=0
DEPS_ONLY=0
NO_BUILD=0
MAX_S=0
FWQ_CACHE=${FWQ_CACHE:-/var/cache/fwq}
TOP=$(cd "$(dirname "$0")/.." && pwd)
KCONF=$TOP/scripts/kconfig

die() { echo "debug-kernel: $*" >&2; exit 2; }
log() { echo "debug-kernel: $*" >&2; }

# shellcheck source=scripts/lib.sh
. "$TOP/scripts/lib.sh"
fwq_kernel_load || die "unknown KERNEL '${KERNEL:-}' (scripts/kernels/)"
SRC_PKG=$FWQ_K_SOURCE
SRC_TAR=/usr/src/$SRC_PKG.tar.xz
# the build trees of a kernel other than the default carry its name
KPFX=
[ "$FWQ_K_NAME" = "$FWQ_KERNEL_DEFAULT" ] || KPFX=$FWQ_K_NAME-

while [ $# -gt 0 ]; do
	case "$1" in
	--lane) LANE=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--config-only) CONFIG_ONLY=1; shift ;;
	--deps-only) DEPS_ONLY=1; LANE=lockdep; shift ;;
	--no-build) NO_BUILD=1; shift ;;
	--max-seconds)
		[[ ${2:-} =~ ^[0-9]+$ ]] || die "--max-seconds needs seconds"
		MAX_S=$2; shift 2 ;;
	-h|--help) sed -n '3,36p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done

case "$LANE" in
lockdep) FRAG=$KCONF/debug-lockdep-kasan.config ;;
kcsan) FRAG=$KCONF/debug-kcsan.config ;;
*) die "--lane lockdep|kcsan required" ;;
esac

need_pkgs() {
	local missing=() p
	[ -f "$SRC_TAR" ] || [ -n "$FWQ_K_SUITE" ] || missing+=("$SRC_PKG")
	for p in bc bison flex gcc make perl xz-utils libelf-dev libssl-dev \
		 cpio; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages (need root): ${missing[*]}"
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install failed"
}

need_pkgs
[ $DEPS_ONLY -eq 0 ] || exit 0
mkdir -p "$FWQ_CACHE/src" "$FWQ_CACHE/debug-kernel"
exec 9>"$FWQ_CACHE/debug-kernel/.lock"
flock 9

# Unpack once per source package version. A kernel from another suite:
# its source package is downloaded (not installed) and its tarball kept.
if [ -n "$FWQ_K_SUITE" ]; then
	dl=$FWQ_CACHE/src/dl-$FWQ_K_NAME
	if ! ls "$dl/$SRC_PKG"_*.deb > /dev/null 2>&1; then
		rm -rf "$dl" && mkdir -p "$dl" && chown _apt "$dl" 2>/dev/null
		(cd "$dl" && fwq_apt "$FWQ_K_SUITE" download -q "$SRC_PKG") >&2 ||
			die "downloading $SRC_PKG from $FWQ_K_SUITE failed"
	fi
	debs=("$dl/$SRC_PKG"_*.deb)
	deb=${debs[0]}
	SRC_VER=$(dpkg-deb -f "$deb" Version)
	SRC_TAR=$dl/$SRC_PKG.tar.xz
	[ -f "$SRC_TAR" ] || dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$SRC_PKG.tar.xz" > "$SRC_TAR"
else
	SRC_VER=$(dpkg-query -W -f '${Version}' "$SRC_PKG")
fi
SRC=$FWQ_CACHE/src/$SRC_PKG-$SRC_VER
if [ ! -f "$SRC/.fwq-unpacked" ]; then
	log "unpacking $SRC_TAR into $SRC"
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar xf "$SRC_TAR" -C "$SRC.tmp" --strip-components=1
	touch "$SRC.tmp/.fwq-unpacked"
	mv "$SRC.tmp" "$SRC"
fi

# Symbols fwq needs that have no prompt upstream get one, so the fragment
# can set them without pulling in what normally selects them:
#   PREEMPT_NOTIFIERS (fwq's CM hook; only KVM selects it)
#   GLOB (glob_match() for fwq_test's filter; tracing, ATA... select it)
# Idempotent: a tree unpacked by an older version of this script is fixed.
kprompt() {
	local file=$SRC/$1 sym=$2 text=$3

	grep -q "bool \"$text\"" "$file" && return 0
	sed -i "/^config $sym\$/{n;s/^\tbool\$/\tbool \"$text\"/}" "$file"
	grep -q "bool \"$text\"" "$file" || die "could not give $sym a prompt"
}
kprompt init/Kconfig PREEMPT_NOTIFIERS "Preempt notifiers (fwq debug kernel)"
kprompt lib/Kconfig GLOB "glob_match (fwq debug kernel)"

# One source change, for CONFIG_PROVE_RAW_LOCK_NESTING (the lockdep lane):
# on 6.1 a printk from hard-IRQ context (under TCG, "hrtimer: interrupt
# took ...") makes the 8250 console driver take its port's spinlock_t
# there, which that check reports as an invalid wait context; lockdep then
# turns itself off for the rest of the boot. On !PREEMPT_RT that nesting is
# harmless (later kernels exempt the legacy console path from the check),
# so the console driver call is hidden from lockdep. Idempotent; its
# version is part of the build tree's cache key.
SRC_PATCHES=
kpatch_printk() {
	local f=$SRC/kernel/printk/printk.c

	SRC_PATCHES=printk-console-lockdep-off-1
	grep -q 'fwq debug kernel' "$f" && return 0
	perl -0pi -e 's/(static void call_console_driver\(struct console \*con, const char \*text, size_t len,\n\t\t\t\tchar \*dropped_text\)\n\{\n\tsize_t dropped_len;\n)(.*?)(\tcon->write\(con, text, len\);\n)\}/$1\n\tlockdep_off();\t\/* fwq debug kernel: see scripts\/debug-kernel.sh *\/\n$2$3\tlockdep_on();\n}/s' "$f"
	grep -q 'fwq debug kernel' "$f" || die "could not patch $f"
}
[ "$FWQ_K_SERIES" = 6.1 ] && kpatch_printk

# The source is ready: from here on, only this lane's own lock, so that
# one lane's kernel is checked (or used) while another lane's builds.
exec 8>"$FWQ_CACHE/debug-kernel/.lock-$KPFX$LANE"
flock -u 9
flock 8

# Generate the config in a staging tree.
STAGE=$FWQ_CACHE/debug-kernel/stage-$KPFX$LANE
rm -rf "$STAGE"
mkdir -p "$STAGE"
cat "$KCONF/debug-base.config" "$FRAG" >"$STAGE/fwq-fragment.config"
make -s -C "$SRC" O="$STAGE" ARCH=x86_64 \
	KCONFIG_ALLCONFIG="$STAGE/fwq-fragment.config" allnoconfig >&2
make -s -C "$SRC" O="$STAGE" ARCH=x86_64 olddefconfig >&2

bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n)
		sym=${line%=n}
		if grep -q "^$sym=" "$STAGE/.config"; then
			log "config: wanted $line, got $(grep "^$sym=" "$STAGE/.config")"
			bad=1
		fi ;;
	CONFIG_*=*)
		if ! grep -qxF "$line" "$STAGE/.config"; then
			sym=${line%%=*}
			log "config: wanted $line, got $(grep "^$sym=" "$STAGE/.config" || echo unset)"
			bad=1
		fi ;;
	esac
done <"$STAGE/fwq-fragment.config"
[ $bad -eq 0 ] || die "fragment not honoured by Kconfig (see above)"

HASH=$( (cat "$STAGE/.config"; echo "$SRC_PATCHES") | sha256sum | cut -c1-12)
DIR=$FWQ_CACHE/debug-kernel/$KPFX$LANE-$HASH
if [ ! -d "$DIR" ]; then
	# Seed from the newest finished build of this lane, if any: kbuild's
	# per-option dependencies then rebuild only what the change touches.
	prev=
	for d in "$FWQ_CACHE/debug-kernel/$KPFX$LANE"-[0-9a-f]*/.fwq-built; do
		[ -e "$d" ] || continue
		if [ -z "$prev" ] || [ "$d" -nt "$prev/.fwq-built" ]; then
			prev=$(dirname "$d")
		fi
	done
	if [ -n "$prev" ]; then
		log "seeding $DIR from $prev"
		cp -a "$prev" "$DIR.tmp"
		rm -f "$DIR.tmp/.fwq-built" "$DIR.tmp/build-seconds"
		cp "$STAGE/.config" "$STAGE/fwq-fragment.config" "$DIR.tmp/"
		echo "$prev" >"$DIR.tmp/seeded-from"
		mv "$DIR.tmp" "$DIR"
		rm -rf "$STAGE"
	else
		mv "$STAGE" "$DIR"
	fi
else
	rm -rf "$STAGE"
fi
ln -sfn "$KPFX$LANE-$HASH" "$FWQ_CACHE/debug-kernel/$KPFX$LANE"

if [ $CONFIG_ONLY -eq 1 ]; then
	echo "FWQ_DK_KDIR=$DIR"
	exit 0
fi

if [ ! -f "$DIR/.fwq-built" ]; then
	if [ $NO_BUILD -eq 1 ]; then
		log "the $LANE kernel ($DIR) is not built; make debug-kernel LANE=$LANE builds it"
		exit 1
	fi
	log "building $LANE kernel in $DIR with -j$JOBS (log: $DIR/build.log)"
	start=$(date +%s)
	limit=()
	[ "$MAX_S" -eq 0 ] || limit=(timeout "$MAX_S")
	rc=0
	"${limit[@]}" make -C "$SRC" O="$DIR" ARCH=x86_64 \
		-j"$JOBS" bzImage modules >"$DIR/build.log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 40 "$DIR/build.log" >&2
		[ $rc -eq 124 ] && [ "$MAX_S" -ne 0 ] &&
			log "build stopped after --max-seconds $MAX_S (it resumes next time)"
		log "build failed"
		exit 1
	fi
	end=$(date +%s)
	echo $((end - start)) >"$DIR/build-seconds"
	[ -e "$DIR/seeded-from" ] && log "(incremental, seeded from $(cat "$DIR/seeded-from"))"
	touch "$DIR/.fwq-built"
	log "built in $((end - start)) s"
fi

echo "FWQ_DK_KDIR=$DIR"
echo "FWQ_DK_BZIMAGE=$DIR/arch/x86/boot/bzImage"
echo "FWQ_DK_RELEASE=$(cat "$DIR/include/config/kernel.release")"
echo "FWQ_DK_BUILD_S=$(cat "$DIR/build-seconds" 2>/dev/null || echo unknown)"
