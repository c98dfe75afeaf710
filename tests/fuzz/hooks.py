"""schemathesis hooks for `make fuzz`: sign each generated request in as the caller its route
expects, most of the time, so the fuzzer reaches the handlers rather than the 404 every stranger
gets.

- Path parameters that name an owner (`customerId`, `cartId`, `username`) become the fuzzing
  customer's id for 7 generated values in 8; the eighth keeps what schemathesis generated, so
  strangers' requests (404) and malformed ids (400) are sent too.
- `isbn` becomes one of a few valid ISBNs in the same proportion, a learning path names seed
  001's course day (course, date, location, student), and an HR path the seed's org (employee
  E100, warehouse W1, ...); a rep path names E100 (`repId`); a product path product 42.
- `orderId` names the order scripts/fuzz.sh placed for the fuzzing customer, in the same
  proportion, so the order routes (C5, C6) reach an order.
- The `authorization` header follows the operation's `x-access` (see openapi.yaml): the
  customer's token on owner and signed-in routes, staff's on staff routes, none on public ones;
  every 16th request of an operation carries the other token, to exercise the 403/404 answers.

The parameter choices are a digest of the generated values, not a coin, so a seeded run repeats
them. The token is chosen by a count of each operation's requests instead: once the parameters are
mapped, every request to a route with one valid id looks alike, and a digest of them picked the
same token for all (GET /employees/E100 only ever went out with the customer's token).
"""

import collections
import os
import threading
import zlib

import schemathesis

OWNER = os.environ["FUZZ_OWNER"]
TOKENS = {
    "owner": "Bearer " + os.environ["FUZZ_OWNER_TOKEN"],
    "staff": "Bearer " + os.environ["FUZZ_STAFF_TOKEN"],
}
OWNER_PARAMS = ("customerId", "cartId", "username")
# Valid ISBNs (check digits right), in the forms a client may send: most generated ISBNs fail their
# check digit, which the handlers answer with a 400 before any DynamoDB request.
ISBNS = ("9780261102354", "0-261-10235-4", "978-0-261-10236-1", "0261102370")
# Seed 001's course day, which scripts/fuzz.sh creates: most learning paths name it.
COURSE_DAY = {"course": "Intro to DynamoDB", "date": "2022-03-15", "location": "Building 1", "student": "David Spurdy"}
# Seed 003's small org, which the seed loads: most HR paths name its records. E100 is also the
# fuzzing customer's account rep (scripts/fuzz.sh), so most rep paths name a rep with a customer.
ORG = {"employeeId": "E100", "warehouseId": "W1", "regionId": "EU", "countryId": "DE", "locationId": "BER", "departmentId": "SALES", "jobId": "SA_REP", "repId": "E100"}
# The product scripts/fuzz.sh creates and stocks in W1: most /products paths name it.
PRODUCT = {"sku": 42}
# The order scripts/fuzz.sh places: most /orders/{orderId} paths name it.
ORDER = {"orderId": os.environ["FUZZ_ORDER"]}

# Requests sent so far, by operation (schemathesis runs its workers as threads).
_sent = collections.Counter()
_sent_lock = threading.Lock()


def _digest(value) -> int:
    return zlib.crc32(repr(value).encode())


@schemathesis.hook
def map_path_parameters(context, path_parameters):
    if not path_parameters:
        return path_parameters
    if "course" in path_parameters and _digest(path_parameters) % 8 != 0:
        for name, value in COURSE_DAY.items():
            if name in path_parameters:
                path_parameters[name] = value
    for name, value in (ORG | PRODUCT | ORDER).items():
        if name in path_parameters and _digest(path_parameters[name]) % 8 != 0:
            path_parameters[name] = value
    for name in OWNER_PARAMS:
        if name in path_parameters and _digest(path_parameters[name]) % 8 != 0:
            path_parameters[name] = OWNER
    isbn = path_parameters.get("isbn")
    if isbn is not None and _digest(isbn) % 8 != 0:
        path_parameters["isbn"] = ISBNS[_digest(isbn) % len(ISBNS)]
    return path_parameters


@schemathesis.hook
def before_call(context, case, kwargs):
    access = case.operation.definition.raw.get("x-access", "signed-in")
    if access == "public":
        return
    expected = "staff" if access == "staff" else "owner"
    other = "owner" if expected == "staff" else "staff"
    with _sent_lock:
        n = _sent[case.operation.label]
        _sent[case.operation.label] += 1
    who = other if n % 16 == 15 else expected
    headers = case.headers or {}
    headers["authorization"] = TOKENS[who]
    case.headers = headers
