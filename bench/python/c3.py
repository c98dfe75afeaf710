"""C3: POST /customers/{customerId}/orders with {"items": [{"sku", "quantity", "unitPrice"}]}
and an optional Idempotency-Key header. Python peer of functions/commerce/src/place_order.rs
(see README.md).

The customer is read (strongly consistent) for its account rep, then ONE TransactWriteItems:
a ConditionCheck that the customer exists and still has that rep, the idempotency record (if
a key was given) unless one is there and unexpired, the order summary in the customer's
collection, the header (with its GSI2 status shard) and the lines in the order's own. A retry
under the same key replays the first answer; the same key with another body is a 422.
"""

import base64
import hashlib
import json
import time
from decimal import Decimal

import common as c

MAX_LINES = 50
MAX_QUANTITY = 10_000
MAX_UNIT_PRICE = 100_000_000  # cents: $1,000,000
SKU_MAX = 999_999_999_999
IDEMPOTENCY_TTL_SECONDS = 24 * 3600
MAX_BODY_BYTES = 64 * 1024
REP_ATTEMPTS = 3  # store::commerce::place_order
TRANSACTION_ATTEMPTS = 6  # store::txn
RETRYABLE_REASONS = {"None", "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}

# Init: configuration and client, once per process.
TABLE = c.TABLE
STATUS_SHARDS = c.shard_count_from_env("ORDER_STATUS_SHARDS")
DDB = c.make_client()


def handler(event, context):
    try:
        c.authorize_owner(event, "customerId", "customer_not_found")
        return handle(event)
    except c.ApiError as e:
        return c.error_response(e)


def invalid(msg):
    return c.bad_request("invalid_body", msg)


def handle(event):
    customer = c.path_id(event, "customerId")
    # A key that is there but not a valid id is refused, never ignored.
    key = c.header(event, "idempotency-key")
    if key is not None:
        if any(not (ch == "\t" or " " <= ch <= "~") for ch in key):
            raise c.bad_request(
                "invalid_idempotency_key",
                "Idempotency-Key: give 1 to 64 ASCII letters, digits, '-', '_' or '.'",
            )
        try:
            c.parse_id("Idempotency-Key", key)
        except ValueError as e:
            raise c.bad_request("invalid_idempotency_key", f"Idempotency-Key: {e}") from None
    lines = parse_body(event)
    validate(lines)

    order_id, created_ms = c.new_ulid()
    created_at = c.iso_timestamp(created_ms)
    total = sum(q * p for _, q, p in lines)
    items_json = [{"sku": s, "quantity": q, "unitPrice": p} for s, q, p in lines]
    # The answer is made before the write: a retry under the same key replays it.
    response = c.dumps({
        "orderId": order_id,
        "customerId": customer,
        "status": "OPEN",
        "createdAt": created_at,
        "total": total,
        "items": items_json,
    })
    idem = None
    if key is not None:
        idem = {
            "key": key,
            "hash": hashlib.sha256(c.dumps(items_json).encode("utf-8")).hexdigest(),
            "response": response,
            "expires_at": created_ms // 1000 + IDEMPOTENCY_TTL_SECONDS,
        }
    order = {
        "customer": customer, "id": order_id, "created_at": created_at,
        "lines": lines, "total": total,
    }

    outcome, replay = place_order(order, idem)
    if outcome == "placed":
        return created(response, order_id, False)
    if outcome == "customer_not_found":
        raise c.ApiError(
            404,
            "customer_not_found",
            f"There is no customer {customer}; create it with PUT /customers/{customer} first.",
        )
    stored_response, same_request = replay
    if not same_request:
        raise c.ApiError(
            422,
            "idempotency_key_reused",
            "This Idempotency-Key was used for a different order; use a new key for a new order.",
        )
    try:
        body = json.loads(stored_response)
    except ValueError:
        raise c.internal("corrupt item: the stored response is not JSON") from None
    order_id = body.get("orderId") if isinstance(body, dict) else None
    return created(stored_response, order_id if isinstance(order_id, str) else "", True)


def created(response, order_id, replayed):
    try:
        body = json.loads(response)
    except ValueError:
        raise c.internal("corrupt item: the stored response is not JSON") from None
    headers = {"location": f"/orders/{order_id}"}
    if replayed:
        headers["idempotent-replayed"] = "true"
    return c.json_response(201, body, headers)


# ---------------------------------------------------------------------------------------------
# The body: api::json_body, then serde's rules for PlaceOrder/Line (deny_unknown_fields), with
# serde's messages for the common mistakes


def parse_body(event):
    raw = event.get("body")
    if raw is None:
        data = b""
    elif event.get("isBase64Encoded"):
        data = base64.b64decode(raw, validate=True)  # strict, as the Rust runtime decodes
    else:
        data = raw.encode("utf-8", "surrogatepass")
    if all(b in b" \t\n\r\x0c" for b in data):
        raise c.bad_request("missing_body", "A JSON body is required.")
    if len(data) > MAX_BODY_BYTES:
        raise c.ApiError(413, "body_too_large", f"The body is larger than {MAX_BODY_BYTES} bytes.")
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as e:
        raise c.bad_request("invalid_json", f"The body is not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise invalid("The body must be a JSON object.")
    try:
        return _place_order(value)
    except _Serde as e:
        raise invalid(f"The body does not fit this request: {e}") from None


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def _finite(s):
    f = float(s)
    if f in (float("inf"), float("-inf")):
        raise ValueError("number out of range")
    return f


class _Serde(Exception):
    pass


def _unexpected(v):
    """serde_json's description of a value it did not expect."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"boolean `{'true' if v else 'false'}`"
    if isinstance(v, int):
        return f"integer `{v}`"
    if isinstance(v, float):
        return f"floating point `{_float_text(v)}`"
    if isinstance(v, str):
        return f"string {c.rust_str_debug(v)}"
    if isinstance(v, list):
        return "sequence"
    return "map"


def _float_text(f):
    """A float as serde_json writes it in messages (zmij: the shortest digits that read back,
    fixed notation for exponents -5..=15, else `1.5e+20`)."""
    sign, digits, exp = Decimal(repr(f)).normalize().as_tuple()
    d = "".join(map(str, digits)).lstrip("0") or "0"
    if d == "0":
        return "-0.0" if sign else "0.0"
    e = len(d) - 1 + exp  # the exponent of the leading digit
    if -5 <= e <= 15:
        if exp >= 0:
            out = d + "0" * exp + ".0"
        elif e >= 0:
            out = d[: e + 1] + "." + d[e + 1:]
        else:
            out = "0." + "0" * (-e - 1) + d
    else:
        out = d[0] + ("." + d[1:] if len(d) > 1 else "") + ("e+" if e >= 0 else "e-") + str(abs(e))
    return ("-" if sign else "") + out


def _number(v, ty, lo, hi):
    """A JSON value as the Rust integer type `ty` (serde_json reads integers outside
    i64/u64 as floats)."""
    if isinstance(v, int) and not isinstance(v, bool):
        if not -(1 << 63) <= v <= (1 << 64) - 1:
            try:
                v = float(v)
            except OverflowError:
                raise _Serde("number out of range") from None
        elif not lo <= v <= hi:
            raise _Serde(f"invalid value: integer `{v}`, expected {ty}")
        else:
            return v
    raise _Serde(f"invalid type: {_unexpected(v)}, expected {ty}")


LINE_FIELDS = (("sku", "u64", 0, (1 << 64) - 1),
               ("quantity", "u32", 0, (1 << 32) - 1),
               ("unitPrice", "i64", -(1 << 63), (1 << 63) - 1))


def _line(v):
    if isinstance(v, list):  # serde also fills a struct from an array of its fields, in order
        for i in range(3):
            if i >= len(v):
                raise _Serde(f"invalid length {i}, expected struct Line with 3 elements")
            _number(v[i], *LINE_FIELDS[i][1:])
        if len(v) > 3:
            raise _Serde(f"invalid length {len(v)}, expected fewer elements in array")
        return tuple(v[:3])
    if not isinstance(v, dict):
        raise _Serde(f"invalid type: {_unexpected(v)}, expected struct Line")
    got = {}
    for name, value in v.items():
        field = next((f for f in LINE_FIELDS if f[0] == name), None)
        if field is None:
            raise _Serde(
                f"unknown field `{name}`, expected one of `sku`, `quantity`, `unitPrice`"
            )
        got[name] = _number(value, *field[1:])
    for name, *_ in LINE_FIELDS:
        if name not in got:
            raise _Serde(f"missing field `{name}`")
    return got["sku"], got["quantity"], got["unitPrice"]


def _place_order(value):
    items = None
    for name, v in value.items():
        if name != "items":
            raise _Serde(f"unknown field `{name}`, expected `items`")
        if not isinstance(v, list):
            raise _Serde(f"invalid type: {_unexpected(v)}, expected a sequence")
        items = [_line(x) for x in v]
    if items is None:
        raise _Serde("missing field `items`")
    return items


def validate(lines):
    if not lines or len(lines) > MAX_LINES:
        raise invalid(f"items: give 1 to {MAX_LINES} lines")
    seen = set()
    for i, (sku, quantity, unit_price) in enumerate(lines):
        if not 1 <= sku <= SKU_MAX:
            raise invalid(f"items[{i}].sku: give an integer from 1 to {SKU_MAX}")
        if not 1 <= quantity <= MAX_QUANTITY:
            raise invalid(f"items[{i}].quantity: give an integer from 1 to {MAX_QUANTITY}")
        if not 0 <= unit_price <= MAX_UNIT_PRICE:
            raise invalid(f"items[{i}].unitPrice: give cents from 0 to {MAX_UNIT_PRICE}")
        if sku in seen:
            raise c.bad_request(
                "duplicate_sku",
                f"items[{i}].sku: {sku} appears twice; give one line per SKU with the total quantity",
            )
        seen.add(sku)


# ---------------------------------------------------------------------------------------------
# The writes (store::commerce::place_order)


def order_items(order, rep):
    """The summary, the header and the lines, as model::to_item writes them."""
    oid, cust = order["id"], order["customer"]
    status_sk = f"OPEN#{oid}"
    base = {
        "OrderId": c.S(oid),
        "CustomerId": c.S(cust),
        "Status": c.S("OPEN"),
        "CreatedAt": c.S(order["created_at"]),
        "Total": c.N(order["total"]),
        "ItemCount": c.N(len(order["lines"])),
    }
    if rep is not None:
        base["AccountRepId"] = c.S(rep)
    summary = dict(base, PK=c.S(f"CUSTOMER#{cust}"), SK=c.S(f"#ORDER#{oid}"), Type=c.S("Order"))
    if rep is not None:  # in the rep's GSI1 partition (O10) only under a rep
        summary.update(GSI1PK=c.S(f"REP#{rep}"), GSI1SK=c.S(status_sk))
    # keys::code_point_shard: the sum of the id's code points modulo the shard count.
    shard = sum(map(ord, oid)) % STATUS_SHARDS
    header = dict(
        base,
        StatusShard=c.N(shard),
        PK=c.S(f"ORDER#{oid}"),
        SK=c.S("A"),
        Type=c.S("OrderHeader"),
        GSI1PK=c.S(f"CUSTOMER#{cust}"),
        GSI1SK=c.S(status_sk),
        GSI2PK=c.S("ORDERS#%02d" % shard),
        GSI2SK=c.S(status_sk),
    )
    lines = []
    for sku, quantity, unit_price in order["lines"]:
        padded = "%012d" % sku
        lines.append({
            "OrderId": c.S(oid),
            "Sku": c.N(sku),
            "Quantity": c.N(quantity),
            "UnitPrice": c.N(unit_price),
            "PK": c.S(f"ORDER#{oid}"),
            "SK": c.S(f"ITEM#{padded}"),
            "Type": c.S("OrderItem"),
            "GSI1PK": c.S(f"PRODUCT#{padded}"),
            "GSI1SK": c.S(f"ORDERITEM#{oid}"),
        })
    return summary, header, lines


def place_order(order, idem):
    """("placed", None) | ("customer_not_found", None) | ("replayed", (response, same))."""
    customer_key = {"PK": c.S(f"CUSTOMER#{order['customer']}"), "SK": c.S("A")}
    for _ in range(REP_ATTEMPTS):
        try:
            found = DDB.get_item(
                TableName=TABLE, Key=customer_key, ConsistentRead=True,
                ReturnConsumedCapacity="TOTAL",
            ).get("Item")
        except c.SDK_ERRORS as e:
            raise c.store_error(e) from None
        if found is None:
            return "customer_not_found", None
        if c.type_of(found) != "Customer":
            raise c.internal("expected an item of type Customer")
        rep = found["AccountRepId"].get("S") if "AccountRepId" in found else None
        outcome = place_with_rep(order, rep, idem, customer_key)
        if outcome is not None:
            return outcome
    raise c.throttled("the customer's account rep kept changing while the order was placed")


def place_with_rep(order, rep, idem, customer_key):
    """One try with the rep read; None when the customer's rep changed (or it went)."""
    if rep is not None:
        same_rep = ("(attribute_exists(#n0)) AND (#n1 = :v0)", {":v0": c.S(rep)})
    else:
        same_rep = ("(attribute_exists(#n0)) AND (attribute_not_exists(#n1))", None)
    check = {
        "TableName": TABLE,
        "Key": customer_key,
        "ConditionExpression": same_rep[0],
        "ExpressionAttributeNames": {"#n0": "PK", "#n1": "AccountRepId"},
    }
    if same_rep[1]:
        check["ExpressionAttributeValues"] = same_rep[1]
    actions = [{"ConditionCheck": check}]
    idem_part = None
    if idem is not None:
        record = {
            "CustomerId": c.S(order["customer"]),
            "IdempotencyKey": c.S(idem["key"]),
            "OrderId": c.S(order["id"]),
            "RequestHash": c.S(idem["hash"]),
            "Response": c.S(idem["response"]),
            "ExpiresAt": c.N(idem["expires_at"]),
            "PK": c.S(f"IDEMPOTENCY#{order['customer']}#{idem['key']}"),
            "SK": c.S("A"),
            "Type": c.S("Idempotency"),
        }
        # An expired record counts as absent: TTL deletes lazily, the condition decides.
        now_seconds = time.time_ns() // 1_000_000_000
        idem_part = len(actions)
        actions.append({"Put": {
            "TableName": TABLE,
            "Item": record,
            "ConditionExpression": "(attribute_not_exists(#n0)) OR (#n1 <= :v0)",
            "ExpressionAttributeNames": {"#n0": "PK", "#n1": "ExpiresAt"},
            "ExpressionAttributeValues": {":v0": c.N(now_seconds)},
        }})
    summary, header, lines = order_items(order, rep)
    for item in (summary, header, *lines):
        actions.append({"Put": {
            "TableName": TABLE,
            "Item": item,
            "ConditionExpression": "attribute_not_exists(#n0)",
            "ExpressionAttributeNames": {"#n0": "PK"},
        }})

    reasons = send_transaction(actions)
    if reasons is None:
        return "placed", None
    if reasons[0] == "ConditionalCheckFailed":
        return None
    if idem_part is not None and reasons[idem_part] == "ConditionalCheckFailed":
        try:
            record = DDB.get_item(
                TableName=TABLE,
                Key={"PK": c.S(f"IDEMPOTENCY#{order['customer']}#{idem['key']}"), "SK": c.S("A")},
                ConsistentRead=True,
                ReturnConsumedCapacity="TOTAL",
            ).get("Item")
        except c.SDK_ERRORS as e:
            raise c.store_error(e) from None
        if record is None:
            raise c.internal("corrupt item: idempotency record vanished")
        if c.type_of(record) != "Idempotency":
            raise c.internal("expected an item of type Idempotency")
        same = c.s_of(record, "RequestHash") == idem["hash"]
        return "replayed", (c.s_of(record, "Response"), same)
    raise c.internal(f"transaction cancelled: {reasons}")


def send_transaction(actions):
    """None when written; the cancellation reasons (one per action) when a condition failed.
    Retried with backoff while cancelled only by conflicts or throttles (store::txn)."""
    attempt = 0
    while True:
        attempt += 1
        try:
            DDB.transact_write_items(TransactItems=actions, ReturnConsumedCapacity="TOTAL")
            return None
        except c.ClientError as e:
            if e.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise c.store_error(e) from None
            reasons = [r.get("Code", "None") for r in e.response.get("CancellationReasons", [])]
        except c.BotoCoreError as e:
            raise c.store_error(e) from None
        retryable = any(r != "None" for r in reasons) and all(r in RETRYABLE_REASONS for r in reasons)
        if not retryable:
            return reasons
        if attempt >= TRANSACTION_ATTEMPTS:
            raise c.throttled(f"transaction still contended after {attempt} attempts: {reasons}")
        c.backoff(attempt)
