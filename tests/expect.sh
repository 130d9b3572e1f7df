#!/usr/bin/env bash
# Usage: expect.sh EXIT_CODE STDERR_REGEX COMMAND...
# Runs COMMAND; passes when it exits with EXIT_CODE and its stderr has exactly
# one line matching STDERR_REGEX (an error is printed once, by one rank).
# STDERR_REGEX "-" skips the stderr check.
set -u
want_code=$1 regex=$2
shift 2
err=$(mktemp) out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
timeout 120 "$@" >"$out" 2>"$err"
code=$?
fail=0
if [ "$code" != "$want_code" ]; then
  echo "expected exit $want_code, got $code"
  fail=1
fi
if [ "$regex" != "-" ]; then
  matches=$(grep -cE -- "$regex" "$err")
  if [ "$matches" != 1 ]; then
    echo "expected one stderr line matching /$regex/, got $matches"
    fail=1
  fi
fi
if [ $fail = 1 ]; then
  echo "--- command: $*"
  echo "--- stderr:"; head -c 4000 "$err"
  echo "--- stdout:"; head -c 2000 "$out"
fi
exit $fail
