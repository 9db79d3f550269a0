#!/usr/bin/env bash
# Tests of the `icl` command's contract: exit statuses and messages on bad input.
#   tests/cli/run.sh build/bin/icl
set -u
icl=$1
pass=0; fail=0
expect() {  # expect <name> <status> <regex on stdout+stderr> -- <args...>
  local name=$1 want=$2 pattern=$3; shift 4
  local out status
  out=$("$icl" "$@" 2>&1); status=$?
  if [ "$status" = "$want" ] && grep -qE -- "$pattern" <<<"$out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL $name: status $status (want $want), output: $out"
  fi
}
expect version 0 '^icl [0-9]+\.[0-9]+\.[0-9]+$' -- --version
expect help 0 'usage: icl' -- --help
expect no-args 2 'usage: icl' --
expect unknown-command 2 "unknown command 'frobnicate'" -- frobnicate
expect unknown-demo 2 "unknown demo 'no_such_demo'" -- run no_such_demo
expect bad-lang 2 "unknown language 'fr'" -- demos --lang fr
expect bad-seed 2 "--seed needs a non-negative integer" -- run x --seed -3
# icl train and the checkpoints the demos read
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect train-no-recipe 2 "cannot open recipe 'no-such.json'" -- train no-such.json
printf '{"name": "x", "train": {"steps": -3}}' > "$tmp/bad.json"
expect train-bad-field 2 "bad.json: train.steps" -- train "$tmp/bad.json"
mkdir -p "$tmp/lessons/checkpoints"
cp "$root/lessons/checkpoints/tasks.json" "$tmp/lessons/checkpoints/"
ICL_LESSONS_DIR="$tmp/lessons" expect missing-checkpoint 2 "checkpoints/tasks.icl.*icl train" -- run shots_curve
printf 'not a checkpoint' > "$tmp/lessons/checkpoints/tasks.icl"
ICL_LESSONS_DIR="$tmp/lessons" expect corrupt-checkpoint 2 "checkpoints/tasks.icl: .*icl train lessons/checkpoints/tasks.json" -- run demo_labels
expect attention-counts 0 "pairs_dense = 2080" -- run attention_patterns --set T=64 --set train=false
echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
