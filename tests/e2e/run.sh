#!/usr/bin/env bash
# `npm run test:e2e`: install the e2e tools (network), then run the end-to-end suite in a loopback-only
# network namespace where `unshare -n` is available, proving nothing in it needs the network.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tests/e2e/prepare.sh
if unshare -n -- true 2>/dev/null; then
  echo "e2e: running inside a loopback-only network namespace (unshare -n)"
  exec unshare -n -- bash -c 'ip link set lo up 2>/dev/null || true; export OPENCLAW_RL_E2E_NETNS=1; exec npx vitest run --config vitest.e2e.config.ts'
fi
echo "e2e: unshare -n unavailable here; running on the host's loopback"
exec npx vitest run --config vitest.e2e.config.ts
