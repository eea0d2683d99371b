#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fwq-bench-test.sh [SCRIPTS]: fwq-bench's clear errors, one test each,
# with the exit code and the hint docs/hardware.md's exit-code table
# gives (section "Exit codes and Secure Boot").
# SCRIPTS is the directory holding fwq-bench.sh (default this tree's
# bench/; scripts/deb.sh check passes the packaged /usr/share/fwq/bench).
#
# Nothing touches the host kernel: every case runs with a PATH whose
# modprobe, insmod, lsmod, modinfo, dmesg, mount and uname are fakes
# (modprobe and insmod only print the error a case wants and fail), a
# fake debugfs (FWQ_DEBUGFS: a plain directory, or a tmpfs mounted in a
# private mount namespace) and a fake lockdown file (FWQ_LOCKDOWN). The
# non-root case runs as nobody (setpriv). Prints "ok N NAME" or
# "not ok N NAME # why" and ends with "N passed, N failed".
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

src=${1:-$FWQ_TOP/bench}
[ -x "$src/fwq-bench.sh" ] || fwq_die 2 "no fwq-bench.sh in $src"
[ "$(id -u)" = 0 ] || fwq_die 2 "fwq-bench-test.sh needs root (setpriv, unshare)"

tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# a copy that user nobody can read, in the layout bench.sh expects (TOP/bench/),
# with no built modules next to it and no harness (TOP/scripts/): the
# runner must do with its own files, as in the package
mkdir -p "$tmp/top/bench" "$tmp/bin" "$tmp/nodebugfs" "$tmp/debugfs"
cp "$src"/fwq-bench.sh "$src"/bench.sh "$src"/runner-lib.sh \
	"$src"/bench-driver.sh "$src"/bench_report.py "$tmp/top/bench/"
chmod -R a+rX "$tmp/top"

krel=0.0.0-fwq-bench-test
fake() { # fake NAME BODY: a fake command in the test PATH
	printf '#!/bin/sh\n%s\n' "$2" > "$tmp/bin/$1"
	chmod 755 "$tmp/bin/$1"
}
# shellcheck disable=SC2016 # the fakes expand their variables when run
{
fake uname "[ \"\${1:-}\" = -r ] && { echo $krel; exit 0; }; exec /bin/uname \"\$@\""
fake modinfo 'exit "${FAKE_MODINFO_RC:-1}"'
fake modprobe 'echo "$FAKE_LOAD_ERR" >&2; exit 1'
fake insmod 'echo "$FAKE_LOAD_ERR" >&2; exit 1'
fake lsmod 'echo "Module                  Size  Used by"'
fake dmesg 'printf "%s\n" "${FAKE_DMESG:-}"'
fake mount 'echo "mount: refused by fwq-bench-test" >&2; exit 32'
}
printf 'none [integrity] confidentiality\n' > "$tmp/lockdown-on"
printf '[none] integrity confidentiality\n' > "$tmp/lockdown-off"

n=0

# expect NAME RC TEXT MODE [VAR=VALUE...]: run fwq-bench --quick under the
# fakes (MODE: nobody, plain or mounted) and check its exit code and that
# its message holds TEXT
expect() {
	local name=$1 want=$2 text=$3 mode=$4 rc=0 out=$tmp/$1.out
	local -a env=(env "PATH=$tmp/bin:$PATH" "FWQ_LOCKDOWN=$tmp/lockdown-off")

	shift 4
	case $mode in
	plain) env+=("FWQ_DEBUGFS=$tmp/nodebugfs") ;;
	mounted) env+=("FWQ_DEBUGFS=$tmp/debugfs") ;;
	esac
	env+=("$@" "$tmp/top/bench/fwq-bench.sh" --quick --out "$tmp/out-$name")
	case $mode in
	nobody)
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"${env[@]}" > "$out" 2>&1 || rc=$?
		;;
	plain)
		"${env[@]}" > "$out" 2>&1 || rc=$?
		;;
	mounted)
		# shellcheck disable=SC2016 # expanded by the inner sh
		unshare -m --propagation private sh -c \
			'mount -t tmpfs fwq-bench-test "$0" && exec "$@"' \
			"$tmp/debugfs" "${env[@]}" > "$out" 2>&1 || rc=$?
		;;
	esac
	n=$((n + 1))
	if [ "$rc" -eq "$want" ] && grep -qF -- "$text" "$out"; then
		fwq_tap_result 0 "$n $name"
	else
		sed 's/^/# /' "$out"
		fwq_tap_result 1 "$n $name" "exit $rc (want $want and \"$text\")" || :
	fi
}

expect not_root 3 "run it with sudo" nobody
expect debugfs_not_mounted 4 "mount -t debugfs none $tmp/nodebugfs" plain
expect lockdown 8 "kernel lockdown is 'integrity'" mounted \
	FWQ_LOCKDOWN="$tmp/lockdown-on"
expect headers_missing 5 "apt-get install linux-headers-$krel" mounted
expect secure_boot_key_rejected 6 "mokutil --import /var/lib/dkms/mok.pub" \
	mounted FAKE_MODINFO_RC=0 \
	FAKE_LOAD_ERR="modprobe: ERROR: could not insert 'fwq': Key was rejected by service"
expect secure_boot_dmesg 6 "mokutil --import /var/lib/dkms/mok.pub" \
	mounted FAKE_MODINFO_RC=0 \
	FAKE_LOAD_ERR="modprobe: ERROR: could not insert 'fwq': Operation not permitted" \
	FAKE_DMESG="Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7"
expect load_failed 7 "loading fwq failed: modprobe: ERROR: could not insert 'fwq': Invalid argument" \
	mounted FAKE_MODINFO_RC=0 \
	FAKE_LOAD_ERR="modprobe: ERROR: could not insert 'fwq': Invalid argument"

fwq_tap_summary
