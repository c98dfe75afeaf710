#!/usr/bin/env bash
# `make test`'s run, once the tools are installed and the workspace is built: every test binary of
# the workspace against DynamoDB Local, the doc tests, the fuzzer and the browser.
#
# The end-to-end suite (the tests crate, more than half of the run) goes beside all the rest
# rather than before it: both spend most of their time waiting on DynamoDB Local and the local
# stacks, not on the cores. Each binary runs as `cargo test` runs it (in its package's folder);
# running them here, not through `cargo test -p`/`--exclude`, keeps the one build's features.
# The rest prints to .local/test-side.log as it goes, and here when it ends. Exit status 1 when
# anything failed.
#
#   scripts/test.sh DDB_ENDPOINT     (DynamoDB Local running there; `cargo build --workspace --all-targets` done)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

endpoint=${1:?usage: $0 DDB_ENDPOINT}
export AWS_ENDPOINT_URL_DYNAMODB=$endpoint RUST_TEST_THREADS=${RUST_TEST_THREADS:-6}
side_log=.local/test-side.log
mkdir -p .local

# Every test binary the build made: "package-folder<TAB>executable<TAB>what", the tests crate first.
binaries=$(cargo test --workspace --no-run --message-format=json | python3 -c '
import json, os, sys
rows = []
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        folder = os.path.dirname(m["manifest_path"])
        what = m["target"]["kind"][0] + " " + m["target"]["name"] + " of " + os.path.relpath(folder)
        rows.append((what != "lib tests of tests", folder, m["executable"], what))
for _, folder, exe, what in sorted(rows):
    print(folder, exe, what, sep="\t")
') || { echo "test: cargo could not list the test binaries" >&2; exit 1; }

run() { # folder executable what
    echo "     Running $3 ($2)"
    (cd "$1" && "$2")
}

end_to_end=$(head -n 1 <<<"$binaries")
rest=$(tail -n +2 <<<"$binaries")

(
    status=0
    while IFS=$'\t' read -r folder exe what; do
        run "$folder" "$exe" "$what" || { status=1; echo "test: FAILED: $what" >&2; }
    done <<<"$rest"
    cargo test --workspace --doc || status=1
    scripts/fuzz.sh "$endpoint" || status=1
    scripts/browser.sh "$endpoint" || status=1
    exit $status
) >"$side_log" 2>&1 &
side=$!

status=0
IFS=$'\t' read -r folder exe what <<<"$end_to_end"
[ "$what" = "lib tests of tests" ] || { echo "test: no end-to-end suite among the test binaries" >&2; kill $side; exit 1; }
run "$folder" "$exe" "$what" || status=1
wait $side || status=1

echo "---- the rest, beside it ($side_log) ----"
cat "$side_log"
grep -h "^test: FAILED" "$side_log" >&2
[ $status = 0 ] && echo "test: every test passed" || echo "test: FAILED (above)" >&2
exit $status
