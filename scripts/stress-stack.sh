#!/usr/bin/env bash
# `make test-stress`: the stack and both chaos test files, ITERATIONS times in a row (20 by default), while
# the rest of the suite runs beside them, so their processes, ports, schemas and streams meet other
# tests' at every step. One line per iteration (pass or FAIL, seconds, whether the rest of the suite
# was running); the logs go to .local/stress/. Exit 0 only when every iteration passed.
#
#   ITERATIONS=20       how many runs of the two files
#   SUITE_RUNS=0        how many times the rest of the suite runs beside them; 0: again and again until
#                       the last iteration ends (on a shared machine, 1 keeps the load to one suite)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ITERATIONS="${ITERATIONS:-20}"
SUITE_RUNS="${SUITE_RUNS:-0}"
FILES=(test/stack.int.test.ts test/chaos.int.test.ts test/chaos-replicas.int.test.ts)
OUT=.local/stress
mkdir -p "$OUT"
rm -f "$OUT"/iteration-*.log "$OUT"/suite-*.log

say() { printf 'stress: %s\n' "$*"; }

# The rest of the suite, in a process group of its own so it can be stopped whole; its runs are counted
# in $OUT/suite-runs, its results appended to $OUT/suite.txt.
suite_loop() {
  local run=0 status rest
  # Every other test file by name (vitest's --exclude reaches only the last project).
  rest="$(npx vitest list --filesOnly --json | node -e '
    const skip = new Set(process.argv.slice(1).map((f) => require("node:path").resolve(f)));
    const files = JSON.parse(require("node:fs").readFileSync(0, "utf8")).map((t) => t.file);
    console.log([...new Set(files)].filter((f) => !skip.has(f)).map((f) => require("node:path").relative(".", f)).join("\n"));
  ' "${FILES[@]}")"
  mapfile -t rest <<<"$rest"
  while ((SUITE_RUNS == 0 || run < SUITE_RUNS)); do
    run=$((run + 1))
    status=pass
    npx vitest run "${rest[@]}" >"$OUT/suite-$run.log" 2>&1 || status=FAIL
    # Its test count, or the first error when none ran (a global setup that failed).
    echo "suite run $run: $status ($(sed 's/\x1b\[[0-9;]*m//g' "$OUT/suite-$run.log" | grep -E '^ +Tests |^Error' | head -1 | xargs))" >>"$OUT/suite.txt"
  done
}
: >"$OUT/suite.txt"
set -m
suite_loop </dev/null &
SUITE_PID=$!
set +m
stop_suite() {
  if kill -0 "$SUITE_PID" 2>/dev/null; then kill -TERM -- "-$SUITE_PID" 2>/dev/null || true; fi
  wait "$SUITE_PID" 2>/dev/null || true
}
trap stop_suite EXIT

say "the rest of the suite runs beside the loop (pid $SUITE_PID, logs $OUT/suite-*.log)"
failed=0
running() { kill -0 "$SUITE_PID" 2>/dev/null; }
for ((i = 1; i <= ITERATIONS; i++)); do
  started=$SECONDS
  running && before=1 || before=0
  log="$OUT/iteration-$i.log"
  if npx vitest run "${FILES[@]}" >"$log" 2>&1; then
    result=pass
  else
    result=FAIL
    failed=$((failed + 1))
  fi
  if ((before)) && running; then
    beside="beside the rest of the suite"
  elif ((before)); then
    beside="the rest of the suite ended during it"
  else
    beside="alone: the rest of the suite had ended"
  fi
  say "iteration $i/$ITERATIONS: $result in $((SECONDS - started)) s, $beside ($log)"
  [[ $result == pass ]] || grep -E 'FAIL|AssertionError|Error:' "$log" | sed 's/\x1b\[[0-9;]*m//g' | head -5 | sed 's/^/    /'
done
stop_suite
trap - EXIT
sed 's/^/stress: /' "$OUT/suite.txt"
say "$((ITERATIONS - failed)) of $ITERATIONS iterations passed"
((failed == 0))
