#!/bin/sh
# Runs a command that must fail with exit status $1. Prints "STATUS MISMATCH" when
# it does not (ctest's FAIL_REGULAR_EXPRESSION), because PASS_REGULAR_EXPRESSION,
# which checks that the message names the problem, ignores the exit status.
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "STATUS MISMATCH: exit status $got, expected $want"
  exit 1
fi
