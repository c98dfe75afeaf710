"""schemathesis hooks for `make fuzz`: sign each generated request in as the caller its route
expects, most of the time, so the fuzzer reaches the handlers rather than the 404 every stranger
gets.

- Path parameters that name an owner (`customerId`, `cartId`, `username`) become the fuzzing
  customer's id for 7 generated values in 8; the eighth keeps what schemathesis generated, so
  strangers' requests (404) and malformed ids (400) are sent too.
- `isbn` becomes one of a few valid ISBNs in the same proportion, a learning path names seed
  001's course day (course, date, location, student), and an HR path the seed's org (employee
  E100, warehouse W1, ...); a rep path names E100 (`repId`); a product path product 42.
- The `authorization` header follows the operation's `x-access` (see openapi.yaml): the
  customer's token on owner and signed-in routes, staff's on staff routes, none on public ones;
  one request in 16 carries the other token, to exercise the 403/404 answers.

The choice is a digest of the generated values, not a coin, so a seeded run repeats exactly.
"""

import os
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
ORG = {"employeeId": "E100", "warehouseId": "W1", "regionId": "EU", "countryId": "DE", "locationId": "BER", "departmentId": "SALES", "repId": "E100"}
# The product scripts/fuzz.sh creates and stocks in W1: most /products paths name it.
PRODUCT = {"sku": 42}


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
    for name, value in (ORG | PRODUCT).items():
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
    who = other if _digest((case.path_parameters, case.body, case.query)) % 16 == 0 else expected
    headers = case.headers or {}
    headers["authorization"] = TOKENS[who]
    case.headers = headers
