#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh build [DIR] | check [DIR]: the fwq-dkms Debian package.
#   build  fwq-dkms_VERSION_all.deb in DIR (default build/deb): debian/
#          (dh with dh-dkms) run by dpkg-buildpackage -b in a copy of the
#          tree under DIR/src/, with debian/changelog written there from
#          VERSION (the one place the version lives) and the HEAD commit.
#   check  build, then: lintian, where any error or warning fails; the
#          files under usr/src/fwq-VERSION/ are exactly "scripts/dkms.sh
#          files"; the files under usr/share/fwq/ are exactly the
#          runner's (bench/: RUNNER below) and the tools' (TOOLS below),
#          each the tree's own, so no harness script ships; the tools'
#          commands in usr/sbin are the tree's, each with its man page;
#          the maintainer scripts register with
#          and remove from DKMS; and scripts/fwq-bench-test.sh passes on
#          the packaged runner. Each
#          is a test line, also kept in DIR/tests.txt for make check.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP"

version=$(cat VERSION)
name=fwq-dkms_${version}_all.deb
# the bench runner the package ships in /usr/share/fwq/bench/ (debian/rules)
runner="fwq-bench.sh bench.sh bench-driver.sh runner-lib.sh bench_report.py"
# the observability tools: /usr/share/fwq/PATH from tools/FILE, as
# PATH:FILE (debian/rules), and the commands in /usr/sbin, each with its
# man page (section 8)
tools="bpftrace/fwq-wqlat.bt:fwq-wqlat.bt drgn/fwq.py:drgn/fwq.py"
sbin="fwq-monitor fwq-drgn fwq-wqlat"

# stage SRC: the tree's files (tracked and untracked, not ignored, no build
# outputs) in SRC, plus debian/changelog
stage() {
	local src=$1 maint rev date

	rm -rf "$src"
	mkdir -p "$src"
	if [ -d .git ] && command -v git > /dev/null; then
		git ls-files -co --exclude-standard -z
	else
		find . -path ./results -prune -o -path ./build -prune -o \
			-path ./.git -prune -o -type f -print0
	fi | grep -zvE '\.(o|ko|mod|mod\.c|cmd|symvers|order)$' |
		tar -c --null -T - | tar -x -C "$src"
	maint=$(sed -n 's/^Maintainer: //p' debian/control)
	rev=$(git rev-parse --short HEAD 2>/dev/null) || rev=
	date=$(git log -1 --format=%aD 2>/dev/null) || date=$(date -R)
	cat > "$src/debian/changelog" <<-CHANGELOG
	fwq ($version) UNRELEASED; urgency=medium

	  * fwq $version${rev:+, from git commit $rev}.

	 -- $maint  $date
	CHANGELOG
}

build() {
	local dir=$1 src=$1/src/fwq-$version log=$1/build.log

	command -v dpkg-buildpackage > /dev/null ||
		fwq_die 2 "dpkg-buildpackage is missing (scripts/deps.sh)"
	stage "$src"
	rm -f "$dir/$name"
	if ! (cd "$src" && dpkg-buildpackage -b -us -uc) > "$log" 2>&1; then
		tail -n 30 "$log" >&2
		fwq_die 1 "dpkg-buildpackage failed (see $log)"
	fi
	mv "$dir/src/$name" "$dir/$name"
	fwq_log "built $dir/$name"
}

# verdict NAME ok|bad: the test line "ok deb.NAME" or "not ok deb.NAME",
# also kept in DIR/tests.txt (make check lists it); fails for bad
verdict() {
	local line="ok $1"

	[ "$2" = ok ] || line="not $line"
	echo "$line" >> "$tests"
	echo "${line% *} deb.$1"
	[ "$2" = ok ]
}

# contents DEB: the regular files of DEB, without the leading "./"
contents() {
	dpkg-deb -c "$1" | awk '$1 ~ /^-/ { sub(/^\.\//, "", $6); print $6 }'
}

check() {
	local dir=$1 deb=$1/$name x=$1/x f rc=0

	tests=$dir/tests.txt
	: > "$tests"

	command -v lintian > /dev/null || fwq_die 2 "lintian is missing (scripts/deps.sh)"
	build "$dir"
	echo "# lintian $deb"
	f=ok
	lintian --fail-on error,warning --display-info "$deb" || f=bad
	verdict lintian $f || rc=1

	contents "$deb" | sed -n "s|^usr/src/fwq-$version/||p" | sort > "$dir/src.list"
	scripts/dkms.sh files | sort > "$dir/package_files.list"
	f=ok
	diff -u "$dir/package_files.list" "$dir/src.list" | sed 's/^/# /'
	cmp -s "$dir/package_files.list" "$dir/src.list" || f=bad
	verdict source_is_package_files $f || rc=1

	rm -rf "$x"
	dpkg-deb -x "$deb" "$x"
	f=ok
	contents "$deb" | sed -n 's|^usr/share/fwq/||p' | sort > "$dir/share.list"
	# shellcheck disable=SC2086 # one file per word
	{ printf 'bench/%s\n' $runner; printf '%s\n' $tools | cut -d: -f1; } |
		sort > "$dir/runner.list"
	diff -u "$dir/runner.list" "$dir/share.list" | sed 's/^/# /'
	cmp -s "$dir/runner.list" "$dir/share.list" || f=bad
	for s in $runner; do
		cmp "bench/$s" "$x/usr/share/fwq/bench/$s" || f=bad
	done
	[ "$(readlink "$x/usr/bin/fwq-bench")" = ../share/fwq/bench/fwq-bench.sh ] ||
		{ echo "# usr/bin/fwq-bench: $(readlink "$x/usr/bin/fwq-bench")"; f=bad; }
	verdict runner_is_the_tree_s $f || rc=1

	f=ok
	for t in $tools; do
		cmp "tools/${t#*:}" "$x/usr/share/fwq/${t%%:*}" || f=bad
	done
	cmp tools/fwq-monitor "$x/usr/sbin/fwq-monitor" || f=bad
	cmp tools/fwq-drgn "$x/usr/sbin/fwq-drgn" || f=bad
	[ "$(readlink "$x/usr/sbin/fwq-wqlat")" = ../share/fwq/bpftrace/fwq-wqlat.bt ] ||
		{ echo "# usr/sbin/fwq-wqlat: $(readlink "$x/usr/sbin/fwq-wqlat")"; f=bad; }
	for t in $sbin; do
		[ -x "$x/usr/sbin/$t" ] || { echo "# usr/sbin/$t is not executable"; f=bad; }
		[ -s "$x/usr/share/man/man8/$t.8.gz" ] ||
			{ echo "# no man page for $t"; f=bad; }
	done
	# fwq-drgn finds its helpers where the package puts them
	grep -q '"/usr/share/fwq/drgn"' "$x/usr/sbin/fwq-drgn" || f=bad
	verdict tools_are_the_tree_s $f || rc=1

	f=ok
	dpkg-deb -f "$deb" Depends | grep -q 'dkms' || f=bad
	dpkg-deb -f "$deb" Depends | grep -q 'python3' || f=bad
	dpkg-deb -I "$deb" postinst | grep -q "common.postinst" || f=bad
	dpkg-deb -I "$deb" postinst | grep -q "DKMS_VERSION=$version\$" || f=bad
	# shellcheck disable=SC2016 # the prerm's own variables
	dpkg-deb -I "$deb" prerm | grep -qF 'dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all' || f=bad
	verdict dkms_maintainer_scripts $f || rc=1

	f=ok
	scripts/fwq-bench-test.sh "$x/usr/share/fwq/bench" > "$dir/bench-test.txt" 2>&1 || f=bad
	sed 's/^/# /' "$dir/bench-test.txt"
	verdict fwq_bench_errors $f || rc=1
	return $rc
}

dir=${2:-$FWQ_TOP/build/deb}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
case "${1:-}" in
build) build "$dir" ;;
check) check "$dir" ;;
*) fwq_die 2 "usage: $0 build [DIR] | check [DIR]" ;;
esac
