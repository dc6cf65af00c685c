#!/usr/bin/env bash
# Installs the pinned Claude Code client used by the real-client tests (tests/e2e/) into
# .e2e-cache/ (git-ignored) and prints the path of its native binary. Idempotent: a cache
# already holding the pinned version is reused without touching the network.
#
# Usage: scripts/install-claude.sh            (prints the binary path)
# Env:   OATH_E2E_CLAUDE_VERSION  the version to install (default: the pin below)
set -euo pipefail

version="${OATH_E2E_CLAUDE_VERSION:-2.1.332}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="$root/.e2e-cache/claude-code-$version"
bin="$cache/node_modules/@anthropic-ai/claude-code-linux-x64/claude"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install-claude.sh: only linux-x64 is supported, not $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$version"; then
  echo "$bin"
  exit 0
fi

command -v npm >/dev/null || { echo "install-claude.sh: npm is needed to install Claude Code" >&2; exit 1; }
mkdir -p "$cache"
cd "$cache"
[ -f package.json ] || echo '{"name":"oath-e2e-client","private":true}' > package.json
# The postinstall may be skipped (no scripts as root); the platform package carries the
# native binary, which is all the tests run.
echo "install-claude.sh: installing Claude Code $version from the npm registry into $cache" \
  "(about 235 MB; a minute or more on a slow link)" >&2
npm install --no-audit --no-fund --loglevel=error --save-exact \
  "@anthropic-ai/claude-code@$version" >&2
if [ ! -x "$bin" ]; then
  # Optional dependencies can be skipped by npm's config; ask for the platform one directly.
  npm install --no-audit --no-fund --loglevel=error --save-exact \
    "@anthropic-ai/claude-code-linux-x64@$version" >&2
fi
[ -x "$bin" ] || { echo "install-claude.sh: $bin missing after install" >&2; exit 1; }
"$bin" --version >&2
echo "$bin"
