#!/usr/bin/env bash
# The concurrency suites under ThreadSanitizer, e.g. `scripts/tsan.sh` (or with another filter:
# `scripts/tsan.sh 'ContextQueue'`). Builds everything with TSan in its own scratch folder
# (.build-tsan), so the normal .build stays as it is. Exits non-zero when a test fails or TSan
# reports a race (TSan's reports make the test process fail: halt_on_error is not needed).
# Time: 324 s from scratch on a fresh clone of an idle 2-core machine (build and 61 tests); about
# 12 minutes when the machine is busy with other builds.
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-SharedEmptyStorageTests|ContextQueueTests|MainQueueContextTests|ContainerBackgroundTaskTests|ContextQueueStressTests|ConcurrencyDebugTests|ParentContextTests|MergePolicyTests|MergingChangesTests|SQLiteSharedStoreTests|SQLiteReaderPoolTests|QueryGenerationTests|RemoteChangeNotificationTests|UniquenessConstraintTests|PostgresConnectionBridgeTests|SQLiteRowCacheTests/anOlderReadCachedLastKeepsTheNewerRow}"
start=$(date +%s)
TSAN_OPTIONS="${TSAN_OPTIONS:-exitcode=66 second_deadlock_stack=1}" \
    swift test --sanitize=thread --scratch-path .build-tsan --filter "$filter"
echo "tsan.sh: passed in $(( $(date +%s) - start ))s"
