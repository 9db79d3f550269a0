# Every test suite as a ctest test, registered in the build tree that builds what it
# tests (included from the top CMakeLists.txt). See docs/guide.md, "Tests".
set(ICL_NATIVE_SHARDS 2 CACHE STRING "ctest runs the native unit tests in this many shards, side by side")
set(ICL_ASAN_SHARDS 8 CACHE STRING "ctest runs the ASan unit tests in this many shards, side by side")
set(ICL_WASM_SHARDS 2 CACHE STRING "ctest runs the wasm unit tests in this many shards, side by side")
set(ICL_NATIVE_BIN_DIR ${CMAKE_SOURCE_DIR}/build/bin CACHE PATH "the native icl the browser suites build their fixtures with")
set(ICL_SITE_DIR ${CMAKE_SOURCE_DIR}/build/site CACHE PATH "the site the browser suites serve (scripts/build site)")
set(ICL_SRC ${CMAKE_SOURCE_DIR})

# icl_add_suite(<name> LABELS <label...> [SERIAL] COMMAND <command...>)
function(icl_add_suite name)
  cmake_parse_arguments(S "SERIAL" "" "LABELS;COMMAND;ENVIRONMENT" ${ARGN})
  add_test(NAME ${name} COMMAND ${S_COMMAND} WORKING_DIRECTORY ${ICL_SRC})
  set_tests_properties(${name} PROPERTIES LABELS "${S_LABELS}")
  if(S_SERIAL)
    set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
  endif()
  if(S_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${S_ENVIRONMENT}")
  endif()
endfunction()

# A doctest binary in shards, so ctest -j runs them side by side.
function(icl_add_sharded name shards)
  cmake_parse_arguments(S "" "" "LABELS;COMMAND;ENVIRONMENT" ${ARGN})
  foreach(k RANGE 1 ${shards})
    icl_add_suite(${name}-${k} LABELS ${S_LABELS} ENVIRONMENT ${S_ENVIRONMENT}
                  COMMAND ${ICL_SRC}/tests/unit/shard.sh ${k} ${shards} ${S_COMMAND})
  endforeach()
endfunction()

# A browser suite: its project in tests/browser/playwright.config.mjs (@playwright/test,
# Debian's Chromium), handed the site, the native binaries and the wasm core.
# PW_DISABLE_TS_ESM: the specs are plain JavaScript modules, loaded by node as they are
# (without it the runner and its worker each start a module loader that rewrites them).
function(icl_add_browser_suite name)
  cmake_parse_arguments(S "SERIAL" "" "LABELS" ${ARGN})
  set(serial)
  if(S_SERIAL)
    set(serial SERIAL)
  endif()
  icl_add_suite(${name} LABELS ${S_LABELS} ${serial}
                ENVIRONMENT PW_DISABLE_TS_ESM=1 ICL_SITE=${ICL_SITE_DIR} ICL_BIN=${ICL_NATIVE_BIN_DIR} ICL_WASM=$<TARGET_FILE_DIR:icl_core_wasm>
                COMMAND ${ICL_SRC}/web/node_modules/.bin/playwright test -c tests/browser/playwright.config.mjs --project ${name})
endfunction()

if(ICL_WASM)
  icl_add_sharded(unit-wasm ${ICL_WASM_SHARDS} LABELS unit wasm
                  COMMAND node tests/run-wasm-tests.mjs $<TARGET_FILE_DIR:icl_tests>/icl_tests.js)
  icl_add_browser_suite(browser LABELS browser SERIAL)
  icl_add_browser_suite(browser-hostile LABELS browser)
  # The two training-data labs on a lesson page of their own (a fixture), in short runs:
  # numbers and headline drawn, exports equal the core's Result, every knob in the link.
  icl_add_browser_suite(browser-lab-runs LABELS browser)
  # Accessibility: axe-core (WCAG 2.1 AA) on every page kind, charts' text alternatives and
  # contrast, reduced motion, a lab and a check worked by keyboard alone.
  icl_add_browser_suite(browser-a11y LABELS browser)
  icl_add_suite(app-browser LABELS app browser COMMAND ${ICL_SRC}/tests/app/lab.sh ${ICL_SITE_DIR})
  # The site as a SCORM package in a platform stand-in (scorm-again), and the xAPI
  # statements sent to an LRS stand-in; both servers on 127.0.0.1, started by the suite.
  icl_add_browser_suite(browser-scorm LABELS browser)
  icl_add_browser_suite(browser-xapi LABELS browser)
  # Every lab with a text or number field: typed, then Run; the typed setup's result, and
  # an error that does not pass the old result off as its own.
  icl_add_browser_suite(browser-labs LABELS browser)
  # Every lesson page, both languages: nothing of a hide=result predict check's answer shows
  # above it before the learner answers or presses Run; Run and the answers show it.
  icl_add_browser_suite(browser-predictions LABELS browser)
  # A language is a folder: a pseudo-locale made at test time goes through the lint, the
  # CLI, a site build, a page in Chromium and the desktop app.
  icl_add_browser_suite(pseudo-locale LABELS browser)
  # The authors' watch mode (scripts/serve --watch): save -> reload within a second, lint
  # errors in the page. SERIAL: it times the reload.
  icl_add_browser_suite(browser-watch LABELS browser SERIAL)
elseif(ICL_SANITIZE OR ICL_FUZZ)
  # One sanitizer tree (the asan preset) holds both: ctest --preset asan / --preset fuzz
  # pick them by label.
  if(ICL_SANITIZE)
    icl_add_sharded(unit-asan ${ICL_ASAN_SHARDS} LABELS unit asan ENVIRONMENT ASAN_OPTIONS=detect_leaks=1
                    COMMAND $<TARGET_FILE:icl_tests>)
  endif()
  if(ICL_FUZZ)
    foreach(target ${ICL_FUZZ_TARGETS})
      icl_add_suite(${target} LABELS fuzz COMMAND ${ICL_SRC}/tests/fuzz/run.sh --bin $<TARGET_FILE_DIR:${target}> ${target})
    endforeach()
    # web/serve.mjs under random requests (a node script; run.sh knows it).
    icl_add_suite(fuzz_serve LABELS fuzz COMMAND ${ICL_SRC}/tests/fuzz/run.sh --bin ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} fuzz_serve)
  endif()
else()
  icl_add_sharded(unit-native ${ICL_NATIVE_SHARDS} LABELS unit quick COMMAND $<TARGET_FILE:icl_tests>)
  icl_add_suite(unit-one-unit LABELS unit quick COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target icl_tests_one_unit)
  icl_add_suite(cli LABELS cli quick COMMAND ${ICL_SRC}/tests/cli/run.sh $<TARGET_FILE:icl>)
  icl_add_suite(server LABELS server COMMAND node tests/server/run.mjs)
  icl_add_suite(lessons-lint LABELS lessons COMMAND $<TARGET_FILE:icl> lessons check --run-demos)
  icl_add_suite(lessons-predict LABELS lessons COMMAND node tests/lessons/predict-ranges.mjs $<TARGET_FILE:icl>)
  # README.md and docs/*.md: relative links resolve, no tracker numbers, a short README;
  # source comments tell no measurement stories.
  icl_add_suite(docs LABELS docs quick COMMAND node tests/docs/check.mjs)
  # ESLint over every JavaScript file (eslint.config.mjs at the root says which rules).
  icl_add_suite(eslint LABELS docs quick COMMAND web/node_modules/.bin/eslint --max-warnings 0 .)
  # The page's words with placeholders are called with exactly their named values.
  icl_add_suite(web-words LABELS docs quick COMMAND node tests/web/words.mjs)
  # The page's number display follows the core's display rule, case by case of its unit test.
  icl_add_suite(web-display LABELS docs quick COMMAND node tests/web/display.mjs)
  # The JS slice rule (the page's worker, the node scripts) follows the C++ one, case by case.
  icl_add_suite(web-run-slices LABELS docs quick COMMAND node tests/web/run-slices.mjs)
  icl_add_suite(setup-packages LABELS setup quick COMMAND python3 ${ICL_SRC}/tests/setup/check-packages.py)
  icl_add_suite(install LABELS install quick COMMAND ${ICL_SRC}/tests/install/run.sh ${CMAKE_BINARY_DIR})
  if(ICL_BUILD_APP)
    icl_add_suite(app LABELS app SERIAL COMMAND ${ICL_SRC}/tests/app/run.sh $<TARGET_FILE_DIR:icl-lab>)
  endif()
endif()
