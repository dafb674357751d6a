#!/usr/bin/env bash
# Line coverage of one source folder, e.g. `scripts/coverage.sh Sources/OpenCoreData/Query`.
# Runs the test suite with coverage enabled, then summarises the folder's files with llvm-cov.
set -euo pipefail
cd "$(dirname "$0")/.."
folder="${1:-Sources/OpenCoreData/Query}"
swift test --enable-code-coverage >/dev/null
bin_dir=$(swift build --show-bin-path)
profdata="$bin_dir/codecov/default.profdata"
objects=$(find "$bin_dir" -maxdepth 1 -name "*.xctest" | head -1)
"$(dirname "$(readlink -f "$(command -v swift)")")/llvm-cov" report "$objects" -instr-profile "$profdata" $(find "$folder" -name '*.swift' | sort)
