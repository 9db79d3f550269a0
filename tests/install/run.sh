#!/usr/bin/env bash
# The install works outside the checkout: `cmake --install` of a native build tree into
# a temporary prefix, then, from another folder: `icl run` of an analytic demo and of a
# demo that loads a shipped checkpoint, `icl lessons check`, and `icl-lab --frames 2`
# under Xvfb (when the app is built). That the programs read the prefix's data and not
# the checkout's is shown by taking a checkpoint and a lesson out of the prefix: the
# same commands must then fail, naming the prefix. ICL_LESSONS_DIR must win over both.
#   tests/install/run.sh build/native
# Ends with "install: N passed, M failed".
set -u
build=$(realpath "$1")
cd "$(dirname "$0")/../.."
repo=$(pwd)
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
mkdir -p "$work/elsewhere"

if ! cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log"; echo "install: 0 passed, 1 failed"; exit 1
fi
[ -x "$prefix/bin/icl" ] && [ -d "$prefix/share/icl-lab/lessons/checkpoints" ] && ok ||
  bad "layout: no bin/icl or share/icl-lab/lessons/checkpoints under the prefix"
icl=$prefix/bin/icl
cd "$work/elsewhere"
# env -u: the tests' own environment must not point the programs at the checkout.
run() { env -u ICL_LESSONS_DIR "$@" >"$work/out" 2>&1; }

run "$icl" run dual_form --json && ok || bad "icl run dual_form from the prefix: $(tail -3 "$work/out")"
run "$icl" run demo_labels --json && ok || bad "icl run demo_labels (a shipped checkpoint) from the prefix: $(tail -3 "$work/out")"
run "$icl" lessons check && grep -Eq "lessons: [1-9][0-9]* files, 0 errors" "$work/out" && ok ||
  bad "icl lessons check from the prefix: $(tail -3 "$work/out")"

app=
if [ -x "$prefix/bin/icl-lab" ] && command -v Xvfb >/dev/null; then
  app=$prefix/bin/icl-lab
  . "$repo/tests/app/xvfb.sh"
  start_xvfb "$work"
  export XDG_STATE_HOME=$work/state
  run "$app" --lesson dual-form --lang en --frames 2 && ok || bad "icl-lab --frames 2 from the prefix: $(tail -3 "$work/out")"
fi

# Take the data out of the prefix: the programs must now fail and name the prefix
# (they did not fall back to the checkout's lessons).
ckpt=$(grep -o '"checkpoints/[^"]*\.icl"' "$OLDPWD/core/demos/demo_labels.cpp" | head -1 | tr -d '"')
mv "$prefix/share/icl-lab/lessons/$ckpt" "$work/"
! run "$icl" run demo_labels --json && grep -q "$prefix/share/icl-lab/lessons" "$work/out" && ok ||
  bad "icl run demo_labels without the prefix's $ckpt should fail naming the prefix: $(tail -3 "$work/out")"
# ICL_LESSONS_DIR wins over the prefix.
mkdir -p "$work/other/checkpoints"
cp "$work/$(basename "$ckpt")" "$work/other/checkpoints/"
cp "$prefix/share/icl-lab/lessons/checkpoints/"*.json "$work/other/checkpoints/" 2>/dev/null
mkdir -p "$work/other/en" && cp -r "$prefix/share/icl-lab/lessons/en/catalogue" "$work/other/en/"
ICL_LESSONS_DIR=$work/other "$icl" run demo_labels --json >"$work/out" 2>&1 && ok ||
  bad "ICL_LESSONS_DIR=<a folder with the checkpoint> icl run demo_labels: $(tail -3 "$work/out")"
if [ -n "$app" ]; then
  rm "$prefix"/share/icl-lab/lessons/*/02-dual-form.md
  ! run "$app" --lesson dual-form --lang en --frames 2 && grep -q "no lesson 'dual-form'" "$work/out" && ok ||
    bad "icl-lab without the prefix's dual-form lesson should say there is none: $(tail -3 "$work/out")"
fi
echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]
