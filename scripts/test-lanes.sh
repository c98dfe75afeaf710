#!/usr/bin/env bash
# `make test`'s tests, once everything is built, in two lanes at once: every crate's tests (`cargo
# test --workspace`, one build's feature set) in one; the fuzzer, then the browser, in the other,
# on a DynamoDB Local of their own (the next port) so that their traffic does not queue behind the
# tests' in one JVM. The tests mostly wait on DynamoDB Local, the stack and the stream pollers: one
# lane alone kept about 0.7 of this machine's two cores busy. The second lane's output is kept and
# printed after the first's.
#
#   AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8001 scripts/test-lanes.sh   (DynamoDB Local there)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

endpoint=${AWS_ENDPOINT_URL_DYNAMODB:?set AWS_ENDPOINT_URL_DYNAMODB to DynamoDB Local}
side_port=$((${endpoint##*:} + 1))
side_endpoint=http://127.0.0.1:$side_port
mkdir -p .local
side=.local/test-second-lane.log

scripts/dynamodb-local.sh start "$side_port" || exit 1
(
    status=0
    scripts/fuzz.sh "$side_endpoint" || status=1
    scripts/browser.sh "$side_endpoint" || status=1
    exit $status
) >"$side" 2>&1 &
second=$!
trap 'kill $second 2>/dev/null; scripts/dynamodb-local.sh stop "$side_port"' EXIT

status=0
cargo test --workspace --no-fail-fast || status=1
wait $second || status=1

echo
echo "=== the second lane (the fuzzer, the browser): $side"
cat "$side"
[ $status -eq 0 ] || echo "make test: FAILED (look for FAILED, panicked and fuzz: above)" >&2
exit $status
