#!/usr/bin/env bash
# Runs shard K of N of a doctest binary's test cases, so ctest can run the shards of a
# slow suite side by side: every N-th test case in doctest's file order, starting at the
# K-th (dealt like cards, so slow test cases that sit together in one file land in
# different shards). The cases of doctest's test suite "slow" (tagged where they are
# defined: tens of seconds under ASan) are dealt first, so each shard gets at most its
# share of them:
#   tests/unit/shard.sh K N <command...>
#   tests/unit/shard.sh 2 4 build/asan/bin/icl_tests
#   tests/unit/shard.sh 1 2 node tests/run-wasm-tests.mjs build/wasm/bin/icl_tests.js
set -euo pipefail
k=$1 n=$2; shift 2
list() {  # the test case names of doctest's --list-test-cases, given filters
  local out
  out=$("$@" --list-test-cases --no-colors) || { echo "shard: '$* --list-test-cases --no-colors' failed: $out" >&2; return 1; }
  # The names sit between doctest's two rules of '=' signs.
  awk '/^=+$/ { rule++; next } rule == 1' <<<"$out"
}
slow=$(list "$@" --test-suite=slow) && rest=$(list "$@" --test-suite-exclude=slow) || exit 1
mapfile -t names < <(printf '%s\n%s\n' "$slow" "$rest" | grep -v '^$')
[ ${#names[@]} -gt 0 ] || { echo "shard: no test case names in the output of '$* --list-test-cases'"; exit 1; }
filter=
for ((i = k - 1; i < ${#names[@]}; i += n)); do
  # doctest's filter: comma-separated, with ',' and '\' escaped by a backslash
  filter+="${filter:+,}$(sed 's/[\\,]/\\&/g' <<<"${names[i]}")"
done
echo "shard $k/$n: $(( (${#names[@]} - k) / n + 1 )) of ${#names[@]} test cases"
[ -n "$filter" ] || exit 0
exec "$@" --test-case="$filter"
