#!/usr/bin/env bash
# `npm test`: the checks (lint, types, build, docs) and every test file.
#
# The build and the docs come first: test files read dist/ (the packed package, the served
# pages). Lint and the type check read the sources and write nothing, so they run beside the test
# files instead of before them: on the 2-core machine a single-threaded eslint left a core idle for
# a minute and a half while the test files waited for it.
#
# The test files that spend their time waiting out a real-time window the contract fixes (vitest's
# `waits` project, vitest.config.ts: the suite under ADR-027's failed-authentication throttle, four
# to five minutes of pacing; a receiver slower than the delivery timeout) run in a vitest of their
# own, started first: they hold little CPU, so they do not take one of the two workers from the
# files that do. They read no build output (they start before the build).
set -u
vitest run --project waits &
waits=$!
if ! { npm run build && npm run docs; }; then
  kill $waits 2>/dev/null
  exit 1
fi
npm run lint:code &
lint=$!
npm run typecheck &
types=$!
vitest run --project default --project isolated --project postgres --project postgres-2
rest=$?
wait $lint
linted=$?
wait $types
typed=$?
# a failure anywhere fails the run; nothing is left to wait for
[ $rest -eq 0 ] && [ $linted -eq 0 ] && [ $typed -eq 0 ] || kill $waits 2>/dev/null
wait $waits
waited=$?
[ $rest -eq 0 ] && [ $linted -eq 0 ] && [ $typed -eq 0 ] && [ $waited -eq 0 ]
