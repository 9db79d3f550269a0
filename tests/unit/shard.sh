#!/usr/bin/env bash
# Runs shard K of N of a doctest binary's test cases, so ctest can run the shards of a
# slow suite side by side: every N-th test case in doctest's file order, starting at the
# K-th (dealt like cards, so slow test cases that sit together in one file land in
# different shards):
#   tests/unit/shard.sh K N <command...>
#   tests/unit/shard.sh 2 4 build/asan/bin/icl_tests
#   tests/unit/shard.sh 1 2 node tests/run-wasm-tests.mjs build/wasm/bin/icl_tests.js
set -euo pipefail
k=$1 n=$2; shift 2
out=$("$@" --list-test-cases --no-colors) || { echo "shard: '$* --list-test-cases --no-colors' failed: $out"; exit 1; }
# The names sit between doctest's two rules of '=' signs.
mapfile -t names < <(awk '/^=+$/ { rule++; next } rule == 1' <<<"$out")
[ ${#names[@]} -gt 0 ] || { echo "shard: no test case names in the output of '$* --list-test-cases': $out"; exit 1; }
filter=
for ((i = k - 1; i < ${#names[@]}; i += n)); do
  # doctest's filter: comma-separated, with ',' and '\' escaped by a backslash
  filter+="${filter:+,}$(sed 's/[\\,]/\\&/g' <<<"${names[i]}")"
done
echo "shard $k/$n: $(( (${#names[@]} - k) / n + 1 )) of ${#names[@]} test cases"
[ -n "$filter" ] || exit 0
exec "$@" --test-case="$filter"
