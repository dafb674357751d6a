#!/usr/bin/env bash
# Runs coredata-bench's PostgreSQL workloads (raw postgres-nio against OpenCoreData's
# PostgreSQL store) on a throwaway server: initdb into a temporary folder, postgres on a Unix
# socket, stopped and removed at the end. As root, the server runs as the `postgres` user
# (initdb refuses root). Extra arguments go to coredata-bench (--scale, --runs, --only).
#
#   scripts/bench-postgres.sh --runs 5
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
dir=$(mktemp -d /tmp/ocd-bench-pg.XXXXXX)
as=()
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; as=(runuser -u postgres --); fi
"${as[@]}" "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
stop() { "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap stop EXIT
# Durable commits (fsync on, synchronous_commit on), as a production server runs.
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -o "-k $dir -c listen_addresses= -p 54330" -l "$dir/server.log" -w start >/dev/null
swift build -c release --product coredata-bench >/dev/null
.build/release/coredata-bench --engines raw-pg,OpenCoreData-pg --postgres "postgres://postgres@:54330/postgres?host=$dir" "$@"
