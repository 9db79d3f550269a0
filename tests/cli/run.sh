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
expect seed-space-minus 2 "--seed needs a non-negative integer below 2\^64, got ' -3'" -- run dual_form --seed " -3"
expect seed-plus 2 "--seed needs a non-negative integer below 2\^64, got '\+3'" -- run dual_form --seed "+3"

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
expect dual_form-nan 2 "'noise' = nan is not finite" -- run dual_form --set noise=nan
expect dual_form-unknown 2 "unknown parameter 'depth'" -- run dual_form --set depth=3
expect_json lsa_gd_construction
expect lsa_gd_construction-range 2 "'n_context' = 41 is out of range: expected an integer in \\[1, 40\\]" -- run lsa_gd_construction --set n_context=41
expect lsa_gd_construction-malformed 2 "'eta' = '6x' is not a number" -- run lsa_gd_construction --set eta=6x
expect_json lsa_training --set steps=50 --set batch=16
expect lsa_training-range 2 "'layers' = 9 is out of range: expected an integer in \\[1, 4\\]" -- run lsa_training --set layers=9
expect lsa_training-int 2 "'steps' = 10.5 is not an integer" -- run lsa_training --set steps=10.5
expect_json preconditioner_lab --set steps=40 --set batch=16
expect_json preconditioner_lab --set steps=20 --set batch=8 --set rotate=false --lang ko
expect preconditioner_lab-choice 2 "'form' is 'gd': expected one of full ahn" -- run preconditioner_lab --set form=gd
expect preconditioner_lab-range 2 "'condition' = 500 is out of range: expected a number in \\[1, 100\\]" -- run preconditioner_lab --set condition=500
expect_json newton_vs_gd --set condition=1000
expect_json newton_vs_gd --set d=2 --set prompts=2 --lang ko
expect_json algorithm_probe --set prompts=64 --set splits=2
expect_json algorithm_probe --set prompts=64 --set splits=2 --set position=query --lang ko
expect algorithm_probe-range 2 "'prompts' = 512 is out of range: expected an integer in \\[64, 256\\]" -- run algorithm_probe --set prompts=512
expect newton_vs_gd-range 2 "'iterations' = 30 is out of range: expected an integer in \\[1, 24\\]" -- run newton_vs_gd --set iterations=30
expect_json attention_dual --set n_demos=24 --set show_after=24
expect attention_dual-range 2 "'d_head' = 1 is out of range: expected an integer in \\[2, 16\\]" -- run attention_dual --set d_head=1
expect attention_dual-inf 2 "'input_scale' = inf is not finite" -- run attention_dual --set input_scale=inf
expect_json icl_regression_curve --set d=4 --set n_tasks=100 --set train_steps=50
# regression_lab: points as "x,y; x,y"; a bad point exits 2 naming it and its bound
expect_json regression_lab --set "points=-1,-1; 0.5,0.2; 1.5,2" --set bias=false
expect_json regression_lab --set points= --lang ko
expect regression_lab-point-y 2 "'points' point 2 \(0.5, 9\) has y outside \[-4, 4\]" -- run regression_lab --set "points=0,0; 0.5,9"
expect regression_lab-point-form 2 "'points' point 1 '1 2' is not of the form x,y" -- run regression_lab --set "points=1 2"
# task_diversity_lab: a short run in both languages; a pool past 2^16 tasks exits 2 naming the knob
expect_json task_diversity_lab --set steps=20 --set seeds=1 --set eval_sequences=16
expect_json task_diversity_lab --set steps=0 --set seeds=2 --set eval_sequences=16 --lang ko
expect task_diversity_lab-range 2 "'log2_tasks' = 17 is out of range: expected an integer in \\[0, 16\\]" -- run task_diversity_lab --set log2_tasks=17
# emergence_lab: a short run ends with a headline, both accuracies as numbers and the "what
# changed" line; an out-of-range knob exits 2 naming it
out=$("$icl" run emergence_lab --set steps=40 --set seeds=2 --set classes=32 --set eval_every=20 --json 2>&1); status=$?
if [ "$status" = 0 ] && node -e 'const r = JSON.parse(process.argv[1]);
  const items = r.panels.filter((p) => p.kind === "scalars").flatMap((p) => p.items);
  const v = (n) => (items.find((i) => i.name === n) || {}).value;
  const changed = r.panels.filter((p) => p.kind === "note").map((p) => p.text).join(" ");
  if (!r.done || r.error !== "" || !r.headline || !(v("icl_acc") >= 0 && v("icl_acc") <= 1) || !(v("iwl_acc") >= 0 && v("iwl_acc") <= 1)
      || v("seeds_done") !== 2 || !/seed 0/i.test(changed) || !/seed 1/i.test(changed)) process.exit(1)' "$out"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL emergence_lab short run: status $status, output: ${out:0:300}"
fi
expect emergence_lab-range 2 "'burstiness' = 9 is out of range: expected an integer in \\[0, 8\\]" -- run emergence_lab --set burstiness=9
# sequence_lab: symbols a..j and ';' on the shipped HMM model; a long segment or an unknown symbol exits 2 by name
expect_json sequence_lab --set "sequence=a b c d e f ; d e"
expect sequence_lab-long-segment 2 "segment 1 has more than 6 symbols \(word 7\)" -- run sequence_lab --set "sequence=a b c d e f g"
expect sequence_lab-unknown 2 "'k' \(word 3\) is not in the vocabulary" -- run sequence_lab --set "sequence=a b k"
expect sequence_lab-short-segment 2 "segment 1 ends after 3 symbols \(the ';' at word 4\)" -- run sequence_lab --set "sequence=a b c ; d e"
expect icl_regression_curve-range 2 "'d' = 40 is out of range: expected an integer in \\[2, 20\\]" -- run icl_regression_curve --set d=40
expect icl_regression_curve-choice 2 "'gd_step' is 'newton': expected one of best_per_k fixed" -- run icl_regression_curve --set gd_step=newton

# Bad input (docs/bad-input.md): a diverging run exits 1 naming the step and the lr;
# seeds and --set forms that cannot be read are usage errors naming what is wrong.
expect lsa_training-diverges 1 "training diverged at step [0-9]+: loss = .*\(lr 0.05 is too large\?\)" -- run lsa_training --set lr=0.05 --set layers=2 --set batch=8
expect seed-overflow 2 "--seed needs a non-negative integer below 2\^64, got '99999999999999999999999'" -- run dual_form --seed 99999999999999999999999
expect set-no-equals 2 "dual_form: 'lr' is not of the form name=value" -- run dual_form --set lr
expect set-empty-value 2 "'lr' = '' is not a number" -- run dual_form --set lr=
expect set-html 2 "'optimizer' is '<script>': expected one of sgd adam" -- run dual_form --set 'optimizer=<script>'
expect set-no-value 2 "incomplete option '--set'" -- run dual_form --set
expect lessons-check-hostile 0 '^lessons: 2 files, 0 errors, 0 warnings$' -- lessons check --dir tests/browser/fixtures/hostile

# lessons: the lint on fixture trees (tests/lessons/), the build into a temp dir
expect lessons-check-good 0 '^lessons: 2 files, 0 errors, 0 warnings$' -- lessons check --dir tests/lessons/good
expect lessons-check-missing-answer 1 '^tests/lessons/broken/en/02-bad\.md:9: check block has no answer=' -- lessons check --dir tests/lessons/broken
expect lessons-check-ko-en-mismatch 1 "^tests/lessons/broken/ko/01-basics\.md:17: check 'choice' grades" -- lessons check --dir tests/lessons/broken
expect lessons-check-unknown-tex 1 '^tests/lessons/broken/en/02-bad\.md:7: math: the desktop app cannot show \\foo ' -- lessons check --dir tests/lessons/broken
expect lessons-check-summary 1 '^lessons: 4 files, 4 errors, 0 warnings$' -- lessons check --dir tests/lessons/broken
expect lessons-check-no-dir 1 'no such directory' -- lessons check --dir tests/lessons/none
expect lessons-bad-action 2 "unknown action 'frob'" -- lessons frob
expect lessons-build-needs-out 2 'lessons build needs --out' -- lessons build --dir tests/lessons/good
out=$(mktemp -d)
expect lessons-build-broken 1 'the lint failed; nothing written' -- lessons build --dir tests/lessons/broken --out "$out/broken"
[ ! -e "$out/broken" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL lessons-build-broken wrote $out/broken"; }
mkdir -p "$out/site/en" && echo '{}' > "$out/site/en/renamed-away.json"  # left by an earlier build ...
echo '{"files": ["en/renamed-away.json"]}' > "$out/site/.icl-lessons-build.json"  # ... which recorded it
echo '{"mine": 1}' > "$out/site/en/my-notes.json"                               # a learner's own file
expect lessons-build-good 0 'wrote index.json and 2 lesson files' -- lessons build --dir tests/lessons/good --out "$out/site"
[ ! -e "$out/site/en/renamed-away.json" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL lessons-build-good left a stale lesson file"; }
[ -e "$out/site/en/my-notes.json" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL lessons-build-good removed a file it did not write"; }
if grep -q '"id": "basics"' "$out/site/index.json" 2>/dev/null && grep -q '"lang": "ko"' "$out/site/ko/basics.json" 2>/dev/null; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL lessons-build-good: index.json or ko/basics.json missing or wrong"
fi
rm -rf "$out"

# icl lessons new (docs/authoring.md): a skeleton beside the fixture lesson, in en and then
# ko (the translation takes the en order), that the lint passes as a draft with its demo
# run; refused: an existing lesson, a bad id, an unknown language, no such folder
out=$(mktemp -d)
cp -r tests/lessons/good "$out/lessons"
expect lessons-new-en 0 "^wrote $out/lessons/en/02-sinks\.md: one demo block and one predict check" -- lessons new sinks --lang en --dir "$out/lessons"
expect lessons-new-ko 0 "^wrote $out/lessons/ko/02-sinks\.md" -- lessons new sinks --lang ko --dir "$out/lessons"
expect lessons-new-draft-passes 0 '^lessons: 4 files, 0 errors, 2 warnings$' -- lessons check --draft --run-demos --dir "$out/lessons"
expect lessons-new-one-check 1 "^$out/lessons/en/02-sinks\.md:1: the lesson has 1 checks \(a lesson needs at least 4\)" -- lessons check --dir "$out/lessons"
expect lessons-new-builds 0 'wrote index.json and 4 lesson files' -- lessons build --draft --dir "$out/lessons" --out "$out/json"
if grep -q '"kind": "demo"' "$out/json/ko/sinks.json" 2>/dev/null && grep -q '"type": "predict"' "$out/json/en/sinks.json" 2>/dev/null; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL lessons-new-builds: the skeleton's JSON has no demo or no predict check"
fi
cp "$out/lessons/en/02-sinks.md" "$out/before.md"
expect lessons-new-exists 2 "lesson 'sinks' exists: $out/lessons/en/02-sinks\.md \(it is not overwritten\)" -- lessons new sinks --lang en --dir "$out/lessons"
cmp -s "$out/before.md" "$out/lessons/en/02-sinks.md" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL lessons-new-exists changed the lesson"; }
expect lessons-new-exists-by-name 2 "lesson 'basics' exists" -- lessons new basics --lang ko --dir "$out/lessons"
expect lessons-new-bad-id 2 "lesson id 'two words' is not usable: use 1 to 64 letters, digits, '-' and '_'" -- lessons new "two words" --dir "$out/lessons"
expect lessons-new-path-id 2 "lesson id '../x' is not usable" -- lessons new ../x --dir "$out/lessons"
expect lessons-new-review 2 "lesson id 'review' is taken" -- lessons new review --dir "$out/lessons"
expect lessons-new-Review 2 "lesson id 'Review' is taken" -- lessons new Review --dir "$out/lessons"
expect lessons-new-case 2 "lesson 'Sinks' exists as 'sinks': $out/lessons/en/02-sinks\.md" -- lessons new Sinks --lang en --dir "$out/lessons"
expect lessons-new-no-lang-folder 2 "no such directory .*/fr .*a new language starts as a folder" -- lessons new x --lang fr --dir "$out/lessons"
expect lessons-new-bad-lang 2 "'f/r' is not a language code" -- lessons new x --lang f/r --dir "$out/lessons"
expect lessons-new-no-dir 2 "no such directory $out/none/en" -- lessons new x --dir "$out/none"
expect lessons-new-no-id 2 'lessons new needs a lesson id' -- lessons new --lang en
[ "$(ls "$out/lessons/en" "$out/lessons/ko" | grep -c '\.md$')" = 4 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL lessons-new wrote a file it refused"; }
# the skeleton is data: a language's own catalogue/new-lesson.md, {id} and {order} filled
mkdir -p "$out/lessons/fr/catalogue"
printf -- '---\nid: {id}\ntitle: Une nouvelle leçon\norder: {order}\nsummary: S\n---\nTexte.\n' >"$out/lessons/fr/catalogue/new-lesson.md"
expect lessons-new-own-skeleton 0 "^wrote $out/lessons/fr/02-sinks\.md" -- lessons new sinks --lang fr --dir "$out/lessons"
[ "$(head -4 "$out/lessons/fr/02-sinks.md" | tr '\n' '|')" = "---|id: sinks|title: Une nouvelle leçon|order: 2|" ] && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL lessons-new-own-skeleton: $(head -4 "$out/lessons/fr/02-sinks.md")"; }
rm -rf "$out"

# The icl commands of docs/authoring.md's sh examples run as written, exit 0 (except a
# line with a <placeholder>, and --run-demos, which is the lessons-lint suite)
while IFS= read -r line; do
  case "$line" in *'<'*|*--run-demos*) continue ;; esac
  args=${line#build/bin/icl }
  if out=$(eval "\"\$icl\" $args" 2>&1); then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL docs/authoring.md example '$line': ${out:0:300}"
  fi
done < <(awk '/^```sh$/ { f = 1; next } /^```$/ { f = 0 } f' docs/authoring.md | grep '^build/bin/icl ' | sed 's/  *#.*$//')

# icl train and the checkpoints the demos read
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect train-no-recipe 2 "cannot open recipe 'no-such.json'" -- train no-such.json
printf '{"name": "x", "train": {"steps": -3}}' > "$tmp/bad.json"
expect train-bad-field 2 "bad.json: train.steps" -- train "$tmp/bad.json"
# a recipe nested deep is refused before training and left as it was (it used to be
# rewritten in place: 0 bytes after a crash, or 2.0 MB from 2.9 KB)
node -e 'const n = 1000; process.stdout.write(`{"name": "x", "train": {"steps": 1}, "note": ${"[".repeat(n)}${"]".repeat(n)}}`)' > "$tmp/deep.json"
cp "$tmp/deep.json" "$tmp/deep.orig"
expect train-deep-recipe 2 "deep.json: it is nested 1001 deep, more than the 32 a recipe may have" -- train "$tmp/deep.json" --out "$tmp/deep.icl"
cmp -s "$tmp/deep.json" "$tmp/deep.orig" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL train-deep-recipe: the recipe changed"; }
# a grid file (a phase diagram's background): one command runs its cells and writes them
# in; --check reruns and compares; a bad option or field is refused, the file unchanged
printf '%s' '{"grid": "g", "demo": "emergence_lab", "set": {"steps": 40, "seeds": 1, "classes": 32, "width": 8, "dim": 4},
 "rows": {"param": "burstiness", "values": [0, 2]}, "cols": {"param": "zipf", "values": [0]}, "read": ["icl_acc", "iwl_acc"]}' > "$tmp/grid.json"
expect grid-run 0 "wrote 2 cells into" -- train "$tmp/grid.json" --jobs 2
node -e 'const g = JSON.parse(require("fs").readFileSync(process.argv[1])); if (g.cells.length !== 2 || typeof g.cells[1].icl_acc !== "number" || !(g.seconds >= 0)) process.exit(1)' "$tmp/grid.json" \
  && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL grid-run: no cells written"; }
expect grid-check 0 "0 of 4 figures off by more than 0.050" -- train "$tmp/grid.json" --check
sed 's/"icl_acc": [0-9.]*/"icl_acc": 7/' "$tmp/grid.json" > "$tmp/grid-off.json"
expect grid-check-off 1 "recorded 7.0000, now" -- train "$tmp/grid-off.json" --check
cp "$tmp/grid.json" "$tmp/grid.orig"
expect grid-bad-jobs 2 "--jobs takes a whole number from 1 to 8, not '0'" -- train "$tmp/grid.json" --jobs 0
expect grid-bad-option 2 "a grid takes --jobs n and --check, not '--out'" -- train "$tmp/grid.json" --out x.icl
node -e 'const g = JSON.parse(require("fs").readFileSync(process.argv[1])); g.rows.values = [0, 9]; process.stdout.write(JSON.stringify(g))' "$tmp/grid.json" > "$tmp/grid-bad.json"
expect grid-bad-cell 2 "grid-bad.json: cell \(burstiness = 9, zipf = 0\): .*burstiness" -- train "$tmp/grid-bad.json"
cmp -s "$tmp/grid.json" "$tmp/grid.orig" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL grid-bad-jobs: the grid changed"; }
# the regression recipe, shortened to 20 steps: one command trains it, twice the same bits
sed 's/"steps": [0-9]*/"steps": 20/' "$root/lessons/checkpoints/regression.json" > "$tmp/regression.json"
expect train-regression 0 "wrote .*a.icl and the figures" -- train "$tmp/regression.json" --out "$tmp/a.icl"
expect train-regression-again 0 "mse.k11" -- train "$tmp/regression.json" --out "$tmp/b.icl"
cmp -s "$tmp/a.icl" "$tmp/b.icl" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL train-regression: two runs of one recipe differ"; }
mkdir -p "$tmp/lessons/checkpoints" "$tmp/lessons/en"
cp "$root/lessons/checkpoints/tasks.json" "$tmp/lessons/checkpoints/"
ICL_LESSONS_DIR="$tmp/lessons" expect missing-catalogue 2 "lessons/en/catalogue/common.json.*English texts" -- run dual_form
cp -r "$root/lessons/en/catalogue" "$tmp/lessons/en/"
ICL_LESSONS_DIR="$tmp/lessons" expect missing-checkpoint 2 "checkpoints/tasks.icl.*icl train" -- run shots_curve
printf 'not a checkpoint' > "$tmp/lessons/checkpoints/tasks.icl"
ICL_LESSONS_DIR="$tmp/lessons" expect corrupt-checkpoint 2 "checkpoints/tasks.icl: .*icl train lessons/checkpoints/tasks.json" -- run demo_labels
expect unknown-language 2 "unknown language 'fr': lessons/fr/catalogue/ has neither" -- run dual_form --lang fr
expect bad-language-code 2 "'\.\./en' is not a language code" -- demos --lang ../en
expect attention-counts 0 "pairs_dense = 2080" -- run attention_patterns --set T=64 --set train=false
# mechanism demos: the fast ones run to JSON; bad parameters are refused by name
expect_json icl_decomposition --set prompts=2
expect_json function_vectors --set prompts=4 --lang ko
expect_json induction_heads --set steps=20 --set batch=4
expect induction-heads-divides 2 "'heads' = 3 must divide 'width' = 32" -- run induction_heads --set heads=3
expect icl-vs-finetune-range 2 "'shots' = 17 is out of range" -- run icl_vs_finetune --set shots=17
expect momentum-eta-range 2 "'eta' = 1 is out of range" -- run momentum_attention --set eta=1
# prompt_lab: the learner's prompt, typed with -> for →; an unknown word exits 2
# naming it, its position and the nearest vocabulary words
expect prompt-lab-runs 0 '\[Next token: the 10 most likely\]' -- run prompt_lab --set "prompt=hot -> cold ; big -> small ; fast ->"
expect_json prompt_lab --set "prompt=dog -> Paris ; cat -> Tokyo ; dog ->" --set ablate=L3H0 --set fv_task=antonym
expect prompt-lab-unknown-word 2 "parameter 'prompt': 'frigid' \(word 3\) is not in the vocabulary; nearest: " -- run prompt_lab --set "prompt=hot -> frigid ; fast ->"
expect prompt-lab-bad-head 2 "'L9H9' \(word 1\) is not in the vocabulary" -- run prompt_lab --set ablate=L9H9

# The site build (web/build-site.mjs) never empties its folder or the lesson JSON beside
# it: it removes only what a previous build listed, and refuses a folder of someone
# else's. A stand-in for the wasm core (no demos) is enough: the good lessons have none.
site_work=$(mktemp -d)
mkdir -p "$site_work/core" "$site_work/teacher/lessons-json" "$site_work/other"
echo 'module.exports = async () => ({ put_asset: () => "{}", demos: () => "[]" });' > "$site_work/core/icl_core.js"
: > "$site_work/core/icl_core.wasm"
echo 'mine' > "$site_work/teacher/lessons-json/notes.txt"
build_site() {  # build_site <out> -> the build's status; its output in $site_out
  site_out=$(node web/build-site.mjs --out "$1" --wasm "$site_work/core" --icl "$icl" --sources tests/lessons/good 2>&1)
}
site_check() {  # site_check <name> <condition...>
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name: $site_out"; fi
}
build_site "$site_work/teacher/site"; status=$?
site_check site-build-new-folder [ "$status" = 0 -a -f "$site_work/teacher/site/en/basics.html" -a -f "$site_work/teacher/site/.icl-site-build.json" ]
site_check site-build-keeps-lessons-json-files [ -f "$site_work/teacher/lessons-json/notes.txt" ]
echo 'mine' > "$site_work/teacher/site/my-page.html"                      # a teacher's own file, after the build
mkdir -p "$site_work/teacher/site/en/old" && echo 'x' > "$site_work/teacher/site/en/old/gone.html"
node -e 'const f = process.argv[1]; const m = JSON.parse(require("fs").readFileSync(f)); m.files.push("en/old/gone.html", "../../other/x.txt"); require("fs").writeFileSync(f, JSON.stringify(m));' "$site_work/teacher/site/.icl-site-build.json"
echo 'outside' > "$site_work/other/x.txt"
build_site "$site_work/teacher/site"; status=$?
site_check site-build-again [ "$status" = 0 -a -f "$site_work/teacher/site/en/basics.html" ]
site_check site-build-removes-what-it-listed [ ! -e "$site_work/teacher/site/en/old" ]
site_check site-build-keeps-a-file-it-did-not-write [ -f "$site_work/teacher/site/my-page.html" -a -f "$site_work/other/x.txt" ]
echo 'mine' > "$site_work/other/notes.txt"
build_site "$site_work/other"; status=$?
site_check site-build-refuses-a-foreign-folder [ "$status" = 1 -a -f "$site_work/other/notes.txt" -a ! -e "$site_work/other/index.html" ]
site_check site-build-says-why grep -q 'is not empty and no earlier site build wrote it' <<<"$site_out"
mkdir -p "$site_work/reserved/en" && cp tests/lessons/good/en/01-basics.md "$site_work/reserved/en/" && cp -r "$site_work/reserved/en" "$site_work/reserved/lab"
site_out=$(node web/build-site.mjs --out "$site_work/reserved-site" --wasm "$site_work/core" --icl "$icl" --sources "$site_work/reserved" 2>&1); status=$?
site_check site-build-reserved-language [ "$status" = 1 -a ! -e "$site_work/reserved-site/lab" ]
site_check site-build-reserved-language-says-why grep -q "'lab' cannot name a language" <<<"$site_out"
rm -rf "$site_work"

# icl lessons package: a stand-in site (a page per English lesson, with the site's CSP)
# is packed; Python's zipfile reads every entry back; bad options exit 2, a missing site 1.
site="$tmp/site"; mkdir -p "$site/en" "$site/assets"
for id in $(sed -n 's/^id: *//p' "$root"/lessons/en/[0-9]*.md); do
  printf '<meta http-equiv="Content-Security-Policy" content="default-src '"'"'self'"'"'; connect-src '"'"'self'"'"'">\n<p>%s</p>\n' "$id" > "$site/en/$id.html"
done
printf 'x' > "$site/assets/a.js"; printf 'gz' > "$site/assets/a.js.gz"
n_lessons=$(ls "$root"/lessons/en/[0-9]*.md | wc -l)  # a page per lesson, the manifest and the asset
expect package-writes 0 "wrote .*pkg.zip: SCORM 1.2, $n_lessons lessons \(en\) as SCOs, $((n_lessons + 2)) files" -- lessons package --scorm "$tmp/pkg.zip" --site "$site"
if /usr/bin/python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; n = z.namelist(); assert n[0] == "imsmanifest.xml" and "assets/a.js" in n and "assets/a.js.gz" not in n, n' "$tmp/pkg.zip"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL package-zip: Python's zipfile does not read $tmp/pkg.zip as expected"; fi
expect package-xapi 0 "xAPI statements to https://lrs.example.org/xapi/" -- lessons package --scorm "$tmp/pkg2.zip" --site "$site" --xapi-endpoint https://lrs.example.org/xapi
if /usr/bin/python3 -c 'import sys, zipfile; p = zipfile.ZipFile(sys.argv[1]).read("en/dual-form.html").decode(); assert "connect-src '"'"'self'"'"' https://lrs.example.org" in p and "<meta name=\"icl-xapi-endpoint\" content=\"https://lrs.example.org/xapi/\">" in p, p' "$tmp/pkg2.zip"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL package-xapi-page: the endpoint is not in the packaged page"; fi
expect package-no-out 2 "lessons package needs --scorm <out.zip>" -- lessons package --site "$site"
expect package-bad-endpoint 2 "the xAPI endpoint 'ftp://x' is not an http or https address" -- lessons package --scorm "$tmp/p.zip" --site "$site" --xapi-endpoint ftp://x
expect package-auth-alone 2 "--xapi-auth needs --xapi-endpoint" -- lessons package --scorm "$tmp/p.zip" --site "$site" --xapi-auth "Basic x"
expect package-no-site 1 "no built site at '$tmp/none'" -- lessons package --scorm "$tmp/p.zip" --site "$tmp/none"
[ ! -e "$tmp/p.zip" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL package-nothing-written: a refused package left $tmp/p.zip"; }

# icl class report: the fixture class (tests/cli/class; its counts are worked out by hand
# in tests/unit/test_class_report.cpp) as a page; its numbers and reasons are in the rows.
expect class-report 0 "wrote .*report.html: 4 learners" -- class report tests/cli/class/statements.json tests/cli/class/carol.csv tests/cli/class/dan.json --out "$tmp/report.html"
row=$(grep -o '<tr id="dual-form-dual-form-scores">.*</tr>' "$tmp/report.html")
if grep -q '<td class="n">4</td><td class="n">2 of 4</td>' <<<"$row" && grep -q '<b>a</b> (1) <span class="reason">The query has' <<<"$row" \
   && grep -q '<td>ben&lt;i&gt;</td>' "$tmp/report.html" && ! grep -q '<script\|<i>' "$tmp/report.html"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL class-report-rows: $row"; fi
expect class-report-ko 0 "wrote" -- class report tests/cli/class/statements.json --lang ko --out "$tmp/report-ko.html"
grep -q '첫 시도에 맞힘' "$tmp/report-ko.html" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL class-report-ko: no Korean header"; }
expect class-no-out 2 "class report needs --out" -- class report tests/cli/class/statements.json
printf "a,b\n" > "$tmp/bad.csv"
expect class-bad-csv 1 "bad.csv': line 1 is not the header" -- class report "$tmp/bad.csv" --out "$tmp/r.html"
expect class-missing 1 "no-such.json" -- class report "$tmp/no-such.json" --out "$tmp/r.html"
echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
