#!/usr/bin/env bash
# Smoke tests of the desktop app under a virtual X display (Xvfb, Mesa's software
# renderer): every lesson opens in both languages and draws a screenshot that is not
# blank and differs from every other one; lesson 4's matrices are drawn as grids;
# scripted check answers are graded (the expected answers come from the lesson sources
# and from `icl run`, not from the app); a corrupt progress file is set aside; an
# unfinished training run is kept when the app closes, offered and resumed from its step,
# and a corrupt kept run is set aside as .bad; a stored
# answer that does not fit its check is dropped; two instances answering at once keep
# every answer; a missed check comes back for review; a training demo runs while frames
# keep coming; a lesson full of raw HTML opens and its diverging demo stops with a message.
#   tests/app/run.sh build/bin        (needs icl-lab, icl_app_tests and icl there)
# Ends with "app: N passed, M failed".
set -u
bin=$(realpath "$1")
app=$bin/icl-lab
icl=$bin/icl
cd "$(dirname "$0")/../.."
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

work=$(mktemp -d)
export XDG_STATE_HOME=$work/state
. tests/app/xvfb.sh
start_xvfb "$work"

run_app() {  # run_app <name> <args...>: output in $work/<name>.out, status in $status
  local name=$1; shift
  "$app" "$@" >"$work/$name.out" 2>"$work/$name.err"; status=$?
}

# ---- the parts that need no window: the progress file --------------------------------
"$bin/icl_app_tests" >"$work/unit.out" 2>&1 && ok || { bad "icl_app_tests:"; cat "$work/unit.out"; }

# ---- every lesson, both languages: a screenshot, not blank, unlike all the others ----
declare -A seen
for lang in en ko; do
  for src in lessons/$lang/*.md; do
    id=$(sed -n 's/^id: *//p' "$src" | head -1)
    shot=$work/$lang-$id.png
    run_app "$lang-$id" --lesson "$id" --lang "$lang" --frames 4 --screenshot "$shot"
    if [ "$status" != 0 ] || [ ! -s "$shot" ]; then bad "$lang/$id: status $status, $(cat "$work/$lang-$id.err")"; continue; fi
    if grep -q "font .* not found" "$work/$lang-$id.err"; then bad "$lang/$id: $(cat "$work/$lang-$id.err")"; continue; fi
    # A UI with text has many colours (antialiased glyphs); a blank frame has one or two.
    colours=$(convert "$shot" -format %k info:)
    if [ "$colours" -lt 64 ]; then bad "$lang/$id: screenshot has only $colours colours"; continue; fi
    sum=$(convert "$shot" rgba:- | md5sum | cut -d' ' -f1)
    if [ -n "${seen[$sum]:-}" ]; then bad "$lang/$id: same pixels as ${seen[$sum]}"; continue; fi
    seen[$sum]=$lang/$id
    ok
  done
done

# ---- lesson 4's matrices are laid out as grids ------------------------------------------
# The app prints every matrix its last frame drew: environment, rows x columns, cells and
# box. Lesson 4 shows W_K = W_Q twice (the construction, a check's prompt) and W_V once;
# the cells below are read off the source by hand, and a grid of two rows must be at
# least two text lines tall (the raw TeX, or the matrix on one line, would not be).
for lang in en ko; do
  python3 - "$work/$lang-learned-update-rules.out" <<'EOF' && ok || bad "$lang/learned-update-rules: matrices not drawn as grids: $(grep '^math' "$work/$lang-learned-update-rules.out")"
import re, sys
want = [("pmatrix", "2x2", "Iₓ, 0; 0, 0"), ("pmatrix", "2x2", "0, 0; W₀, -I_y"), ("pmatrix", "2x2", "Iₓ, 0; 0, 0")]
got = []
for line in open(sys.argv[1], encoding="utf-8"):
    if not line.startswith("math: "):
        continue
    m = re.fullmatch(r"math: (\S+) (\d+x\d+) \[(.*)\] (\d+)x(\d+) px, text line (\d+) px", line.strip())
    assert m, line
    assert int(m[5]) >= 2 * int(m[6]), "shorter than two lines: " + line
    got.append((m[1], m[2], m[3]))
assert got == want, got
EOF
done

# ---- scripted answers, graded by core ------------------------------------------------
# A choice check: the answer from the source's info string is correct, another is not,
# and the progress file records the last verdict.
src=lessons/en/02-dual-form.md
info=$(grep -m1 '^```check id=[^ ]* type=choice answer=' "$src")
check=$(sed 's/.*id=\([^ ]*\).*/\1/' <<<"$info")
right=$(sed 's/.*answer=\([a-z]\).*/\1/' <<<"$info")
wrong=$([ "$right" = a ] && echo b || echo a)
run_app answer-right --lesson dual-form --lang en --frames 3 --answer "$check=\"$right\""
grep -q "^check $check: correct" "$work/answer-right.out" && ok || bad "choice $check=$right: $(cat "$work/answer-right.out")"
run_app answer-wrong --lesson dual-form --lang ko --frames 3 --answer "$check=$wrong"
grep -q "^check $check: incorrect (correct answer: $right)" "$work/answer-wrong.out" && ok || bad "choice $check=$wrong: $(cat "$work/answer-wrong.out")"
python3 - "$XDG_STATE_HOME/icl-lab/progress.json" "$check" "$wrong" <<'EOF' && ok || bad "progress file after answering $check"
import json, sys
p = json.load(open(sys.argv[1]))
r = p["checks"]["dual-form"][sys.argv[2]]
assert p["version"] == 2 and p["lang"] == "ko" and p["last_lesson"] == "dual-form", p
assert r["correct"] is False and r["answer"] == sys.argv[3] and r["attempts"] == 2 and r["box"] == 0, r
assert r["due"] - r["at"] == 10 * 60 * 1000, r
EOF

# A malformed answer is an error message, not a crash.
run_app answer-bad --lesson dual-form --lang en --frames 2 --answer "$check=[1,2]"
[ "$status" = 0 ] && grep -q "^check $check: error: " "$work/answer-bad.out" && ok || bad "malformed answer: status $status, $(cat "$work/answer-bad.out")"

# A 4,900-character text answer is refused before it is graded, with a message, and not
# stored (the record bound is 4,096 bytes of JSON; it used to be stored, then refused on
# the next start and the file copied aside).
long=$(head -c 4900 /dev/zero | tr '\0' x)
text_check=$(grep -m1 -o '^```check id=[^ ]* type=text' lessons/en/01-gpt3-in-context.md | sed 's/.*id=\([^ ]*\).*/\1/')
run_app answer-long --lesson gpt3-in-context --lang en --frames 2 --answer "$text_check=\"$long\""
grep -q "^check $text_check: error: This answer is too long to be saved: 4902 bytes, more than the 4096" "$work/answer-long.out" &&
  ! grep -q "\"$text_check\"" "$XDG_STATE_HOME/icl-lab/progress.json" && ok || bad "long answer: $(cut -c1-200 "$work/answer-long.out")"

# A predict check: the option whose range holds the demo's scalar (computed here with
# `icl run` and the ranges in the source) is the one the app must grade correct.
predict=$(python3 - "$src" "$icl" <<'EOF'
import json, re, subprocess, sys
text = open(sys.argv[1]).read()
m = re.search(r'```demo dual_form\n(.*?)```\n\n```check id=(\S+) type=predict demo=dual_form scalar="(\w+)"[^\n]*\n(.*?)\n---', text, re.S)
params = [l.replace(": ", "=") for l in m.group(1).strip().splitlines()]
args = [sys.argv[2], "run", "dual_form", "--json"] + sum((["--set", p] for p in params), [])
result = json.loads(subprocess.check_output(args))
value = next(i["value"] for p in result["panels"] if p["kind"] == "scalars" for i in p["items"] if i["name"] == m.group(3))
for key, lo, hi in re.findall(r'^([a-z])\) \[([^,]+), *([^\]]+)\]', m.group(4), re.M):
    if float(lo) <= value < float(hi):
        print(m.group(2), key)
EOF
)
read -r pcheck pkey <<<"$predict"
run_app predict --lesson dual-form --lang en --run-demos --frames 30 --answer "$pcheck=$pkey"
grep -q "^check $pcheck: correct" "$work/predict.out" && ok || bad "predict $pcheck=$pkey: $(cat "$work/predict.out")"

# ---- a typed prompt: prompt_lab draws the distribution the CLI computes; an
# unknown word is refused by name; an own-run check is graded against the learner's run
mapping="dog -> Paris ; cat -> Tokyo ; horse -> Rome ; dog ->"
want=$("$icl" run prompt_lab --set "prompt=$mapping" | sed -n '/^\[Next token/{n;s/^ *\([^:]*\):.*/\1/p}')
run_app prompt-lab --demo prompt_lab --lang en --run-demos --frames 8 --set "prompt_lab.prompt=$mapping"
[ "$status" = 0 ] && [ -n "$want" ] && grep -q "^demo prompt_lab: bars '.*': first $want = " "$work/prompt-lab.out" && ok ||
  bad "prompt_lab typed prompt: status $status, CLI's top '$want', app: $(grep '^demo' "$work/prompt-lab.out")"
run_app prompt-lab-bad --demo prompt_lab --lang en --run-demos --frames 2 --set "prompt_lab.prompt=hot -> frigid ; fast ->"
grep -q "^demo prompt_lab: refused: .*'frigid' (word 3) is not in the vocabulary; nearest: " "$work/prompt-lab-bad.out" && ok ||
  bad "prompt_lab unknown word: $(cat "$work/prompt-lab-bad.out" "$work/prompt-lab-bad.err")"
run_app own-run --lesson gpt3-in-context --lang en --run-demos --frames 60 --set "prompt_lab.prompt=$mapping" --answer gpt3-own-mapping=a
grep -q "^check gpt3-own-mapping: correct" "$work/own-run.out" && ok || bad "own-run check, mapping prompt: $(grep '^check' "$work/own-run.out")"
run_app own-run-default --lesson gpt3-in-context --lang en --run-demos --frames 60 --answer gpt3-own-mapping=a
grep -q "^check gpt3-own-mapping: incorrect (correct answer: c)" "$work/own-run-default.out" && ok ||
  bad "own-run check, the lesson's prompt: $(grep '^check' "$work/own-run-default.out")"

# ---- a corrupt progress file is set aside with a notice, and a fresh one written ------
echo '{"version": 1, "lang": ' >"$XDG_STATE_HOME/icl-lab/progress.json"
run_app corrupt --lesson gpt3-in-context --lang en --frames 2
if [ "$status" = 0 ] && grep -q "progress file was not valid" "$work/corrupt.err" &&
   ls "$XDG_STATE_HOME"/icl-lab/progress.json.corrupt-* >/dev/null 2>&1 &&
   python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["last_lesson"] == "gpt3-in-context"' "$XDG_STATE_HOME/icl-lab/progress.json"; then
  ok
else
  bad "corrupt progress: status $status, $(cat "$work/corrupt.err")"
fi

# ---- an unfinished run is kept on disk when the app closes, and resumed from its step --
# (tests/app/unit/test_kept_run.cpp checks that a resumed run ends in the straight run's Result)
kept_state=$work/kept
kept_file=$kept_state/icl-lab/runs/emergence_lab.json
kp=(--demo emergence_lab --set emergence_lab.steps=20000 --set emergence_lab.seeds=1)
step_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step"])' "$kept_file" 2>/dev/null || echo 0; }
XDG_STATE_HOME=$kept_state run_app kept-a "${kp[@]}" --run-demos --frames 40
kept_step=$(step_of)
[ "$kept_step" -gt 0 ] && [ "$kept_step" -lt 20000 ] && ok || bad "kept run after closing: step '$kept_step', $(cat "$work/kept-a.err")"
XDG_STATE_HOME=$kept_state run_app kept-b "${kp[@]}" --frames 2
grep -q "^demo emergence_lab: kept run from step $kept_step$" "$work/kept-b.out" && ok || bad "kept run offered: $(grep '^demo' "$work/kept-b.out")"
XDG_STATE_HOME=$kept_state run_app kept-c "${kp[@]}" --run-demos --resume-kept --frames 2
progress=$(sed -n 's/^demo emergence_lab: [a-z]*, progress \([0-9.]*\),.*/\1/p' "$work/kept-c.out")
grep -q "^demo emergence_lab: resumed a kept run$" "$work/kept-c.out" &&
  python3 -c 'import sys; assert float(sys.argv[1]) >= int(sys.argv[2]) / 20000 - 1e-3' "$progress" "$kept_step" && ok ||
  bad "resumed from step $kept_step: $(grep '^demo' "$work/kept-c.out")"
echo '{"format": "icl-lab-kept-run", "demo": ' >"$kept_file"
XDG_STATE_HOME=$kept_state run_app kept-d "${kp[@]}" --frames 2
grep -q "^demo emergence_lab: kept run set aside: it is not JSON" "$work/kept-d.out" && [ -f "$kept_file.bad" ] && [ ! -e "$kept_file" ] &&
  ok || bad "corrupt kept run: $(grep '^demo' "$work/kept-d.out"), $(ls "$kept_state/icl-lab/runs")"

# ---- a saved answer with an option the check does not have --------
# is dropped with a notice; the right answer is then graded (it used to error forever).
python3 - "$XDG_STATE_HOME/icl-lab/progress.json" "$check" <<'EOF'
import json, sys
json.dump({"version": 1, "lang": "en", "checks": {"dual-form": {sys.argv[2]: {"correct": False, "answer": "zzz"}}}}, open(sys.argv[1], "w"))
EOF
run_app zzz --lesson dual-form --lang en --frames 2 --answer "$check=$right"
grep -q "saved answer to check \"dual-form/$check\" was dropped ('zzz' is not one of the options" "$work/zzz.err" &&
  grep -q "^check $check: correct" "$work/zzz.out" && ok || bad "unknown stored option: $(cat "$work/zzz.err" "$work/zzz.out")"

# ---- two app windows answering at once keep every answer (read-merge-write, flock) ---
# 2 x 20 answers on one state directory: the attempts recorded must add up to 40.
mapfile -t plain < <(grep -oE '^```check id=[^ ]+ type=choice' "$src" | sed 's/.*id=\([^ ]*\).*/\1/' | head -4)
answers=()
for k in $(seq 0 19); do answers+=(--answer "${plain[$((k % ${#plain[@]}))]}=\"a\""); done
conc=$work/concurrent
XDG_STATE_HOME=$conc "$app" --lesson dual-form --lang en --frames 2 "${answers[@]}" >"$work/conc-a.out" 2>&1 &
pid_a=$!
XDG_STATE_HOME=$conc "$app" --lesson dual-form --lang ko --frames 2 "${answers[@]}" >"$work/conc-b.out" 2>&1
wait $pid_a
total=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(sum(r["attempts"] for c in p["checks"].values() for r in c.values()))' "$conc/icl-lab/progress.json" 2>&1)
[ "$total" = 40 ] && ok || bad "two instances x 20 answers kept $total attempts, not 40: $(tail -3 "$work/conc-a.out")"

# ---- review: a missed check comes back after 10 minutes (a fixed clock) ---------------
rev=$work/review
T0=1764590400000
XDG_STATE_HOME=$rev ICL_NOW_MS=$T0 "$app" --lesson dual-form --lang en --frames 2 --answer "$check=$wrong" >"$work/rev-a.out" 2>&1
XDG_STATE_HOME=$rev ICL_NOW_MS=$((T0 + 5 * 60000)) "$app" --lesson dual-form --lang en --frames 2 >"$work/rev-b.out" 2>&1
XDG_STATE_HOME=$rev ICL_NOW_MS=$((T0 + 11 * 60000)) "$app" --lesson dual-form --review --lang ko --frames 3 \
  --answer "$check=$right" --screenshot "$work/review.png" >"$work/rev-c.out" 2>&1
if grep -q "^progress: 1 checks answered, 0 due for review" "$work/rev-b.out" &&
   grep -q "^progress: 1 checks answered, 1 due for review" "$work/rev-c.out" &&
   grep -q "^check $check: correct" "$work/rev-c.out"; then ok
else bad "review: $(cat "$work/rev-b.out" "$work/rev-c.out" | grep -E '^(progress|check)')"; fi
# The CSV summary for a teacher: the check, right at last, 2 attempts, the time in UTC.
XDG_STATE_HOME=$rev "$app" --export-csv "$work/summary.csv" >/dev/null 2>&1
grep -q "^dual-form,$check,true,2,2025-12-01T12:11:00Z" "$work/summary.csv" && ok || bad "summary CSV: $(cat "$work/summary.csv")"

# ---- a predict check with hide=result: its demo's result waits for the answer ----------
# gpt_scaling's result is not shown while lesson 1's checks that predict it (its hide=result
# checks in the lesson source) have no answer; answered, or answered on an earlier visit, it is.
held_ids=$(sed -n 's/^```check id=\([^ ]*\) type=predict demo=gpt_scaling .*hide=result.*/\1/p' \
  lessons/en/01-gpt3-in-context.md | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
hold=$work/hold; mkdir -p "$hold"
XDG_STATE_HOME=$hold "$app" --lesson gpt3-in-context --lang en --frames 3 >"$work/hold-a.out" 2>&1
answers=(); for id in $held_ids; do answers+=(--answer "$id=a"); done
XDG_STATE_HOME=$hold "$app" --lesson gpt3-in-context --lang en --frames 3 "${answers[@]}" >"$work/hold-b.out" 2>&1
XDG_STATE_HOME=$hold "$app" --lesson gpt3-in-context --lang en --frames 2 >"$work/hold-c.out" 2>&1
if [ -n "$held_ids" ] && grep -qx "demo gpt_scaling: result held for $held_ids" "$work/hold-a.out" &&
   ! grep -q "^demo gpt_scaling: result held" "$work/hold-b.out" "$work/hold-c.out"; then ok
else bad "held result: expected '$held_ids' held, then shown: $(grep -h 'held\|^check' "$work"/hold-?.out)"; fi

# ---- usage errors name the problem ----------------------------------------------------
run_app no-lesson --lesson no-such-lesson --frames 1
[ "$status" = 2 ] && grep -q "no lesson 'no-such-lesson'" "$work/no-lesson.err" && ok || bad "unknown lesson: status $status"
run_app bad-frames --frames x
[ "$status" = 2 ] && grep -q -- "--frames must be" "$work/bad-frames.err" && ok || bad "bad --frames: status $status"

# ---- a training demo trains on its worker thread while the UI keeps drawing ----------
# 150 frames while lsa_training runs: the demo must still be running at the end (so
# every frame was drawn during training), have made steps, and no frame may stall
# (take 500 ms or more).
run_app training --demo lsa_training --lang en --run-demos --frames 150 --screenshot "$work/training.png"
cat "$work/training.out" | grep -E "^(demo|frames)"
stats=$(grep '^frames while a demo ran:' "$work/training.out")
frames=$(sed 's/.*: \([0-9]*\) frames.*/\1/' <<<"$stats")
max_ms=$(sed 's/.*max \([0-9.]*\) ms.*/\1/' <<<"$stats")
steps=$(sed -n 's/^demo lsa_training: running, .*steps \([0-9]*\).*/\1/p' "$work/training.out")
if [ "$status" = 0 ] && [ "${frames:-0}" -ge 149 ] && [ "${steps:-0}" -gt 0 ] &&
   awk -v m="${max_ms:-1e9}" 'BEGIN { exit !(m < 500) }'; then
  ok
else
  bad "training: status $status, frames while running ${frames:-?}, steps ${steps:-?}, max frame ${max_ms:-?} ms"
fi

# ---- hostile lesson text and a diverging training run ----------------------------------
# The fixture lesson of the browser test: raw HTML in every field, and lsa_training with
# lr 0.05 and 2 layers. The app opens it, and the demo stops with the step and the reason while the
# frames keep coming.
run_app diverging --lessons tests/browser/fixtures/hostile --lesson hostile --lang en --run-demos --frames 400
if [ "$status" = 0 ] && grep -qE "^demo diverging: done, .*error: training diverged at step [0-9]+: loss = .*\(lr 0.05 is too large\?\)$" "$work/diverging.out"; then
  ok
else
  bad "diverging: status $status, $(grep '^demo' "$work/diverging.out") $(cat "$work/diverging.err")"
fi

# ---- a points parameter: a scripted drag on the canvas moves the curves ------------------
# regression_lab's third starting point (0, 0.7) is dragged to (0, 2.5) with the mouse on
# the canvas; the app's one-GD-step prediction must then be the CLI's for the moved
# points, and differ from the one before the drag.
gd_of() { node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.panels[0].items.find((i) => i.name === "gd_one_step").value)'; }
run_app points --demo regression_lab --lang en --frames 40 --drag "points=0,0.7:0,2.5"
got=$(sed -n 's/^demo regression_lab scalars:.* gd_one_step=\([^ ]*\).*/\1/p' "$work/points.out")
want=$("$icl" run regression_lab --set "points=-1.5,-0.8; -0.8,-0.1; 0,2.5; 0.6,0.8; 1.3,1.9" --json | gd_of)
before=$("$icl" run regression_lab --json | gd_of)
if [ "$status" = 0 ] && grep -q "^dragged points from (0, 0.7) to (0, 2.5)" "$work/points.out" &&
   awk -v g="${got:-nan}" -v w="$want" -v b="$before" 'BEGIN { d = g - w; if (d < 0) d = -d; e = g - b; if (e < 0) e = -e; exit !(d < 1e-5 && e > 0.05) }'; then
  ok
else
  bad "points drag: status $status, gd_one_step ${got:-?} after the drag, CLI ${want:-?} (before ${before:-?}); $(grep -E '^(dragged|demo)' "$work/points.out") $(cat "$work/points.err")"
fi

# ---- the two training-data labs and the probe lab, in short runs: the app's numbers are the CLI's
# Each lab opened on its own with a short setup (--set, as its controls would) trains to
# the end on its worker thread; its first scalars panel, as the app prints it, must be
# the one `icl run` computes for the same setup (same core, same kernels: the same
# numbers), and hold numbers.
scalars_of() { node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.panels.find((p) => p.kind === "scalars").items.map((i) => `${i.name}=${i.value}`).join(" "))'; }
same_scalars() {  # same_scalars "<a=1 b=2 ...>" "<a=1 b=2 ...>": same names, values within 1e-6 (NaN = null)
  python3 - "$1" "$2" <<'EOF'
import math, sys
def read(s):
    out = {}
    for kv in s.split():
        k, v = kv.split("=", 1)
        out[k] = math.nan if v in ("null", "nan", "-nan") else float(v)
    return out
a, b = read(sys.argv[1]), read(sys.argv[2])
ok = a.keys() == b.keys() and len(a) > 0 and any(math.isfinite(v) for v in a.values())
ok = ok and all((math.isnan(a[k]) and math.isnan(b[k])) or abs(a[k] - b[k]) <= 1e-6 * max(1, abs(b[k])) for k in a)
sys.exit(0 if ok else 1)
EOF
}
for lab in "emergence_lab steps=60 seeds=2 classes=32 eval_every=20" "task_diversity_lab steps=40 seeds=1 eval_sequences=32" \
           "algorithm_probe prompts=128 splits=2"; do
  read -r id knobs <<<"$lab"
  app_sets=(); cli_sets=()
  for kv in $knobs; do app_sets+=(--set "$id.$kv"); cli_sets+=(--set "$kv"); done
  run_app "$id" --demo "$id" --lang en --run-demos --frames 150 "${app_sets[@]}"
  got=$(sed -n "s/^demo $id scalars: //p" "$work/$id.out")
  want=$("$icl" run "$id" "${cli_sets[@]}" --json | scalars_of)
  if [ "$status" = 0 ] && grep -q "^demo $id: done, progress 1.000" "$work/$id.out" && same_scalars "$got" "$want"; then
    ok
  else
    bad "$id: status $status, $(grep "^demo $id" "$work/$id.out" | head -2) $(head -c 300 "$work/$id.err"); the CLI's: $want"
  fi
done

echo "app: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
