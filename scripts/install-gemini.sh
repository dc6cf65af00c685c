#!/usr/bin/env bash
# Installs the pinned Gemini CLI used by the real-client tests (tests/e2e/gemini*.rs) into
# .e2e-cache/ (git-ignored) and prints the path of its entry script (a Node.js program;
# Node 20 or later must be on PATH to run it). Idempotent: a cache already holding the pinned
# version is reused without touching the network.
#
# Usage: scripts/install-gemini.sh            (prints the entry script's path)
# Env:   OATH_E2E_GEMINI_VERSION  the version to install (default: the pin below)
set -euo pipefail

version="${OATH_E2E_GEMINI_VERSION:-0.61.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="$root/.e2e-cache/gemini-cli-$version"
pkg="$cache/node_modules/@google/gemini-cli"
bin="$pkg/bundle/gemini.js"

installed_version() {
  # The package's own manifest: `gemini --version` starts the whole CLI.
  sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$pkg/package.json" 2>/dev/null | head -n 1
}

if [ -f "$bin" ] && [ "$(installed_version)" = "$version" ]; then
  echo "$bin"
  exit 0
fi

command -v npm >/dev/null || { echo "install-gemini.sh: npm is needed to install Gemini CLI" >&2; exit 1; }
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
[ "$node_major" -ge 20 ] || { echo "install-gemini.sh: Gemini CLI needs Node.js 20 or later" >&2; exit 1; }
mkdir -p "$cache"
cd "$cache"
[ -f package.json ] || echo '{"name":"oath-e2e-client","private":true}' > package.json
echo "install-gemini.sh: installing Gemini CLI $version from the npm registry into $cache" \
  "(a minute or more on a slow link)" >&2
npm install --no-audit --no-fund --loglevel=error --save-exact "@google/gemini-cli@$version" >&2
[ -f "$bin" ] && [ "$(installed_version)" = "$version" ] \
  || { echo "install-gemini.sh: $bin missing after install" >&2; exit 1; }
chmod +x "$bin"
echo "install-gemini.sh: installed Gemini CLI $(installed_version)" >&2
echo "$bin"
