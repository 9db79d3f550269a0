#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (ASan + UBSan; the `asan` preset of
# CMakePresets.json, into build/asan/bin/, beside the ASan unit tests) and runs each for FUZZ_SECONDS (default 30) on
# its seed corpus. Crash inputs are kept in build/fuzz/artifacts/; a target fails if it
# crashed, leaked, timed out or hit a sanitizer. Ends with "fuzz: N passed, M failed".
#   tests/fuzz/run.sh [target...]          (default: every target)
#   FUZZ_SECONDS=300 tests/fuzz/run.sh fuzz_lesson
#   tests/fuzz/run.sh --bin build/asan/bin fuzz_grade   (no build: ctest runs it so)
# To replay one input: build/asan/bin/<target> <file>
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-30}
bin=
if [ "${1:-}" = --bin ]; then bin=$2; shift 2; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_lesson fuzz_grade fuzz_checkpoint fuzz_params fuzz_worker_json fuzz_progress fuzz_lesson_tree fuzz_recipe fuzz_serve)
# fuzz_serve is a node script (web/serve.mjs is JavaScript), the others libFuzzer targets.

if [ -z "$bin" ]; then
  bin=build/asan/bin
  scripts/build asan || { echo "fuzz: build failed"; exit 1; }
fi

# Extra seed folders a target reads besides tests/fuzz/corpus/<target>/ (read only).
extra_seeds() {
  case $1 in
    fuzz_lesson) echo lessons/en lessons/ko tests/lessons/good/en tests/lessons/broken/en ;;
  esac
}

mkdir -p build/fuzz/artifacts
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
passed=0; failed=0
for t in "${targets[@]}"; do
  if [ "$t" = fuzz_serve ]; then
    # Requests are slower than in-process inputs; 10 s finds what 30 s would here.
    if FUZZ_SERVE_SECONDS=$(( seconds < 10 ? seconds : 10 )) node tests/fuzz/fuzz_serve.mjs; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    continue
  fi
  # A tree per input is slow (files, links, FIFOs): 10 s of it is enough here; a recipe
  # is a small JSON object whose bounds its seeds already reach, 10 s too.
  t_seconds=$seconds
  case $t in fuzz_lesson_tree|fuzz_recipe) t_seconds=$(( seconds < 10 ? seconds : 10 )) ;; esac
  work=build/fuzz/corpus/$t   # what the fuzzer adds; the committed seeds stay as they are
  mkdir -p "$work"
  log=build/fuzz/$t.log
  # The progress reader is small: 10 s unless FUZZ_SECONDS says otherwise.
  [ "$t" = fuzz_progress ] && [ -z "${FUZZ_SECONDS:-}" ] && t_seconds=10
  # shellcheck disable=SC2046
  if "$bin/$t" -max_total_time="$t_seconds" -timeout=20 -rss_limit_mb=2048 -max_len=32768 \
       -artifact_prefix="build/fuzz/artifacts/$t-" -print_final_stats=1 \
       "$work" "tests/fuzz/corpus/$t" $(extra_seeds "$t") >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "fuzz $t: ok, $(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$') runs in ${t_seconds} s"
  else
    failed=$((failed + 1))
    echo "fuzz $t: FAILED (log $log, inputs in build/fuzz/artifacts/)"
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -8
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
