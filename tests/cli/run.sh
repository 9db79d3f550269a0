#!/usr/bin/env bash
# Tests of the `icl` command's contract: exit statuses and messages on bad input.
#   tests/cli/run.sh build/bin/icl
set -u
icl=$(realpath "$1")
cd "$(dirname "$0")/../.."   # fixture paths below are relative to the repository
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
# lessons: the lint on fixture trees (tests/lessons/), the build into a temp dir
expect lessons-check-good 0 '^lessons: 2 files, 0 errors, 0 warnings$' -- lessons check --dir tests/lessons/good
expect lessons-check-missing-answer 1 '^tests/lessons/broken/en/02-bad\.md:9: check block has no answer=' -- lessons check --dir tests/lessons/broken
expect lessons-check-ko-en-mismatch 1 "^tests/lessons/broken/ko/01-basics\.md:9: check 'choice' grades" -- lessons check --dir tests/lessons/broken
expect lessons-check-summary 1 '^lessons: 4 files, 3 errors, 0 warnings$' -- lessons check --dir tests/lessons/broken
expect lessons-check-no-dir 1 'no such directory' -- lessons check --dir tests/lessons/none
expect lessons-bad-action 2 "unknown action 'frob'" -- lessons frob
expect lessons-build-needs-out 2 'lessons build needs --out' -- lessons build --dir tests/lessons/good
out=$(mktemp -d)
expect lessons-build-broken 1 'the lint failed; nothing written' -- lessons build --dir tests/lessons/broken --out "$out/broken"
[ ! -e "$out/broken" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL lessons-build-broken wrote $out/broken"; }
expect lessons-build-good 0 'wrote index.json and 2 lesson files' -- lessons build --dir tests/lessons/good --out "$out/site"
if grep -q '"id": "basics"' "$out/site/index.json" 2>/dev/null && grep -q '"lang": "ko"' "$out/site/ko/basics.json" 2>/dev/null; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL lessons-build-good: index.json or ko/basics.json missing or wrong"
fi
rm -rf "$out"
echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
