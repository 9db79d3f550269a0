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

# Each demo of the "ICL as gradient descent" lessons runs to a JSON result and refuses
# an out-of-range or malformed parameter with exit 2, naming it and its range.
expect_json() {  # expect_json <id> [args...]: exit 0 and one JSON object for the demo
  local id=$1; shift
  local out status
  out=$("$icl" run "$id" --json "$@" 2>&1); status=$?
  if [ "$status" = 0 ] && node -e 'const r = JSON.parse(process.argv[1]); if (r.demo !== process.argv[2] || !r.done || r.error !== "" || r.panels[0].kind !== "scalars") process.exit(1)' "$out" "$id"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL json $id: status $status, output: ${out:0:300}"
  fi
}
expect_json dual_form
expect_json dual_form --set optimizer=adam --lang ko
expect dual_form-range 2 "'d_in' = 99 is out of range: expected an integer in \[1, 32\]" -- run dual_form --set d_in=99
expect dual_form-malformed 2 "'lr' = 'fast' is not a number" -- run dual_form --set lr=fast
expect dual_form-choice 2 "'optimizer' is 'rmsprop': expected one of sgd adam" -- run dual_form --set optimizer=rmsprop
expect dual_form-nan 2 "'noise' is not finite" -- run dual_form --set noise=nan
expect dual_form-unknown 2 "unknown parameter 'depth'" -- run dual_form --set depth=3
expect_json lsa_gd_construction
expect lsa_gd_construction-range 2 "'n_context' = 41 is out of range: expected an integer in \\[1, 40\\]" -- run lsa_gd_construction --set n_context=41
expect lsa_gd_construction-malformed 2 "'eta' = '6x' is not a number" -- run lsa_gd_construction --set eta=6x
echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
