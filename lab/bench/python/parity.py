"""Parity check: the Python peers answer as the Rust functions do, for the same table contents.

Each case sends one request to the Rust function over HTTP (the local stack) and the same
request, as an API Gateway HTTP API event built from events/*.json, to the Python handler called
in-process; their status, body (byte for byte) and the headers the functions set must be equal.
For C3, whose ids and timestamps are new each time, the bodies and the items written are compared
with those masked, and each side must replay the other's idempotent answer byte for byte.

  AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8012 \
  .local/bench-python/bin/python lab/bench/python/parity.py --stack http://127.0.0.1:3012 \
      --table bench-python --issuer-dir /tmp/issuer --cursor-key <the stack's CursorSigningKey>

The stack runs with `--no-streams` (derived counters must not change under the comparison) and
the template's OrderStatusShards (15 unless --shards says otherwise); the table holds `seed`'s
data. Prints one line per case and `N passed, N failed`; exits non-zero on a failure.

`--peer node` compares the Node + ElectroDB peers (lab/bench/node, their handlers called through
lab/bench/node/invoke.mjs) instead, with the same cases.
"""

import argparse
import copy
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
args.add_argument("--stack", required=True)
args.add_argument("--table", required=True)
args.add_argument("--issuer-dir", required=True)
args.add_argument("--cursor-key", required=True)
args.add_argument("--shards", default="15")
args.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "debug"))
args.add_argument("--peer", choices=("python", "node"), default="python")
opts = args.parse_args()

os.environ.update(
    TABLE_NAME=opts.table,
    ORDER_STATUS_SHARDS=opts.shards,
    CURSOR_SIGNING_KEY=opts.cursor_key,
    AWS_REGION=os.environ.get("AWS_REGION", "us-east-1"),
    AWS_ACCESS_KEY_ID=os.environ.get("AWS_ACCESS_KEY_ID", "local"),
    AWS_SECRET_ACCESS_KEY=os.environ.get("AWS_SECRET_ACCESS_KEY", "local"),
)
sys.path.insert(0, HERE)
import c1  # noqa: E402  (init: after the environment is set)
import c3  # noqa: E402
import o5  # noqa: E402

DDB = c1.DDB

if opts.peer == "node":
    class NodePeer:
        """A Node peer's handler, called in lab/bench/node/invoke.mjs (one process for all)."""

        process = None

        def __init__(self, name):
            self.name = name

        def handler(self, event, context):
            if NodePeer.process is None:
                NodePeer.process = subprocess.Popen(
                    ["node", os.path.join(ROOT, "lab", "bench", "node", "invoke.mjs")],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                )
            NodePeer.process.stdin.write(json.dumps({"handler": self.name, "event": event}) + "\n")
            NodePeer.process.stdin.flush()
            out = json.loads(NodePeer.process.stdout.readline())
            if "error" in out:
                raise RuntimeError(out["error"])
            return out

    c1, c3, o5 = NodePeer("c1"), NodePeer("c3"), NodePeer("o5")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name}\n      {detail}")


def token(sub, groups=None):
    cmd = [os.path.join(opts.bin_dir, "token"), "--sub", sub, "--issuer-dir", opts.issuer_dir]
    if groups:
        cmd += ["--groups", groups]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


def http(method, path, tok, body=None, headers=None):
    """The Rust function's answer: (status, headers lower-cased, body text)."""
    h = {"authorization": f"Bearer {tok}"} if tok else {}
    h.update(headers or {})
    data = body.encode("utf-8") if body is not None else None
    req = urllib.request.Request(opts.stack + path, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read().decode()


def sample(name):
    with open(os.path.join(ROOT, "events", f"{name}.json")) as f:
        return json.load(f)


def event(base, path, query, sub, path_params, staff=False, body=None, headers=None):
    """The sample event, adjusted to this request (as API Gateway would send it)."""
    ev = copy.deepcopy(base)
    raw_path = path
    ev["rawPath"] = ev["requestContext"]["http"]["path"] = raw_path
    ev["rawQueryString"] = urllib.parse.urlencode(query)
    if query:
        ev["queryStringParameters"] = dict(query)
    else:
        ev.pop("queryStringParameters", None)
    ev["pathParameters"] = path_params
    if path_params is None:
        ev.pop("pathParameters")
    claims = ev["requestContext"]["authorizer"]["jwt"]["claims"]
    if sub is None:
        del ev["requestContext"]["authorizer"]
    else:
        claims["sub"] = claims["username"] = sub
        if staff:
            claims["cognito:groups"] = "[staff]"
        else:
            claims.pop("cognito:groups", None)
    ev["headers"] = {k: v for k, v in ev["headers"].items() if k != "idempotency-key"}
    ev["headers"].update({k.lower(): v for k, v in (headers or {}).items()})
    if body is not None:
        ev["body"] = body
        ev["headers"]["content-length"] = str(len(body.encode()))
    return ev


HEADERS = ("content-type", "location", "idempotent-replayed", "x-derived-inconsistent", "retry-after")


def compare(name, rust, py, mask=None):
    status, headers, body = rust
    py_headers = {k.lower(): v for k, v in py.get("headers", {}).items()}
    r = (status, {k: headers.get(k) for k in HEADERS}, body)
    p = (py["statusCode"], {k: py_headers.get(k) for k in HEADERS}, py["body"])
    if mask:
        r, p = mask(r), mask(p)
    check(name, r == p, f"rust   {r}\n      {opts.peer:6} {p}")
    return r == p


def scan_all():
    items, start = [], None
    while True:
        kw = {"TableName": opts.table}
        if start:
            kw["ExclusiveStartKey"] = start
        out = DDB.scan(**kw)
        items += out["Items"]
        start = out.get("LastEvaluatedKey")
        if not start:
            return items


owner, other, staff = token("123"), token("456"), token("staff-1", "staff")
# Customer 456, without orders and without a rep, written by the Rust put-customer.
http("PUT", "/customers/456", other, '{"name":"Customer 456","email":"c456@example.com"}',
     {"content-type": "application/json"})

# Customers whose derived counters the stream pipeline would have set (and one drifted).
for cid, count, value in [("drift-ok", {"N": "7"}, {"N": "123456"}),
                          ("drift-bad", {"N": "-3"}, {"N": "1.5"})]:
    DDB.put_item(TableName=opts.table, Item={
        "PK": {"S": f"CUSTOMER#{cid}"}, "SK": {"S": "A"}, "Type": {"S": "Customer"},
        "CustomerId": {"S": cid}, "Name": {"S": "Zoë \"Drift\" ünïcode"}, "Email": {"S": "d@example.com"},
        "CreatedAt": {"S": "2021-01-01T00:00:00.000Z"}, "UpdatedAt": {"S": "2021-01-02T00:00:00.000Z"},
        "OrderCount": count, "LifetimeValue": value,
    })

# ---------------------------------------------------------------------------------------------
# C1

base = sample("get-customer")
for label, path_id, query, sub in [
    ("sample (orders=2)", "123", [("orders", "2")], "123"),
    ("default orders", "123", [], "123"),
    ("orders=100", "123", [("orders", "100")], "123"),
    ("orders=1", "123", [("orders", "1")], "123"),
    ("orders=+3", "123", [("orders", "+3")], "123"),
    ("orders= (empty: default)", "123", [("orders", "")], "123"),
    ("orders=0", "123", [("orders", "0")], "123"),
    ("orders=101", "123", [("orders", "101")], "123"),
    ("orders=-1", "123", [("orders", "-1")], "123"),
    ("orders=ten", "123", [("orders", "ten")], "123"),
    ("orders=4294967296", "123", [("orders", "4294967296")], "123"),
    ("another's customer (404)", "123", [], "456"),
    ("unknown customer (404)", "404", [], "404"),
    ("customer without orders", "456", [], "456"),
    ("bad id (400)", "a b", [], "a b"),
    ("id . (400: a URL cannot address it)", ".", [], "."),
    ("id .. (400)", "..", [], ".."),
    ("derived values as stored", "drift-ok", [], "drift-ok"),
    ("drifted derived values (null, named in a header)", "drift-bad", [], "drift-bad"),
]:
    tok = {"123": owner, "456": other, None: None}.get(sub) or (token(sub) if sub else None)
    qs = ("?" + urllib.parse.urlencode(query)) if query else ""
    rust = http("GET", f"/customers/{urllib.parse.quote(path_id)}{qs}", tok)
    py = c1.handler(event(base, f"/customers/{path_id}", query, sub, {"customerId": path_id}), None)
    compare(f"C1 {label}", rust, py)

# Without a token the gateway's JWT authorizer answers before any function runs; the handlers'
# own check (api::auth::signed_in_caller) is compared with its text instead.
py = c1.handler(event(base, "/customers/123", [], None, {"customerId": "123"}), None)
check("C1 no authorizer claims: api::auth's 401", (py["statusCode"], py["body"]) == (
    401, '{"code":"unauthorized","message":"Sign in: this route needs a bearer token."}'), py)

# ---------------------------------------------------------------------------------------------
# O5: every page of several walks, Rust's cursors and Python's (the same signing key) alike

base = sample("list-orders")


def o5_both(label, query, sub=("staff-1", True)):
    tok = staff if sub[1] else owner
    rust = http("GET", "/orders?" + urllib.parse.urlencode(query), tok)
    py = o5.handler(event(base, "/orders", query, sub[0], None, staff=sub[1]), None)
    compare(f"O5 {label}", rust, py)
    return rust, py


for label, query in [
    ("sample (OPEN, 2020-11-01..2020-12-31)", [("status", "OPEN"), ("from", "2020-11-01"), ("to", "2020-12-31")]),
    ("PROCESSING, open-ended (none: no stream projection)", [("status", "PROCESSING")]),
    ("OPEN, to=9999-12-31 only", [("status", "OPEN"), ("to", "9999-12-31"), ("limit", "50")]),
    ("OPEN 2026-Q3, limit=7", [("status", "OPEN"), ("from", "2026-07-01"), ("to", "2026-09-30"), ("limit", "7")]),
    ("OPEN, limit=100", [("status", "OPEN"), ("limit", "100")]),
]:
    query = list(query)
    pages = 0
    while True:
        rust, py = o5_both(f"{label} page {pages + 1}", query)
        pages += 1
        nxt = json.loads(rust[2]).get("nextCursor") if rust[0] == 200 else None
        if not nxt or pages >= 40:
            break
        query = [q for q in query if q[0] != "cursor"] + [("cursor", nxt)]
    print(f"      ({pages} pages)")

for label, query, sub in [
    ("no status (400)", [], ("staff-1", True)),
    ("status=open (400)", [("status", "open")], ("staff-1", True)),
    ("bad date (400)", [("status", "OPEN"), ("from", "2026-02-30")], ("staff-1", True)),
    ("from after to (400)", [("status", "OPEN"), ("from", "2026-02-03"), ("to", "2026-02-01")], ("staff-1", True)),
    ("before 1970 (400)", [("status", "OPEN"), ("from", "1969-12-31")], ("staff-1", True)),
    ("forged cursor (400)", [("status", "OPEN"), ("cursor", "forged")], ("staff-1", True)),
    ("limit=0 (400)", [("status", "OPEN"), ("limit", "0")], ("staff-1", True)),
    ("limit=abc (400)", [("status", "OPEN"), ("limit", "abc")], ("staff-1", True)),
    ("from=0000-02-29 (400)", [("status", "OPEN"), ("from", "0000-02-29")], ("staff-1", True)),
    ("from=2026-1-01 (400)", [("status", "OPEN"), ("from", "2026-1-01")], ("staff-1", True)),
    ("to before from, year 0 (400)", [("status", "OPEN"), ("to", "0000-01-01")], ("staff-1", True)),
    ("not staff (403)", [("status", "OPEN")], ("123", False)),
]:
    o5_both(label, query, sub)

# A cursor for other parameters, and a tampered one.
first = json.loads(o5_both("walk start", [("status", "OPEN"), ("limit", "3")])[0][2])["nextCursor"]
o5_both("cursor of another query (400)", [("status", "OPEN"), ("limit", "4"), ("cursor", first)])
key_id, payload, sig = first.split(".")
o5_both("tampered cursor (400)", [("status", "OPEN"), ("limit", "3"), ("cursor", f"{key_id}.{payload}.{sig[:-2]}AA")])
o5_both("legacy cursor (no key id)", [("status", "OPEN"), ("limit", "3"), ("cursor", f"{payload}.{sig}")])

# ---------------------------------------------------------------------------------------------
# C3

base = sample("place-order")
BODY = base["body"]
ULID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")
TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def masked(x):
    return TS.sub("<ts>", ULID.sub("<id>", json.dumps(x, sort_keys=True)))


def c3_both(label, customer, body, key=None, sub=None, rust_key=None, mask=True):
    sub = sub or customer
    tok = {"123": owner, "456": other}.get(sub) or token(sub)
    rh = {"content-type": "application/json"}
    if rust_key or key:
        rh["idempotency-key"] = rust_key or key
    rust = http("POST", f"/customers/{urllib.parse.quote(customer)}/orders", tok, body, rh)
    ph = {"idempotency-key": key} if key is not None else {}
    py = c3.handler(event(base, f"/customers/{customer}/orders", [], sub, {"customerId": customer},
                          body=body, headers=ph), None)
    compare(f"C3 {label}", rust, py, mask if callable(mask) else (masked if mask else None))
    return rust, py


def written(order_id, customer, key=None):
    """Every item an order wrote: summary, header, lines (and its idempotency record)."""
    items = [i for i in scan_all() if order_id in i["PK"]["S"] or order_id in i["SK"]["S"]]
    if key:
        items += [i for i in scan_all() if i["PK"]["S"] == f"IDEMPOTENCY#{customer}#{key}"]
    out = []
    for i in sorted(items, key=lambda i: (i["PK"]["S"].replace(order_id, ""), i["SK"]["S"].replace(order_id, ""))):
        m = {}
        for name, v in sorted(i.items()):
            (t, val), = v.items()
            if name in ("ExpiresAt",):
                val = "<expiry>"
            elif name in ("StatusShard",):
                val = "<shard>"
            elif name in ("GSI2PK",):
                val = re.sub(r"#\d\d$", "#<shard>", val)
            elif name in ("RequestHash",):
                pass
            else:
                val = TS.sub("<ts>", ULID.sub("<id>", val))
            m[name] = (t, val)
        out.append(m)
    return out


def shard_ok(order_id):
    header = DDB.get_item(TableName=opts.table, Key={"PK": {"S": f"ORDER#{order_id}"}, "SK": {"S": "A"}})["Item"]
    shard = sum(map(ord, order_id)) % int(opts.shards)
    return int(header["StatusShard"]["N"]) == shard and header["GSI2PK"]["S"] == "ORDERS#%02d" % shard


# New keys on every run (the table keeps the previous runs' records).
PY_KEY, RS_KEY = f"py-{os.urandom(4).hex()}", f"rs-{os.urandom(4).hex()}"
# Customer 123 has an account rep (E100): the summary goes to the rep's GSI1 partition.
rust, py = c3_both("sample body, customer with a rep, new keys", "123", BODY, key=PY_KEY, rust_key=RS_KEY)
rid, pid = json.loads(rust[2])["orderId"], json.loads(py["body"])["orderId"]
check("C3 both placed a new order (no replay)", rust[0] == py["statusCode"] == 201
      and "idempotent-replayed" not in rust[1] and "idempotent-replayed" not in py["headers"])
rw, pw = written(rid, "123", RS_KEY), written(pid, "123", PY_KEY)
if os.environ.get("PARITY_VERBOSE"):
    print(json.dumps(pw, indent=1))
rw_cmp = json.loads(json.dumps(rw).replace(RS_KEY, "<key>"))
pw_cmp = json.loads(json.dumps(pw).replace(PY_KEY, "<key>"))
check("C3 items written (rep): same items, attributes, types, key shapes", rw_cmp == pw_cmp,
      f"rust {rw_cmp}\n      python {pw_cmp}")
check("C3 items written: 5 items (summary, header, 2 lines, idempotency)", len(rw) == len(pw) == 5,
      f"{len(rw)} {len(pw)}")
check("C3 header shard = code point sum mod shards (both)", shard_ok(rid) and shard_ok(pid))

# Replays, across implementations: the same key and body answer the first order, byte for byte.
again_rust = http("POST", "/customers/123/orders", owner, BODY, {"idempotency-key": PY_KEY})
again_py = c3.handler(event(base, "/customers/123/orders", [], "123", {"customerId": "123"}, body=BODY,
                            headers={"idempotency-key": RS_KEY}), None)
check("C3 Rust replays Python's answer byte for byte",
      (again_rust[0], again_rust[2], again_rust[1].get("idempotent-replayed"), again_rust[1].get("location"))
      == (201, py["body"], "true", f"/orders/{pid}"),
      f"{again_rust}\n      {py}")
check("C3 Python replays Rust's answer byte for byte",
      (again_py["statusCode"], again_py["body"], again_py["headers"].get("idempotent-replayed"), again_py["headers"].get("location"))
      == (201, rust[2], "true", f"/orders/{rid}"),
      f"{again_py}\n      {rust}")
other_body = '{"items":[{"sku":42,"quantity":3}]}'
c3_both("same key, another body (422), each other's key", "123", other_body, key=RS_KEY, rust_key=PY_KEY, mask=False)
c3_both("same key, another body (422), own key", "123", other_body, key=PY_KEY, rust_key=RS_KEY, mask=False)

# A customer without a rep: no GSI1 on the summary, no AccountRepId.
rust, py = c3_both("customer without a rep, no key", "456", '{"items":[{"sku":42,"quantity":2},{"sku":1001,"quantity":1}]}')
rid, pid = json.loads(rust[2])["orderId"], json.loads(py["body"])["orderId"]
rw, pw = written(rid, "456"), written(pid, "456")
check("C3 items written (no rep): same items, attributes, types, key shapes", rw == pw, f"rust {rw}\n      python {pw}")
check("C3 header shard (no rep)", shard_ok(rid) and shard_ok(pid))

def known_json_message(t):
    """serde_json's and Python's json's words for a syntax error differ (a known difference)."""
    status, headers, body = t
    b = json.loads(body)
    return status, headers, b["code"]


# serde fills a struct from an array of its fields: [sku, quantity] is a line too.
c3_both("a line as an array [sku, quantity]", "456", '{"items":[[42,1]]}')
# A unitPrice of null is serde's absent Option: the line is priced from the catalogue.
c3_both("unitPrice null is no price", "456", '{"items":[{"sku":42,"quantity":1,"unitPrice":null}]}')
# Its price is the catalogue's: the answer, the lines written and the total say so.
rust, py = c3_both("priced from the catalogue (product 42 at its price)", "456", '{"items":[{"sku":42,"quantity":3}]}')
price_42 = int(DDB.get_item(TableName=opts.table, Key={"PK": {"S": "PRODUCT#000000000042"}, "SK": {"S": "A"}},
                            ConsistentRead=True)["Item"]["Price"]["N"])
check("C3 both priced the line at the product's price",
      json.loads(rust[2])["items"][0]["unitPrice"] == json.loads(py["body"])["items"][0]["unitPrice"] == price_42
      and json.loads(rust[2])["total"] == json.loads(py["body"])["total"] == 3 * price_42,
      f"{price_42}: {rust[2]}\n      {py['body']}")

# Products that cannot be ordered together or at all: one without a price, one priced in EUR
# (copies of product 42's item under new SKUs; the same for both sides).
product_42 = DDB.get_item(TableName=opts.table, Key={"PK": {"S": "PRODUCT#000000000042"}, "SK": {"S": "A"}},
                          ConsistentRead=True)["Item"]
for sku, change in ((990001, None), (990002, "EUR")):
    item = json.loads(json.dumps(product_42).replace("000000000042", "%012d" % sku))
    item["Sku"] = {"N": str(sku)}
    if change is None:
        item.pop("Price"), item.pop("Currency")
    else:
        item["Currency"] = {"S": change}
    DDB.put_item(TableName=opts.table, Item=item)

before = len(scan_all())
too_many = '{"items":[' + ",".join(f'{{"sku":{i},"quantity":1}}' for i in range(1, 50)) + "]}"
for label, customer, body, key, sub in [
    ("empty body", "123", "", None, None),
    ("not JSON", "123", "not json", None, None),
    ("{}", "123", "{}", None, None),
    ("no lines", "123", '{"items":[]}', None, None),
    ("49 lines", "123", too_many, None, None),
    ("sku as string", "123", '{"items":[{"sku":"42","quantity":1}]}', None, None),
    ("sku 42.5", "123", '{"items":[{"sku":42.5,"quantity":1}]}', None, None),
    ("sku 1e20", "123", '{"items":[{"sku":1e20,"quantity":1}]}', None, None),
    ("sku 2^64", "123", '{"items":[{"sku":18446744073709551616,"quantity":1}]}', None, None),
    ("sku null", "123", '{"items":[{"sku":null,"quantity":1}]}', None, None),
    ("sku true", "123", '{"items":[{"sku":true,"quantity":1}]}', None, None),
    ("quantity 0", "123", '{"items":[{"sku":42,"quantity":0}]}', None, None),
    ("quantity -1", "123", '{"items":[{"sku":42,"quantity":-1}]}', None, None),
    ("quantity 2^32", "123", '{"items":[{"sku":42,"quantity":4294967296}]}', None, None),
    ("unitPrice given (unit_price_not_accepted)", "123", '{"items":[{"sku":42,"quantity":1,"unitPrice":1250}]}', None, None),
    ("unitPrice 0 on line 2 (unit_price_not_accepted)", "123", '{"items":[{"sku":42,"quantity":1},{"sku":1001,"quantity":1,"unitPrice":0}]}', None, None),
    ("unitPrice as text (unit_price_not_accepted)", "123", '{"items":[{"sku":42,"quantity":1,"unitPrice":"free"}]}', None, None),
    ("a line as an array with a price", "123", '{"items":[[42,1,100]]}', None, None),
    ("unknown sku (unknown_sku)", "123", '{"items":[{"sku":424242,"quantity":1}]}', None, None),
    ("unknown sku on line 2 (unknown_sku)", "123", '{"items":[{"sku":42,"quantity":1},{"sku":424242,"quantity":1}]}', None, None),
    ("unknown sku, unknown customer (unknown_sku first)", "ghost", '{"items":[{"sku":424242,"quantity":1}]}', None, "ghost"),
    ("unpriced sku (sku_not_for_sale)", "123", '{"items":[{"sku":42,"quantity":1},{"sku":990001,"quantity":1}]}', None, None),
    ("mixed currencies", "123", '{"items":[{"sku":42,"quantity":1},{"sku":990002,"quantity":1}]}', None, None),
    ("a member given twice (duplicate_field)", "123", '{"items":[{"sku":42,"sku":1001,"quantity":1}]}', None, None),
    ("a nested member twice before an outer one", "123", '{"a":{"b":1,"b":2},"a":1}', None, None),
    ("a member twice inside a member given twice", "123", '{"items":[{"sku":1,"sku":2}],"items":[]}', None, None),
    ("sku 0", "123", '{"items":[{"sku":0,"quantity":1}]}', None, None),
    ("sku 10^12", "123", '{"items":[{"sku":1000000000000,"quantity":1}]}', None, None),
    ("missing quantity", "123", '{"items":[{"sku":42}]}', None, None),
    ("unknown line field", "123", '{"items":[{"sku":42,"quantity":1,"x":1}]}', None, None),
    ("unknown top field", "123", '{"items":[],"x":1}', None, None),
    ("items not a list", "123", '{"items":{}}', None, None),
    ("line not an object", "123", '{"items":[5]}', None, None),
    ("line as a short array", "123", '{"items":[[42]]}', None, None),
    ("line as a short array of a string", "123", '{"items":[["x"]]}', None, None),
    ("line as a long array", "123", '{"items":[[42,1,null,4]]}', None, None),
    ("line as an array, quantity -1", "123", '{"items":[[42,-1]]}', None, None),
    ("body is an array", "123", "[5]", None, None),
    ("duplicate sku", "123", '{"items":[{"sku":1,"quantity":1},{"sku":1,"quantity":2}]}', None, None),
    ("key with a space", "123", BODY, "has space", None),
    ("key with #", "123", BODY, "a#b", None),
    ("key too long", "123", BODY, "k" * 65, None),
    ("key not ASCII", "123", BODY, "k\u00e9", None),
    ("bad customer id", "1#2", BODY, None, "1#2"),
    ("unknown customer (404)", "ghost", BODY, None, "ghost"),
    ("another's customer (404)", "123", BODY, None, "456"),
]:
    rust, py = c3_both(f"refused: {label}", customer, body, key=key, sub=sub,
                       mask=None if "not JSON" not in label else known_json_message)
check("C3 refused requests wrote nothing", len(scan_all()) == before, f"{before} -> {len(scan_all())}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
