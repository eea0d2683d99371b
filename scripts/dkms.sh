#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh check DIR | install | uninstall | files
#   check DIR  dkms add + build of the DKMS package for the target release
#              (KREL/KDIR/FLAVOUR) in a scratch tree under DIR (--dkmstree,
#              --sourcetree, signing key in DIR too), then copies the built
#              fwq.ko and fwq_bench.ko to DIR/modules/ for a VM boot. The
#              system (/usr/src, /var/lib/dkms, /lib/modules) is untouched.
#   install    copy the package to /usr/src/fwq-VERSION, then dkms add,
#              build and install it for the target release.
#   uninstall  dkms remove fwq/VERSION for all kernels, rm the source copy.
#              install/uninstall honour FWQ_DKMS_SOURCE_TREE (/usr/src),
#              FWQ_DKMS_TREE (/var/lib/dkms) and FWQ_DKMS_INSTALL_TREE
#              (/lib/modules), to try them out in a scratch tree.
#   files      list the files the package ships.
# The version is VERSION's; dkms.conf reads it from the copied VERSION file.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP"

version=$(cat VERSION)

# What the DKMS package ships: the build files and the sources of fwq.ko
# and fwq_bench.ko; no tests, no harness.
package_files() {
	printf '%s\n' dkms.conf VERSION Kbuild Kbuild.include \
		src/compat/probe.sh
	find include src bench -type f \( -name '*.[ch]' -o -name Kbuild \) \
		! -name '*.mod.c' | sort
}

# copy_package DEST: the package's files into DEST.
copy_package() {
	mkdir -p "$1"
	package_files | tar -c -T - | tar -x -C "$1"
}

need_dkms() {
	command -v dkms >/dev/null || fwq_die 2 "dkms is not installed (scripts/deps.sh)"
}

target() {
	kdir=$(fwq_kdir) || fwq_die 2 "no kernel headers (FLAVOUR='${FLAVOUR:-}')"
	krel=$(fwq_krel) || fwq_die 2 "cannot read the release of $kdir"
}

srctree=${FWQ_DKMS_SOURCE_TREE:-/usr/src}
treeargs=()
[ -n "${FWQ_DKMS_SOURCE_TREE:-}" ] && treeargs+=(--sourcetree "$FWQ_DKMS_SOURCE_TREE")
[ -n "${FWQ_DKMS_TREE:-}" ] && treeargs+=(--dkmstree "$FWQ_DKMS_TREE")
[ -n "${FWQ_DKMS_INSTALL_TREE:-}" ] && treeargs+=(--installtree "$FWQ_DKMS_INSTALL_TREE")

case "${1:-}" in
files)
	package_files
	;;
check)
	[ -n "${2:-}" ] || fwq_die 2 "usage: $0 check DIR"
	need_dkms
	target
	dir=$(mkdir -p "$2" && cd "$2" && pwd)
	rm -rf "$dir/source" "$dir/dkms" "$dir/modules"
	mkdir -p "$dir/source" "$dir/dkms" "$dir/modules"
	copy_package "$dir/source/fwq-$version"
	# A scratch signing key: dkms would otherwise create one in
	# /var/lib/dkms. Modules signed by an unknown key load like unsigned
	# ones (MODULE_SIG is not enforced on Debian's kernel).
	export mok_signing_key=$dir/mok.key mok_certificate=$dir/mok.pub
	args=(-m fwq -v "$version" --dkmstree "$dir/dkms"
	      --sourcetree "$dir/source")
	dkms add "${args[@]}"
	if ! dkms build "${args[@]}" -k "$krel" --kernelsourcedir "$kdir"; then
		tail -n 40 "$dir/dkms/fwq/$version/build/make.log" >&2 2>/dev/null
		fwq_die 1 "dkms build failed"
	fi
	built=$dir/dkms/fwq/$version/$krel/$(uname -m)/module
	for m in fwq fwq_bench; do
		ko=$(find "$built" -name "$m.ko*" | head -n 1)
		[ -n "$ko" ] || fwq_die 1 "dkms did not build $m.ko"
		case "$ko" in
		*.ko) cp "$ko" "$dir/modules/$m.ko" ;;
		*.ko.xz) xz -dc "$ko" > "$dir/modules/$m.ko" ;;
		*.ko.gz) gzip -dc "$ko" > "$dir/modules/$m.ko" ;;
		*) fwq_die 1 "unexpected module file $ko" ;;
		esac
		vm=$(modinfo -F vermagic "$dir/modules/$m.ko" | awk '{ print $1 }')
		[ "$vm" = "$krel" ] || fwq_die 1 "$m.ko vermagic '$vm' is not $krel"
		mv=$(modinfo -F version "$dir/modules/$m.ko")
		[ "$mv" = "$version" ] || fwq_die 1 "$m.ko version '$mv' is not $version"
	done
	if find "$built" -name 'fwq_test*' | grep -q .; then
		fwq_die 1 "the DKMS package built a test module"
	fi
	fwq_log "dkms built fwq $version for $krel: $(cd "$dir/modules" && echo ./*.ko)"
	;;
install)
	need_dkms
	target
	[ "$(id -u)" -eq 0 ] || fwq_die 2 "dkms-install needs root"
	dst=$srctree/fwq-$version
	rm -rf "$dst"
	copy_package "$dst"
	dkms status -m fwq -v "$version" "${treeargs[@]}" | grep -q . ||
		dkms add -m fwq -v "$version" "${treeargs[@]}"
	dkms build -m fwq -v "$version" -k "$krel" --kernelsourcedir "$kdir" \
		"${treeargs[@]}"
	dkms install -m fwq -v "$version" -k "$krel" "${treeargs[@]}"
	fwq_log "installed fwq $version for $krel with DKMS"
	;;
uninstall)
	need_dkms
	[ "$(id -u)" -eq 0 ] || fwq_die 2 "dkms-uninstall needs root"
	if dkms status -m fwq -v "$version" "${treeargs[@]}" | grep -q .; then
		dkms remove -m fwq -v "$version" --all "${treeargs[@]}"
	fi
	rm -rf "${srctree:?}/fwq-$version"
	fwq_log "removed fwq $version from DKMS"
	;;
*)
	fwq_die 2 "usage: $0 check DIR | install | uninstall | files"
	;;
esac
