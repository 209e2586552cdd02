#!/usr/bin/env bash
# `npm ci` that survives a flaky registry. The lockfile pins every version and integrity, so a package
# already in npm's cache needs no network (--prefer-offline: cached metadata is used without asking the
# registry again); what must come from the registry is retried per request by npm (.npmrc fetch-retries)
# and, when a response dies mid-body (EIDLETIMEOUT, ECONNRESET: npm does not retry those), the whole
# install is run again after a pause. An install that fails for any other reason fails the same way
# each time, so the attempts are few.
set -uo pipefail
attempts="${MDP_INSTALL_ATTEMPTS:-3}"
pause="${MDP_INSTALL_PAUSE_S:-10}"
[[ "$attempts" =~ ^[1-9][0-9]?$ ]] || { echo "install: MDP_INSTALL_ATTEMPTS must be a whole number from 1 to 99 (got \"$attempts\")" >&2; exit 2; }
[[ "$pause" =~ ^[0-9]{1,3}$ ]] || { echo "install: MDP_INSTALL_PAUSE_S must be a whole number of seconds from 0 to 999 (got \"$pause\")" >&2; exit 2; }
for ((i = 1; i <= attempts; i++)); do
  log="$(mktemp)"
  npm ci --prefer-offline </dev/null 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  if [[ $rc -eq 0 ]]; then rm -f "$log"; exit 0; fi
  if ! grep -Eq 'EIDLETIMEOUT|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|ECONNREFUSED|EPIPE|Invalid response body|socket hang up|network' "$log"; then
    rm -f "$log"
    echo "install: npm ci failed (exit $rc), not on the network; not retried" >&2
    exit "$rc"
  fi
  rm -f "$log"
  if ((i < attempts)); then
    echo "install: npm ci failed on the network (attempt $i of $attempts); again in ${pause} s" >&2
    sleep "$pause"
    pause=$((pause * 3))
  fi
done
echo "install: npm ci failed on the network $attempts times; the registry (or the way to it) is down" >&2
exit 1
