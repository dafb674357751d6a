#!/usr/bin/env bash
# Instructions executed by coredata-bench's W1 (insert), W2 (fetch), W3 (queries), W4 (prefetch), W5 (batched walk) and W9 (batch insert) through raw SQLite and
# through OpenCoreData, counted by valgrind's callgrind: a measure that does not depend on the
# machine's load, for comparing commits. E.g. `scripts/bench-callgrind.sh` (scale 0.1: W1 inserts
# 5,000 items, W2 reads 20,000) or `SCALE=0.02 scripts/bench-callgrind.sh`.
#
# Builds coredata-bench in release, then runs it under callgrind once per workload and engine
# (`--only W1 --engines raw`, …) with `--toggle-collect` on that engine's timed function
# (`RawWorkloads.w1InsertTimed`, `OpenCoreDataWorkloads.w2FetchAllTimed`, …): only instructions
# executed inside it, callees included, are counted, so opening the store and building the data
# set are left out. The symbols are looked up by their demangled names, exactly, because a
# pattern like '*w1InsertTimed*' would also match the closures inside the function, and entering
# one would toggle collection off. Callgrind counts per thread: the timed functions run their
# work on the calling thread (a private-queue context's `performAndWait` on an idle queue runs
# the block there).
#
# W3's raw queries, W4's raw join and W5's raw walk have no separate timed function: their whole
# function is counted, which includes opening the database (a few hundred thousand instructions).
#
# Prints: workload, raw Ir, OpenCoreData Ir, ratio. The callgrind files stay in the folder it
# names (for `callgrind_annotate`). Time: about 3 minutes after the build at scale 0.1.
# `ONLY=W9` (or `W1,W2`) counts only those workloads; `ONLY=W8a,W8b` compares W8's typed access
# with W1 and W2's key-value access (W8 runs only when named).
set -euo pipefail
cd "$(dirname "$0")/.."
scale="${SCALE:-0.1}"
command -v valgrind >/dev/null || { echo "bench-callgrind.sh: valgrind is not installed" >&2; exit 1; }

swift build -c release --product coredata-bench >&2
out="$(mktemp -d "${TMPDIR:-/tmp}/bench-callgrind.XXXXXX")"
# A copy without DWARF: Debian's valgrind 3.19 gives up on the DWARF 5 forms Swift 6.3 writes
# ("unhandled dwarf2 abbrev form code 0x25"). The symbol table stays, so the counts by function
# and `--toggle-collect` work as before; only line numbers are lost.
bin="$out/coredata-bench"
cp "$(swift build -c release --show-bin-path)/coredata-bench" "$bin"
objcopy --strip-debug "$bin"

# The mangled name of `static coredata_bench.<type>.<function>(…)`: the function itself, or, when
# the optimizer replaced it by one (e.g. dropping the unused metatype argument), its function
# signature specialization; never a closure, thunk or generic specialization inside it.
symbol() {
    local type="$1" function="$2" candidate exact="" specialized=()
    while read -r candidate; do
        case "$(swift demangle --compact "$candidate")" in
            "static coredata_bench.$type.$function("*) exact="$candidate" ;;
            "function signature specialization <"*"> of static coredata_bench.$type.$function("*) specialized+=("$candidate") ;;
        esac
    done < <(nm --defined-only "$bin" | awk '{ print $3 }' | grep -F "${#type}${type}O${#function}${function}" || true)
    if [[ -n "$exact" ]]; then
        echo "$exact"
    elif [[ ${#specialized[@]} -eq 1 ]]; then
        echo "${specialized[0]}"
    else
        echo "bench-callgrind.sh: ${#specialized[@]} candidate symbols for $type.$function in $bin" >&2
        return 1
    fi
}

# Instructions collected by one run: the events total of the callgrind file.
instructions() {
    local workload="$1" engine="$2" type="$3" function="$4" file symbol total
    file="$out/callgrind.$workload.$engine${5:+.$5}.out"
    symbol="$(symbol "$type" "$function")" || return 1
    # `--in-process`: W5 runs in the benchmark's own process, not in a child (valgrind can't
    # follow its spawn).
    valgrind --tool=callgrind --callgrind-out-file="$file" --toggle-collect="$symbol" \
        "$bin" --scale "$scale" --runs 1 --only "$workload" --engines "$engine" --in-process >"$out/$workload.$engine.log" 2>&1 \
        || { echo "bench-callgrind.sh: $workload $engine failed, see $out/$workload.$engine.log" >&2; return 1; }
    total="$(awk '/^(summary|totals):/ { print $2; exit }' "$file")"
    # Nothing collected means the toggle never fired: the symbol is not the one that ran.
    [[ "${total:-0}" -gt 0 ]] || { echo "bench-callgrind.sh: no instructions collected in $symbol ($workload $engine)" >&2; return 1; }
    echo "$total"
}

printf '%-9s %16s %16s %8s\n' workload "raw Ir" "OpenCoreData Ir" ratio
# Raw SQLite's W9 is W1's insert at W9's size.
for row in "W1 w1InsertTimed w1InsertTimed" "W2 w2FetchAllTimed w2FetchAllTimed" "W3 w3Query w3QueryTimed" "W4 w4Join w4PrefetchTimed" \
           "W5 w5Walk w5WalkTimed" "W9 w1InsertTimed w9BatchInsertTimed"; do
    read -r workload rawFunction function <<<"$row"
    [[ -z "${ONLY:-}" || ",$ONLY," == *",$workload,"* ]] || continue
    raw=$(instructions "$workload" raw RawWorkloads "$rawFunction") || exit 1
    ours=$(instructions "$workload" OpenCoreData OpenCoreDataWorkloads "$function") || exit 1
    awk -v w="$workload" -v r="$raw" -v o="$ours" 'BEGIN { printf "%-9s %16.0f %16.0f %7.1fx\n", w, r, o, o / r }'
done
# W8 is W1 and W2 through typed `@Managed` subclasses: compared with OpenCoreData's own W1 and W2
# (key-value access), not with raw SQLite.
for row in "W8a W1 w1InsertTimed w8InsertTimed" "W8b W2 w2FetchAllTimed w8FetchTimed"; do
    read -r label base baseFunction function <<<"$row"
    [[ -n "${ONLY:-}" && ",$ONLY," == *",$label,"* ]] || continue
    keyed=$(instructions "$base" OpenCoreData OpenCoreDataWorkloads "$baseFunction") || exit 1
    typed=$(instructions W8 OpenCoreData TypedWorkloads "$function" "$label") || exit 1
    awk -v w="$label" -v r="$keyed" -v o="$typed" 'BEGIN { printf "%-9s %16.0f %16.0f %7.2fx (typed against key-value)\n", w, r, o, o / r }'
done
echo "scale $scale; callgrind files in $out"
