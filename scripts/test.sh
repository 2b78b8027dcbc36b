#!/usr/bin/env bash
# `npm test`: the checks (lint, types, build, docs), then every test file.
#
# The test files that spend their time waiting out a real-time window the contract fixes (vitest's
# `waits` project, vitest.config.ts: the suite under ADR-027's failed-authentication throttle, four
# to five minutes of pacing) run in a vitest of their own, started with the checks: they hold no CPU,
# so they do not take one of the two workers from the files that do.
set -u
vitest run --project waits &
waits=$!
npm run checks && vitest run --project default --project isolated --project postgres --project postgres-2
rest=$?
# the checks or the other files failed: the run fails, nothing is left to wait for
[ $rest -eq 0 ] || kill $waits 2>/dev/null
wait $waits
waited=$?
[ $rest -eq 0 ] && [ $waited -eq 0 ]
