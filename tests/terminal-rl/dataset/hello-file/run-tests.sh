#!/bin/bash
# Prints a pytest-like short summary: PASSED or FAILED per check (tests/checks.txt, one check a line).
while read -r name check; do
  if bash -c "$check" >/dev/null 2>&1; then echo "PASSED $name"; else echo "FAILED $name"; fi
done < "$TEST_DIR/checks.txt"
