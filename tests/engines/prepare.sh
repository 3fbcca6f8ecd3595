#!/usr/bin/env bash
# `npm run test:engines`, first step: the real engines' virtual environments under .cache/ (ignored by git), each from
# its pinned lock in tests/engines/requirements/ (every package pinned; sglang itself without its GPU dependencies),
# made with Debian's python3 -m venv, never touching the system Python's packages. A venv whose lock is unchanged is kept.
set -euo pipefail
cd "$(dirname "$0")/../.."

make_venv() {
  local name=$1 lock=tests/engines/requirements/$1.txt venv=.cache/venv-$1 stamp
  stamp=$(sha256sum "$lock" | cut -c1-16)
  if [ -f "$venv/.lock-stamp" ] && [ "$(cat "$venv/.lock-stamp")" = "$stamp" ]; then
    echo "engines: $venv is up to date"
    return
  fi
  echo "engines: making $venv from $lock"
  local started=$SECONDS
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  # --no-deps: the lock is complete (pip freeze of a venv whose imports the tests exercise); sglang's own requirements
  # (CUDA kernels, flashinfer, …) are what its parsers and tokenizer loader never import
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$lock"
  echo "$stamp" > "$venv/.lock-stamp"
  echo "engines: $venv made in $((SECONDS - started)) s"
}

mkdir -p .cache
make_venv sglang-0.5.7
make_venv sglang-0.5.15.post1
make_venv ray
