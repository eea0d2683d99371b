#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# module-build.sh [--stock-only | --shim-only] [--fwq DIR] MODULE: build a
# module of the target kernel's own source out of tree, twice: stock (the
# control) and with fwq's shim (its workqueues on fwq), both stripped
# (--strip-debug), for KERNEL (scripts/kernels/, default 6.1) with its
# toolchain (scripts/toolchain.sh). --stock-only builds the control
# alone, --shim-only the shimmed module alone (its imports are then
# checked against Debian's own build of the module, as the control's
# are). --fwq DIR: the fwq build the shim build takes its headers,
# scripts/shim-gen.sh, src/fwq.ko and Module.symvers from (a copy of the
# sources built on its own, as check-xfs.sh --own-build makes; default
# the tree). MODULE is a recipe, scripts/modules/MODULE:
#   FWQ_M_DESC        one line for humans
#   FWQ_M_NAME        the module's name (NAME.ko)
#   FWQ_M_DIR         its directory in the kernel source, e.g. fs/xfs
#   FWQ_M_INCLUDES    include directories its Makefile names through
#                     $(srctree)/$(src), relative to FWQ_M_DIR (the
#                     directory itself is always added)
#   FWQ_M_CONFIG      the config symbol that must be m in the target
#   FWQ_M_GUEST_DEPS  the target kernel's own modules a guest loads
#                     before it, in order (paths under kernel/, no .ko)
#   FWQ_M_GUEST_EXTRA optional: more of the target kernel's own modules,
#                     unpacked for the guest but not in its load order (a
#                     guest loads them itself, with parameters: brd)
#   FWQ_M_FILES       optional, for a directory of many modules: the
#                     files of FWQ_M_DIR the build takes; the wrapper
#                     then builds NAME.o alone (obj-m) instead of
#                     including the directory's Makefile
#
# The source is the kernel's source package (FWQ_K_SOURCE) of exactly the
# version of the target's headers package: its tarball in /usr/src where
# that version is installed (debug-kernel.sh --deps-only installs it),
# else fetched with "apt-get download" (never installed; another suite's
# apt source is derived from the machine's own, fwq_apt in lib.sh); only
# FWQ_M_DIR is extracted.
# The module's own Makefile runs under a generated Kbuild wrapper that adds
# the include paths an out-of-tree build lacks. The shim build adds
# fwq's one Kbuild line (scripts/shim-gen.sh writes fwq_shim_core.h, the
# core headers the module includes) and links against the tree's
# Module.symvers (make modules first, or --fwq). Debian's own build of the module
# and of FWQ_M_GUEST_DEPS and FWQ_M_GUEST_EXTRA, plus the virtio-blk
# stack a guest's disk needs (vm-run.sh --disk), are unpacked from the
# kernel's image package.
#
# Everything is cached under $FWQ_CACHE/modules/SOURCE-VERSION/, the
# builds by a hash of their inputs' content (not of the checkout's path),
# so a second run, or another clone of the same sources, builds nothing.
# On success the last lines on stdout are shell assignments:
#   FWQ_MB_EXTRA="<FWQ_M_GUEST_EXTRA's modules>"
#   FWQ_MB_STOCK=<the stock module; empty with --shim-only>
#   FWQ_MB_SHIM=<the shimmed module; empty with --stock-only>
#   FWQ_MB_DEBIAN=<Debian's own build of the module>
#   FWQ_MB_GUEST="<the guest's modules before it, in load order>"
#   FWQ_MB_SRCVER=<the source package's version>
# Exit: 0 ok, 2 setup error, 1 build failure.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

stock_only=0
shim_only=0
fwq=$FWQ_TOP
while [ $# -gt 0 ]; do
	case "$1" in
	--stock-only) stock_only=1; shift ;;
	--shim-only) shim_only=1; shift ;;
	--fwq)
		[ -d "${2:-}" ] || fwq_die 2 "--fwq needs a directory"
		fwq=$(cd "$2" && pwd); shift 2 ;;
	-h|--help) sed -n '4,57p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) fwq_die 2 "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || fwq_die 2 "usage: $0 [--stock-only | --shim-only] [--fwq DIR] MODULE"
[ $((stock_only + shim_only)) -lt 2 ] ||
	fwq_die 2 "--stock-only and --shim-only exclude each other"
mod=$1
case "$mod" in
''|*/*|.*) fwq_die 2 "bad module name '$mod'" ;;
esac
recipe=$FWQ_TOP/scripts/modules/$mod
[ -r "$recipe" ] || fwq_die 2 "no recipe scripts/modules/$mod"
FWQ_M_DESC=''
FWQ_M_NAME=''
FWQ_M_DIR=''
FWQ_M_INCLUDES=''
FWQ_M_CONFIG=''
FWQ_M_GUEST_DEPS=''
FWQ_M_GUEST_EXTRA=''
FWQ_M_FILES=''
# shellcheck source=scripts/modules/xfs
. "$recipe"
[ -n "$FWQ_M_NAME" ] || fwq_die 2 "$recipe: FWQ_M_NAME is required"
[ -n "$FWQ_M_DIR" ] ||
	fwq_die 2 "$recipe: FWQ_M_DIR is required"

# the virtio-blk stack, in load order, for vm-run.sh --disk
disk_mods="drivers/virtio/virtio drivers/virtio/virtio_ring
	drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci_modern_dev
	drivers/virtio/virtio_pci drivers/block/virtio_blk"

fwq_kernel_load || fwq_die 2 "unknown KERNEL '${KERNEL:-}' (scripts/kernels/)"
[ -z "${FLAVOUR:-}" ] || fwq_die 2 "FLAVOUR=${FLAVOUR} is not supported here"
krel=$(fwq_kernel_krel) || fwq_die 2 "kernel $FWQ_K_NAME: no ABI yet (scripts/deps.sh)"
kdir=$(fwq_headers_dir "$krel") || fwq_die 2 "no headers for $krel (scripts/deps.sh)"
grep -qx "$FWQ_M_CONFIG=m" "$kdir/include/config/auto.conf" ||
	fwq_die 2 "$krel does not build $FWQ_M_CONFIG as a module"

# the version of the target's headers package is the source's
srcver=$(fwq_apt_cache "$FWQ_K_SUITE" show "linux-headers-$krel" 2> /dev/null |
	sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$srcver" ] || fwq_die 2 "no package linux-headers-$krel in the apt lists"
src_pkg=$FWQ_K_SOURCE
base=$FWQ_CACHE/modules/$src_pkg-$srcver
fwq_cache_lock "$base/.lock" .mb

# fetch PKG: apt-get download PKG=srcver into FWQ_TMP; prints the .deb
fetch() {
	local pkg=$1

	if ! ls "$FWQ_TMP/$pkg"_*.deb > /dev/null 2>&1; then
		fwq_log "downloading $pkg $srcver${FWQ_K_SUITE:+ from $FWQ_K_SUITE} (not installing it)"
		(cd "$FWQ_TMP" && fwq_apt "$FWQ_K_SUITE" download -q "$pkg=$srcver") >&2 ||
			return 1
	fi
	ls "$FWQ_TMP/$pkg"_*.deb
}

# The module's source: FWQ_M_DIR only, streamed out of the tarball.
src=$base/src
if [ ! -e "$src/.fwq-$mod" ]; then
	rm -rf "${src:?}/$FWQ_M_DIR"
	mkdir -p "$src"
	if [ -r "/usr/src/$src_pkg.tar.xz" ] &&
	   [ "$(dpkg-query -W -f '${Version}' "$src_pkg" 2> /dev/null)" = "$srcver" ]; then
		fwq_log "extracting $FWQ_M_DIR from the installed $src_pkg $srcver"
		tar -xJ -f "/usr/src/$src_pkg.tar.xz" -C "$src" --strip-components=1 \
			"$src_pkg/$FWQ_M_DIR" ||
			fwq_die 2 "$FWQ_M_DIR missing from $src_pkg $srcver"
	else
		deb=$(fetch "$src_pkg") || fwq_die 2 "apt-get download $src_pkg=$srcver failed"
		fwq_log "extracting $FWQ_M_DIR from $src_pkg $srcver"
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/$src_pkg.tar.xz" |
			tar -xJ -C "$src" --strip-components=1 "$src_pkg/$FWQ_M_DIR" ||
			fwq_die 2 "$FWQ_M_DIR missing from $src_pkg $srcver"
		rm -f "$deb"
	fi
	touch "$src/.fwq-$mod"
fi

# Debian's own modules: the module and the guest's others, from the
# image package (the -unsigned one where there is one; 7.3's image is
# split, its modules in linux-modules-KREL and modules.builtin in
# linux-base-KREL); .ko.xz unpacked. A module the kernel has built in
# (modules.builtin: virtio-pci on 7.3) leaves NAME.builtin, no module.
dmods=$base/debian
want=("$FWQ_M_DIR/$FWQ_M_NAME")
for m in $FWQ_M_GUEST_DEPS $FWQ_M_GUEST_EXTRA $disk_mods; do
	want+=("$m")
done
missing=0
for m in "${want[@]}"; do
	[ -r "$dmods/$(basename "$m").ko" ] ||
		[ -e "$dmods/$(basename "$m").builtin" ] || missing=1
done
if [ $missing -eq 1 ]; then
	deb=
	for pkg in "linux-image-$krel-unsigned" "linux-modules-$krel" \
		   "linux-image-$krel"; do
		deb=$(fetch "$pkg") && break
		deb=
	done
	[ -n "$deb" ] || fwq_die 2 "no image package for $krel $srcver"
	mkdir -p "$FWQ_TMP/img" "$dmods"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$FWQ_TMP/img" \
		--wildcards "*/modules/$krel/kernel/*" ||
		fwq_die 2 "cannot unpack $deb"
	bdeb=$deb
	case "$deb" in
	*/linux-modules-*)
		bdeb=$(fetch "linux-base-$krel") ||
			fwq_die 2 "no linux-base-$krel $srcver"
		;;
	esac
	dpkg-deb --fsys-tarfile "$bdeb" | tar -x -C "$FWQ_TMP/img" \
		--wildcards "*/modules/$krel/modules.builtin" ||
		fwq_die 2 "cannot unpack modules.builtin from $bdeb"
	builtin=$(find "$FWQ_TMP/img" -path "*/modules/$krel/modules.builtin" | head -n 1)
	for m in "${want[@]}"; do
		f=$(find "$FWQ_TMP/img" -path "*/modules/$krel/kernel/$m.ko*" | head -n 1)
		if [ -z "$f" ] && [ "$m" != "$FWQ_M_DIR/$FWQ_M_NAME" ] &&
		   grep -qx "kernel/$m.ko" "$builtin"; then
			: > "$dmods/$(basename "$m").builtin"
			continue
		fi
		[ -n "$f" ] || fwq_die 2 "$deb has no $m.ko"
		case "$f" in
		*.xz) xz -dc "$f" > "$dmods/$(basename "$m").ko" ;;
		*.zst) zstd -qdc "$f" > "$dmods/$(basename "$m").ko" ;;
		*) cp "$f" "$dmods/$(basename "$m").ko" ;;
		esac
	done
	rm -rf "$FWQ_TMP/img" "$deb" "$bdeb"
fi

# build KIND EXTRA-KBUILD-LINE [MAKE-ARG...]: the module in a copy of its
# source with the Kbuild wrapper; prints the stripped module's path. The
# build tree is keyed by a hash of everything that goes into it.
build() {
	local kind=$1 line=$2 key dir inc ko

	shift 2
	# shellcheck disable=SC2016 # make expands $(src)
	inc='-I$(src)'
	for i in $FWQ_M_INCLUDES; do
		inc+=" -I\$(src)/$i"
	done
	# the content, not where it is: two clones of the same sources share
	# a build (the Kbuild wrapper names the first one's path, which
	# nothing reads once it is built). Of a Module.symvers, each
	# symbol's CRC, name, module (not its directory) and export.
	key=$( {
		echo "3 $kdir $krel $srcver $FWQ_M_DIR $inc $line"
		[ -z "$FWQ_M_FILES" ] || echo "files $FWQ_M_FILES"
		for a in "$@"; do
			case "$a" in
			KBUILD_EXTRA_SYMBOLS=*)
				echo KBUILD_EXTRA_SYMBOLS
				awk -F '\t' '{ n = split($3, p, "/"); print $1, $2, p[n], $4, $5 }' "${a#*=}"
				;;
			*) echo "$a" ;;
			esac
		done
		[ "$kind" = stock ] || cat "$fwq"/include/fwq/*.h "$fwq/scripts/shim-gen.sh"
	} | sha256sum | cut -c1-12)
	dir=$base/build/$mod-$kind-$key
	ko=$dir/$FWQ_M_NAME.ko
	if [ -r "$dir/.fwq-built" ]; then
		printf '%s\n' "$ko"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ -z "$FWQ_M_FILES" ]; then
		cp -a "$src/$FWQ_M_DIR/." "$dir/"
	else
		for f in $FWQ_M_FILES; do
			cp -a "$src/$FWQ_M_DIR/$f" "$dir/" ||
				fwq_die 2 "$FWQ_M_DIR/$f missing from $src_pkg $srcver"
		done
	fi
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		if [ -z "$FWQ_M_FILES" ]; then
			echo "# Generated by fwq's scripts/module-build.sh: $FWQ_M_DIR's own"
			echo "# Makefile, plus the include paths of an out-of-tree build."
			echo "include \$(src)/Makefile"
		else
			echo "# Generated by fwq's scripts/module-build.sh: $FWQ_M_NAME.o of"
			echo "# $FWQ_M_DIR alone, with the include paths of an out-of-tree build."
			echo "obj-m := $FWQ_M_NAME.o"
		fi
		echo "ccflags-y += $inc"
		if [ -n "$line" ]; then
			echo "FWQ_TOP := $fwq"
			echo "OUT_DIR := \$(src)/shim"
			echo "$line"
		fi
	} > "$dir/Kbuild"
	if [ "$kind" != stock ]; then
		"$fwq/scripts/shim-gen.sh" "$dir" "$dir/shim" >&2 ||
			fwq_die 1 "shim-gen.sh failed for $dir"
	fi
	fwq_log "building $kind $FWQ_M_NAME.ko ($src_pkg $srcver) in $dir"
	local t0
	t0=$(fwq_now)
	"$FWQ_TOP/scripts/toolchain.sh" "$kdir" --bind "$base" -- \
		nice -n 10 make -C "$kdir" M="$dir" -j"$(nproc)" "$@" modules \
		> "$dir/build.log" 2>&1 ||
		{ tail -n 30 "$dir/build.log" >&2; fwq_die 1 "$kind build failed ($dir/build.log)"; }
	"$FWQ_TOP/scripts/toolchain.sh" "$kdir" --bind "$base" -- \
		strip --strip-debug "$ko" || fwq_die 1 "strip failed"
	fwq_elapsed "$t0" > "$dir/build-seconds"
	fwq_log "built $kind $FWQ_M_NAME.ko in $(cat "$dir/build-seconds") s"
	touch "$dir/.fwq-built"
	printf '%s\n' "$ko"
}

stock=
[ $shim_only -eq 1 ] || stock=$(build stock "")
shim=
if [ $stock_only -eq 0 ]; then
	symvers=$fwq/Module.symvers
	if [ ! -x "$fwq/scripts/shim-gen.sh" ] || [ ! -r "$fwq/include/fwq/shim.h" ]; then
		fwq_die 2 "no shim in $fwq (scripts/shim-gen.sh, include/fwq/shim.h): --stock-only"
	fi
	if [ ! -r "$fwq/src/fwq.ko" ] || [ ! -r "$symvers" ]; then
		fwq_die 2 "no fwq.ko built in $fwq: make modules KERNEL=$FWQ_K_NAME first"
	fi
	vm=$(modinfo -F vermagic "$fwq/src/fwq.ko" | awk '{ print $1 }')
	[ "$vm" = "$krel" ] || fwq_die 2 "$fwq/src/fwq.ko is built for $vm, not $krel: make modules KERNEL=$FWQ_K_NAME"
	# shellcheck disable=SC2016 # make expands these
	shim=$(build shim 'ccflags-y += -I$(FWQ_TOP)/include -I$(OUT_DIR) -include fwq/shim.h' \
		KBUILD_EXTRA_SYMBOLS="$symvers")
fi

# The imports. The stock build must import what Debian's build does, with
# the same CRCs; the shimmed one may add fwq_* only to those (the stock
# build's, or with --shim-only Debian's, which the stock build matches),
# and its kernel workqueue imports (those a core header's inline code
# calls, which stay on the kernel's workqueue) are listed.
# A kernel without CONFIG_MODVERSIONS (7.3) has no CRCs: the imports
# alone are compared.
crcs=1
grep -qx "CONFIG_MODVERSIONS=y" "$kdir/include/config/auto.conf" || crcs=0
dumpv() {
	[ $crcs -eq 0 ] || modprobe --dump-modversions "$1" | sort -k2
}
if [ -n "$stock" ]; then
	if [ "$(nm -u "$stock")" != "$(nm -u "$dmods/$FWQ_M_NAME.ko")" ] ||
	   [ "$(dumpv "$stock")" != "$(dumpv "$dmods/$FWQ_M_NAME.ko")" ]; then
		diff <(nm -u "$stock") <(nm -u "$dmods/$FWQ_M_NAME.ko") >&2 || :
		fwq_die 1 "the stock $FWQ_M_NAME.ko's imports differ from Debian's ($stock)"
	fi
	if [ $crcs -eq 1 ]; then
		fwq_log "stock $FWQ_M_NAME.ko: the $(nm -u "$stock" | wc -l) imports and their CRCs of Debian's own $krel build"
	else
		fwq_log "stock $FWQ_M_NAME.ko: the $(nm -u "$stock" | wc -l) imports of Debian's own $krel build (no CONFIG_MODVERSIONS: no CRCs)"
	fi
fi
if [ -n "$shim" ]; then
	control=${stock:-$dmods/$FWQ_M_NAME.ko}
	fwqs=$(nm -u "$shim" | awk '$2 ~ /^fwq_/ { print $2 }' | wc -l)
	other=$(comm -13 <(nm -u "$control" | awk '{ print $2 }' | sort) \
		<(nm -u "$shim" | awk '$2 !~ /^fwq_/ { print $2 }' | sort) | tr '\n' ' ')
	[ -z "$other" ] || fwq_die 1 "the shimmed $FWQ_M_NAME.ko imports what $control does not: $other"
	kwq=$(nm -u "$shim" | awk '{ print $2 }' | grep -E \
		'^(__)?(alloc_workqueue(_noprof)?|destroy_workqueue|(queue|mod|cancel|flush)_[a-z_]*work[a-z_]*|system_[a-z_]*wq|workqueue_[a-z_]*|drain_workqueue|delayed_work_timer_fn|__flush_workqueue)$' |
		tr '\n' ' ') || kwq=
	fwq_log "shimmed $FWQ_M_NAME.ko: $fwqs fwq_* imports; kernel workqueue imports left: ${kwq:-none}"
fi

# the guest's modules in load order: each after those it depends on
guest=
left=
for m in $disk_mods $FWQ_M_GUEST_DEPS; do
	[ -e "$dmods/$(basename "$m").builtin" ] || left+=" $(basename "$m")"
done
while [ -n "${left// /}" ]; do
	next=
	for m in $left; do
		ok=1
		for d in $(modinfo -F depends "$dmods/$m.ko" | tr ',' ' '); do
			case " $left " in
			*" $d "*) ok=0 ;;
			esac
		done
		[ $ok -eq 1 ] && next=$m && break
	done
	[ -n "$next" ] || fwq_die 2 "the guest's modules depend on each other in a cycle:$left"
	guest+="${guest:+ }$dmods/$next.ko"
	left=$(tr ' ' '\n' <<< "$left" | grep -vx "$next" | tr '\n' ' ')
done
extra=
for m in $FWQ_M_GUEST_EXTRA; do
	[ -r "$dmods/$(basename "$m").ko" ] ||
		fwq_die 2 "$krel has $m built in, not as a module"
	extra+="${extra:+ }$dmods/$(basename "$m").ko"
done
echo "FWQ_MB_EXTRA=\"$extra\""
echo "FWQ_MB_STOCK=$stock"
echo "FWQ_MB_SHIM=$shim"
echo "FWQ_MB_DEBIAN=$dmods/$FWQ_M_NAME.ko"
echo "FWQ_MB_GUEST=\"$guest\""
echo "FWQ_MB_SRCVER=$srcver"
