#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_completion.sh [ROCETUNE] - the bash completion of rocetune
# (completion/rocetune) offers only what the CLI's parser accepts.
#
# The completion is walked: every word it offers after every word
# sequence, up to WALK_DEPTH (6) words, is run through ROCETUNE (default
# ../build/userspace/rocetune); where it offers nothing but a value is due
# (the parser says "needs a value"), the walk goes on with "1".  Of a list
# of values (devices, counters, formats) each is run, and the walk goes on
# after the first.  rocetune.ko must not be loaded: then a command line
# the parser takes fails with exit 1 (module not loaded) and changes
# nothing, one it refuses with exit 2; exit 2 is accepted only for a
# command that is not complete yet ("needs a value", "nothing to set"),
# and for "profile diff dev NETDEV" of a NIC that is not there (diff's 2
# is its trouble status, as diff(1)'s).
# "profile apply" runs only with dry-run, "profile check" not with files.
# A host test ("make test"): it needs neither root nor the module, and
# the guest of selftests/vm is too slow for its ~250 runs.  TAP output.

here=$(cd "$(dirname "$0")" && pwd)
RT_CLI=${1:-$here/../../build/userspace/rocetune}
WALK_DEPTH=${WALK_DEPTH:-6}
ntest=0
nfail=0

ok() {
	ntest=$((ntest + 1))
	if [ "$1" = 0 ]; then
		echo "ok $ntest - $2"
	else
		echo "not ok $ntest - $2 # $3"
		nfail=$((nfail + 1))
	fi
}

# comp_next WORDS...: the completion's words after WORDS, in "next".
comp_next() {
	COMP_WORDS=(rocetune "$@" "")
	COMP_CWORD=$(($# + 1))
	COMPREPLY=()
	_rocetune
	next=("${COMPREPLY[@]}")
}

# comp_accepted WORDS...: rocetune's parser takes WORDS (perhaps wanting
# more: then comp_incomplete=1).
comp_accepted() {
	local err rc

	comp_incomplete=0
	case " $* " in
	*" apply "*) [[ " $* " == *" dry-run "* ]] || return 0 ;;
	esac
	err=$("$RT_CLI" "$@" 2>&1 > /dev/null < /dev/null)
	rc=$?
	comp_runs=$((comp_runs + 1))
	[ "$rc" != 2 ] && return 0
	# profile diff exits 2 on trouble too, like diff(1): a NIC that the
	# parser took but that is not there is trouble, not a refusal.
	if [[ " $* " == *" profile diff dev "* ]] &&
		grep -E 'carries no RoCE port|no such network interface' <<< "$err" > /dev/null; then
		return 0
	fi
	grep -E 'needs|nothing to set' <<< "$err" > /dev/null || return 1
	comp_incomplete=1
}

# comp_walk DEPTH WORDS...
comp_walk() {
	local depth=$1 w
	local -a next

	shift
	((depth > 0)) || return 0
	comp_next "$@"
	for w in "${next[@]}"; do
		# Any file may follow "profile check": its content decides.
		[[ "$* " != "profile check "* ]] || break
		if ! comp_accepted "$@" "$w"; then
			comp_bad+=("$* $w")
			continue
		fi
		case ${*: -1} in
		dev | by | -o | accounting) [ "$w" = "${next[0]}" ] || continue ;;
		esac
		comp_walk $((depth - 1)) "$@" "$w"
	done
	if [ ${#next[@]} = 0 ] && [ $# -gt 0 ] && comp_accepted "$@" &&
	   [ "$comp_incomplete" = 1 ]; then
		comp_walk $((depth - 1)) "$@" 1
	fi
}

echo "TAP version 13"
echo "1..2"
if [ ! -x "$RT_CLI" ]; then
	echo "Bail out! $RT_CLI is not built"
	exit 1
fi
# With the module loaded, the command lines would be carried out.
if [ -d /sys/module/rocetune ]; then
	echo "Bail out! rocetune.ko is loaded: this test must not reach it"
	exit 1
fi
# shellcheck source=../completion/rocetune
if ! source "$here/../completion/rocetune"; then
	echo "Bail out! cannot source the completion"
	exit 1
fi

# "profile journal discard" runs: on an empty run directory of its own.
ROCETUNE_RUN_DIR=$(mktemp -d) || exit 1
export ROCETUNE_RUN_DIR
trap 'rm -rf "$ROCETUNE_RUN_DIR"' EXIT
comp_runs=0
comp_bad=()
comp_walk "$WALK_DEPTH"
echo "# $comp_runs command lines offered by the completion, run in ${SECONDS}s"
if [ "$comp_runs" -lt 100 ]; then
	ok 1 "bash completion offers only what rocetune accepts" \
		"only $comp_runs command lines: the walk is broken"
elif [ ${#comp_bad[@]} != 0 ]; then
	ok 1 "bash completion offers only what rocetune accepts" \
		"refused by rocetune: ${comp_bad[*]}"
else
	ok 0 "bash completion offers only what rocetune accepts ($WALK_DEPTH words deep)"
fi

# The walk can fail: a word the parser does not know is found.
comp_runs=0
comp_bad=()
_rocetune_cmds() { echo 'show bogus help'; }
comp_walk 2 config
[ "${comp_bad[*]}" = "config bogus" ]
ok $? "the walk finds a word the parser refuses" "found: \"${comp_bad[*]}\""
[ "$nfail" = 0 ]
