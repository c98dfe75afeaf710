#!/usr/bin/env bash
# `make fuzz`: schemathesis (an outside fuzzer) against the local stack, every operation of
# openapi.yaml, signed in as a customer and as staff (tests/fuzz/hooks.py). It fails on any server
# error, any status openapi.yaml does not list for the operation, and any answer that does not match
# the documented schema or content type. Prints how many requests the stack answered.
#
#   scripts/fuzz.sh DDB_ENDPOINT     (DynamoDB Local running there; binaries built: cargo build --bins)
#
# FUZZ_EXAMPLES (default 60) cases per operation and phase; FUZZ_SEED (default 1) repeats a run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

endpoint=${1:?usage: $0 DDB_ENDPOINT}
examples=${FUZZ_EXAMPLES:-60}
seed=${FUZZ_SEED:-1}
log=.local/fuzz-stack.log
. scripts/stack.sh
start_stack "$endpoint" "$log" fuzz

export FUZZ_OWNER=fuzz-customer
FUZZ_OWNER_TOKEN=$(target/debug/token --sub "$FUZZ_OWNER" --issuer-dir "$work/issuer")
FUZZ_STAFF_TOKEN=$(target/debug/token --sub fuzz-staff --groups staff --issuer-dir "$work/issuer")
export FUZZ_OWNER_TOKEN FUZZ_STAFF_TOKEN
export SCHEMATHESIS_HOOKS=tests/fuzz/hooks.py

# What the routes need to exist before they reach their core (the hooks send these ids): the
# customer and user, seed 001's course day and a certificate, the books of hooks.py's ISBNs, and
# hooks.py's org (region, country, location, department, warehouse, employee E100 with a job).
# Operations run in any order.
api() {
    curl -sf -o /dev/null -X "$1" -H "authorization: Bearer $2" "http://127.0.0.1:$port$3" ${4:+-d "$4"} ||
        { echo "fuzz: setting up $1 $3 failed" >&2; exit 1; }
}
api PUT "$FUZZ_OWNER_TOKEN" "/customers/$FUZZ_OWNER" '{"name":"Fuzz","email":"fuzz@example.com"}'
api PUT "$FUZZ_OWNER_TOKEN" "/users/$FUZZ_OWNER"
api POST "$FUZZ_STAFF_TOKEN" /courses '{"courseName":"Intro to DynamoDB","startDate":"2022-03-15","location":"Building 1","courseType":"DevChat"}'
api POST "$FUZZ_STAFF_TOKEN" /certificates '{"courseName":"Intro to DynamoDB","date":"2022-03-15","location":"Building 1","student":"David Spurdy","certType":"Completion","instructor":"Tyler Walch"}'
api PUT "$FUZZ_STAFF_TOKEN" /regions/EU '{"name":"Europe"}'
api PUT "$FUZZ_STAFF_TOKEN" /countries/DE '{"name":"Germany","regionId":"EU"}'
api PUT "$FUZZ_STAFF_TOKEN" /locations/BER '{"name":"Berlin","countryId":"DE"}'
api PUT "$FUZZ_STAFF_TOKEN" /departments/SALES '{"name":"Sales","locationId":"BER"}'
api PUT "$FUZZ_STAFF_TOKEN" /warehouses/W1 '{"name":"Spandau","regionId":"EU"}'
# hooks.py's product (most /products paths name it), priced (orders take the catalogue's
# price), stocked in W1.
api PUT "$FUZZ_STAFF_TOKEN" /products/42 '{"name":"Ground coffee, 500 g","price":799,"currency":"USD"}'
api PUT "$FUZZ_STAFF_TOKEN" /products/42/inventory/W1 '{"quantity":120}'
api PUT "$FUZZ_STAFF_TOKEN" /employees/E100 '{"name":"Ada Lovelace","hireDate":"2024-01-15","warehouseId":"W1"}'
api PUT "$FUZZ_STAFF_TOKEN" /jobs/SA_REP '{"title":"Sales Representative"}'
api POST "$FUZZ_STAFF_TOKEN" /employees/E100/jobs '{"jobId":"SA_REP","departmentId":"SALES","startDate":"2025-03-01"}'
# E100 looks after the fuzzing customer (staff alone assign reps): the rep routes list something.
api PUT "$FUZZ_STAFF_TOKEN" "/customers/$FUZZ_OWNER" '{"name":"Fuzz","email":"fuzz@example.com","accountRepId":"E100"}'
# The order hooks.py points /orders/{orderId} paths at (C5, C6), placed for the fuzzing customer.
FUZZ_ORDER=$(curl -sf -X POST -H "authorization: Bearer $FUZZ_OWNER_TOKEN" -H "Idempotency-Key: fuzz-order" \
    "http://127.0.0.1:$port/customers/$FUZZ_OWNER/orders" -d '{"items":[{"sku":42,"quantity":1}]}' |
    .venv/bin/python -c 'import json, sys; print(json.load(sys.stdin)["orderId"])')
export FUZZ_ORDER
# The books hooks.py points /books paths at (an assignment, so a failing import stops the run).
isbns=$(.venv/bin/python -c 'import sys; sys.path.insert(0, "tests/fuzz"); import os; os.environ.update(FUZZ_OWNER="", FUZZ_OWNER_TOKEN="", FUZZ_STAFF_TOKEN="", FUZZ_ORDER=""); import hooks; print(*hooks.ISBNS)')
for isbn in $isbns; do
    api PUT "$FUZZ_STAFF_TOKEN" "/books/$isbn" '{"title":"Fuzz","author":"Fuzz","publicationYear":2000}'
done

status=0
.venv/bin/schemathesis run openapi.yaml --url "http://127.0.0.1:$port" \
    --checks not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance \
    --max-examples "$examples" --seed "$seed" --workers 2 \
    --generation-database none --no-color || status=$?

requests=$(grep -cE '^[A-Z]+ /[^ ]* -> ' "$log" || true)
echo "fuzz: the local stack answered $requests requests (log: $log)"
exit $status
