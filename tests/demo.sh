#!/usr/bin/env bash
# tests/demo.sh BIN -- `make demo`: runs the bundled example suite three
# times in this repository (results in .benchguard/results.db) and shows the
# history of two of its series.
set -eu
bin=${1:-build/release/benchguard}
cd "$(dirname "$0")/.."
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "make demo needs a git checkout of benchguard (it measures a commit)" >&2
	exit 2
fi
echo "\$ benchguard --config examples/benchguard.json run --runs 3"
"$bin" --config examples/benchguard.json run --runs 3
echo
echo "\$ benchguard history sort/1M:wall_time --limit 6"
"$bin" history sort/1M:wall_time --limit 6
echo
echo "\$ benchguard history hash/8M:fnv1a_throughput --limit 6"
"$bin" history hash/8M:fnv1a_throughput --limit 6
