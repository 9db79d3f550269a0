#!/usr/bin/env bash
# Runs shard K of N of a doctest binary's test cases (contiguous, in doctest's file
# order), so ctest can run the shards of a slow suite side by side:
#   tests/unit/shard.sh K N <command...>
#   tests/unit/shard.sh 2 4 build/asan/bin/icl_tests
#   tests/unit/shard.sh 1 2 node tests/run-wasm-tests.mjs build/wasm/bin/icl_tests.js
set -euo pipefail
k=$1 n=$2; shift 2
out=$("$@" --count) || { echo "shard: '$* --count' failed: $out"; exit 1; }
count=$(sed -n 's/.*unskipped test cases passing the current filters: *\([0-9][0-9]*\).*/\1/p' <<<"$out")
[ -n "$count" ] || { echo "shard: no test count in the output of '$* --count': $out"; exit 1; }
first=$(( (k - 1) * count / n + 1 )); last=$(( k * count / n ))
echo "shard $k/$n: test cases $first..$last of $count"
[ "$first" -le "$last" ] || exit 0
exec "$@" --first="$first" --last="$last"
