# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The bench runner's helpers (bench.sh, and through it fwq-bench.sh): what
# it needs on real hardware, where the fwq-dkms package ships it beside
# them (/usr/share/fwq/bench/) with nothing of the harness. Source it; do
# not run it. The harness's scripts/lib.sh sources it too, so that these
# live once.
# shellcheck disable=SC2034 # FWQ_TOP is for the sourcing script

# the top of the tree, or /usr/share/fwq in the package
FWQ_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

fwq_log() {
	printf 'fwq: %s\n' "$*" >&2
}

# fwq_die RC MSG: print MSG and exit with RC (2 = setup error).
fwq_die() {
	local rc=$1

	shift
	printf 'fwq: error: %s\n' "$*" >&2
	exit "$rc"
}

# fwq_registry wake|kicked_list|flush|pairs|scopes: the design names of an
# axis, in registry order, one per line; "pairs": "NAME KICKED" per wake
# design (the kicked_list design it was posted with); "scopes": the
# affinity scope names, in enum order ("default" first). The C
# preprocessor expands the registry's X-macro lists
# (include/fwq/variants.h), so a script reads them as fwq.ko's C does,
# with nothing of their layout copied. A source tree only: the package's
# runner reads the loaded fwq.ko's debugfs "variants" instead.
fwq_registry() {
	local list x='#define FWQ_REG_X(id, name, ...) name @'

	case $1 in
	wake) list=FWQ_WAKE_VARIANTS ;;
	kicked_list) list=FWQ_KICKED_VARIANTS ;;
	flush) list=FWQ_FLUSH_VARIANTS ;;
	pairs)
		list=FWQ_WAKE_VARIANTS
		x='#define FWQ_REG_X(id, name, ops, kicked) name kicked @'
		;;
	scopes) list=FWQ_AFFN_SCOPE_NAMES ;;
	*) return 2 ;;
	esac
	printf '#include "fwq/variants.h"\n%s\n%s(FWQ_REG_X)\n' "$x" "$list" |
		"${CC:-gcc}" -E -P -I "$FWQ_TOP/include" -x c - |
		tr '@' '\n' | awk 'NF { $1 = $1; print }'
}
