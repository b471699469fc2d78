#!/usr/bin/env bash
# Recaps a failed `deno task ok` from its saved output (the file in $1):
# each test run's FAILURES list, or, when no test failed (fmt, lint, check,
# a crash), the last lines. CI shows only the tail of its log, where the
# Windows lane's output would otherwise hide what failed.
set -uo pipefail
log=$1
plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
failures=$(printf '%s\n' "$plain" | awk '
  / FAILURES *$/ { on = 1; next }
  on && /^(FAILED|ok) \|/ { print; on = 0; next }
  on && NF { print }
')
# The first lines of each ERRORS section: what the assertions said.
errors=$(printf '%s\n' "$plain" | awk '
  / ERRORS *$/ { on = 1; next }
  on && / FAILURES *$/ { on = 0; next }
  on && NF { print substr($0, 1, 300) }
' | head -n 40)
echo "--- recap: what failed in deno task ok ---"
if [ -n "$failures" ]; then
  printf '%s\n' "$errors"
  echo "--- failed tests ---"
  printf '%s\n' "$failures"
else
  printf '%s\n' "$plain" | tail -n 25
fi
echo "--- end of recap ---"
