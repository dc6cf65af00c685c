#!/usr/bin/env bash
# Installs the pinned Codex CLI used by the real-client tests (tests/e2e/codex*.rs) into
# .e2e-cache/ (git-ignored) and prints the path of its native binary. Idempotent: a cache
# already holding the pinned version is reused without touching the network.
#
# Usage: scripts/install-codex.sh             (prints the binary path)
# Env:   OATH_E2E_CODEX_VERSION  the version to install (default: the pin below)
set -euo pipefail

version="${OATH_E2E_CODEX_VERSION:-0.169.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="$root/.e2e-cache/codex-$version"
bin="$cache/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install-codex.sh: only linux-x64 is supported, not $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q " $version\$"; then
  echo "$bin"
  exit 0
fi

command -v npm >/dev/null || { echo "install-codex.sh: npm is needed to install Codex CLI" >&2; exit 1; }
mkdir -p "$cache"
cd "$cache"
[ -f package.json ] || echo '{"name":"oath-e2e-client","private":true}' > package.json
# The platform package (an npm alias of the same name at version `<v>-linux-x64`) carries the
# native binary, which is all the tests run.
echo "install-codex.sh: installing Codex CLI $version from the npm registry into $cache" \
  "(about 170 MB to download; a minute or more on a slow link)" >&2
npm install --no-audit --no-fund --loglevel=error --save-exact "@openai/codex@$version" >&2
if [ ! -x "$bin" ]; then
  # Optional dependencies can be skipped by npm's config; ask for the platform one directly.
  npm install --no-audit --no-fund --loglevel=error --save-exact \
    "@openai/codex-linux-x64@npm:@openai/codex@$version-linux-x64" >&2
fi
[ -x "$bin" ] || { echo "install-codex.sh: $bin missing after install" >&2; exit 1; }
"$bin" --version >&2
echo "$bin"
