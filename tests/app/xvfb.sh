# Sourced by the suites that run the desktop app (tests/app/run.sh, tests/install/run.sh):
#   start_xvfb <work dir>
# starts Xvfb on a free display (no lock file and no socket), exports DISPLAY, and on
# exit stops it and removes the work dir.
start_xvfb() {
  local dir=$1
  display=99
  while [ -e /tmp/.X$display-lock ] || [ -e /tmp/.X11-unix/X$display ]; do display=$((display + 1)); done
  Xvfb :$display -screen 0 1280x800x24 -nolisten tcp >"$dir/xvfb.log" 2>&1 &
  xvfb_pid=$!
  # shellcheck disable=SC2064  # the pid and the folder are fixed now
  trap "kill $xvfb_pid 2>/dev/null; wait $xvfb_pid 2>/dev/null; rm -rf '$dir'" EXIT
  for _ in $(seq 50); do [ -e /tmp/.X11-unix/X$display ] && break; sleep 0.1; done
  export DISPLAY=:$display
}
