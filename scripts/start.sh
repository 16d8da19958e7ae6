#!/bin/sh
# npm start, and deploy/agent-gate.service: the production server (dist/server.mjs, built by npm run build) with a
# V8 heap sized from the memory this process is given (a cgroup limit, else a default: lib/startup/heap.ts). An
# operator's own --max-old-space-size or --max-semi-space-size in NODE_OPTIONS wins. `exec`: the server keeps this
# process id, so a supervisor's signals reach it directly.
set -eu
cd "$(dirname "$0")/.."
export NODE_ENV=production
# glibc gives each thread that mallocs an arena of its own (up to 8 per core): two keep the resident set small.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
HEAP_FLAGS="$(node dist/heap-flags.mjs)"
# No --enable-source-maps, as `next start` has none: Node would parse and keep the map (and the source it embeds) of
# every chunk it loads, about 100 MB more resident (DEVELOPING.md, "Memory"). An operator who wants logged stacks to
# name source lines sets NODE_OPTIONS=--enable-source-maps.
# Arguments go to the server: only the tests' own options (`--test-…`, lib/config/test-options.ts; refused in production).
# shellcheck disable=SC2086 # the flags are separate words
exec node $HEAP_FLAGS dist/server.mjs "$@"
