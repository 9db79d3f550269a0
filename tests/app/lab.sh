#!/usr/bin/env bash
# The desktop app built to WebAssembly, at /lab/ of the site, in headless Chromium
# (WebGL2 through SwiftShader): a lesson renders in both languages, an analytic demo
# and a training demo (run in slices of each frame, no threads) finish, the frames are
# not blank and differ, and the page logs no error; an answer survives a reload.
#   tests/app/lab.sh build/site
# Ends with "lab: N passed, M failed".
set -u
site=$(realpath "$1")
cd "$(dirname "$0")/../.."
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
if [ ! -f "$site/lab/icl-lab.wasm" ]; then
  echo "FAIL no $site/lab/icl-lab.wasm (scripts/build wasm site builds it when scripts/setup has fetched the imgui sources)"
  echo "lab: 0 passed, 1 failed"
  exit 1
fi

work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
node web/serve.mjs "$site" "$port" >"$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q "served at" "$work/serve.log" && break; sleep 0.1; done

# open <name> <query>: a screenshot in $work/<name>.png, the page's console in $work/<name>.log.
# Virtual time lets the page run its frames without waiting for the wall clock.
open_page() {
  local name=$1 query=$2
  timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile-$name" --use-gl=swiftshader --enable-unsafe-swiftshader \
    --window-size=1280,800 --virtual-time-budget=20000 --enable-logging=stderr --v=0 \
    --screenshot="$work/$name.png" "http://127.0.0.1:$port/lab/?$query" 2>&1 |
    sed -n 's/.*CONSOLE[^"]*"\(.*\)", source.*/\1/p' >"$work/$name.log"
}

declare -A seen
check_page() {  # check_page <name> <query> <console line regex>...
  local name=$1 query=$2; shift 2
  open_page "$name" "$query"
  local missing=""
  for want in "$@"; do grep -qE "$want" "$work/$name.log" || missing="$missing '$want'"; done
  if [ -n "$missing" ]; then bad "$name: console lacks$missing; it has: $(head -c 600 "$work/$name.log")"; return; fi
  # (a missing file shows as "Failed to load resource")
  # ("Refused to" is a Content-Security-Policy violation: the policy must let the app run;
  # "icl-lab:" starts every message the app prints for the learner, e.g. a catalogue it
  # cannot read, which would leave ⟦key⟧ where its words belong)
  if grep -qiE "Uncaught|ICL Lab stopped|Aborted|Failed to load|Refused to|^icl-lab:" "$work/$name.log"; then
    bad "$name: errors on the console: $(grep -iE "Uncaught|stopped|Aborted|Failed to load|Refused to|^icl-lab:" "$work/$name.log" | head -3)"; return
  fi
  if [ ! -s "$work/$name.png" ]; then bad "$name: no screenshot"; return; fi
  local colours sum
  colours=$(convert "$work/$name.png" -format %k info:)
  if [ "$colours" -lt 64 ]; then bad "$name: the frame has only $colours colours"; return; fi
  sum=$(convert "$work/$name.png" rgba:- | md5sum | cut -d' ' -f1)
  if [ -n "${seen[$sum]:-}" ]; then bad "$name: same pixels as ${seen[$sum]}"; return; fi
  seen[$sum]=$name
  ok
}

check_page lesson-en "lesson=dual-form&lang=en" "^lesson dual-form en$" "^demo dual_form: done"
check_page lesson-ko "lesson=dual-form&lang=ko" "^lesson dual-form ko$" "^demo adam: done"
check_page training "demo=lsa_training&lang=en&run-demos" "^demo lsa_training: done, steps [1-9][0-9]*$"

# Progress survives a reload, in the lesson pages' format (a second page, Playwright).
if node tests/app/lab-progress.mjs "$site" >"$work/progress.log" 2>&1; then ok; else bad "progress over a reload: $(cat "$work/progress.log")"; fi
# A bad query (?lang=fr) shows the app's message on the page, not a blank page with the
# message only on the console; /lab (no slash) is redirected to /lab/.
dom=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile-fr" --use-gl=swiftshader --enable-unsafe-swiftshader \
  --virtual-time-budget=8000 --dump-dom "http://127.0.0.1:$port/lab/?lang=fr" 2>/dev/null)
if grep -q "icl-lab: no language 'fr' in the lessons folder" <<<"$dom"; then ok; else bad "lang=fr: the page does not show the app's message: $(grep -o '<div id="status"[^<]*' <<<"$dom")"; fi
location=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$port/lab?lesson=dual-form")
if [ "$location" = "301 http://127.0.0.1:$port/lab/?lesson=dual-form" ]; then ok; else bad "/lab: $location (expected a redirect to /lab/)"; fi

echo "lab: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
