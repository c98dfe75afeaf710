"""C3: POST /customers/{customerId}/orders with {"items": [{"sku", "quantity"}]} and an
optional Idempotency-Key header. Python peer of functions/commerce/src/place_order.rs (see
README.md).

Prices are the catalogue's: the products are read (ONE strongly consistent BatchGetItem) for
their prices and currency, the customer (strongly consistent GetItem) for its account rep, then
ONE TransactWriteItems: a ConditionCheck that the customer exists and still has that rep, the
idempotency record (if a key was given) unless one is there and unexpired, the order summary in
the customer's collection, the header (with its GSI2 status shard) and the lines in the order's
own, and a ConditionCheck that each product's price and currency are still the ones read (else
the order is priced again). A unitPrice in the body is a 400; an unknown or unpriced SKU and
mixed currencies are 422s. A retry under the same key replays the first answer; the same key
with another body is a 422.
"""

import base64
import hashlib
import json
import time
from decimal import Decimal

import common as c

MAX_LINES = 48  # the transaction's 4 + 2 x lines actions within DynamoDB's 100
MAX_QUANTITY = 10_000
SKU_MAX = 999_999_999_999
IDEMPOTENCY_TTL_SECONDS = 24 * 3600
MAX_BODY_BYTES = 64 * 1024
REP_ATTEMPTS = 3  # store::commerce::place_order
PRICE_ATTEMPTS = 3  # store::commerce::place_catalogue_order
BATCH_ATTEMPTS = 8  # store::Table::batch_get
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
    items = [(sku, quantity) for sku, quantity, _ in lines]

    order_id, created_ms = c.new_ulid()
    order = {"customer": customer, "id": order_id, "created_at": c.iso_timestamp(created_ms)}
    idem = None
    if key is not None:
        idem = {
            "key": key,
            "hash": hashlib.sha256(c.dumps([[s, q] for s, q in items]).encode("utf-8")).hexdigest(),
            "expires_at": created_ms // 1000 + IDEMPOTENCY_TTL_SECONDS,
        }

    outcome, detail = place_catalogue_order(order, items, idem)
    line_of = {sku: i for i, (sku, _) in enumerate(items)}
    if outcome == "placed":
        return created(detail, order_id, False)
    if outcome == "customer_not_found":
        raise c.ApiError(
            404,
            "customer_not_found",
            f"There is no customer {customer}; create it with PUT /customers/{customer} first.",
        )
    if outcome == "unknown_sku":
        raise c.ApiError(422, "unknown_sku", f"items[{line_of[detail]}].sku: no product has SKU {detail}")
    if outcome == "sku_not_for_sale":
        raise c.ApiError(
            422,
            "sku_not_for_sale",
            f"items[{line_of[detail]}].sku: product {detail} has no price, so it is not for sale",
        )
    if outcome == "mixed_currencies":
        raise c.ApiError(
            422,
            "mixed_currencies",
            "items: the products are priced in different currencies ("
            + ", ".join(f"{sku}: {cur}" for sku, cur in detail)
            + "); place one order per currency",
        )
    if outcome == "price_changed":
        raise c.ApiError(
            409,
            "price_changed",
            f"items[{line_of[detail]}].sku: the price of product {detail} kept changing while the "
            "order was placed; nothing was written, try again",
        )
    stored_response, same_request = detail
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


def response(order, currency):
    """The answer to a placed order (and what a retry under its key replays)."""
    return c.dumps({
        "orderId": order["id"],
        "customerId": order["customer"],
        "status": "OPEN",
        "createdAt": order["created_at"],
        "currency": currency,
        "total": order["total"],
        "items": [{"sku": s, "quantity": q, "unitPrice": p} for s, q, p in order["lines"]],
    })


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
# The body: api::json_body (each object's members named once, then serde's rules for
# PlaceOrder/Line through serde_path_to_error), its refusals in the API's words (c.body_reason)


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
        value = json.loads(
            data.decode("utf-8"),
            parse_constant=_no_constant,
            parse_float=_finite,
            object_pairs_hook=_Members,
        )
    except (ValueError, RecursionError) as e:
        raise c.bad_request("invalid_json", f"The body is not valid JSON: {e}") from None
    twice = _first_duplicate(value, "")
    if twice is not None:
        raise c.bad_request("duplicate_field", f"{twice} is given twice in the body; give it once.")
    if not isinstance(value, dict):
        raise invalid("The body must be a JSON object.")
    try:
        return _place_order(value)
    except _Serde as e:
        raise invalid(f"The body does not fit this request: {c.body_reason(e.path, e.message)}") from None


class _Members(dict):
    """An object's members, in the body's order as given (names may repeat)."""

    def __init__(self, pairs):
        super().__init__(pairs)
        self.pairs = pairs


def _first_duplicate(v, at):
    """The path of the first member named twice, in the body's order (`items[0].sku`), as
    api::body::unique meets it while reading: a name is refused when read again, before its
    value."""
    if isinstance(v, _Members):
        seen = set()
        for name, x in v.pairs:
            path = f"{at}.{name}" if at else name
            if name in seen:
                return path
            seen.add(name)
            found = _first_duplicate(x, path)
            if found is not None:
                return found
    elif isinstance(v, list):
        for i, x in enumerate(v):
            found = _first_duplicate(x, f"{at}[{i}]")
            if found is not None:
                return found
    return None


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def _finite(s):
    f = float(s)
    if f in (float("inf"), float("-inf")):
        raise ValueError("number out of range")
    return f


class _Serde(Exception):
    """serde's refusal `message` at serde_path_to_error's `path` (`.` for the body)."""

    def __init__(self, path, message):
        super().__init__(message)
        self.path, self.message = path, message


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


def _number(path, v, ty, lo, hi):
    """A JSON value as the Rust integer type `ty` (serde_json reads integers outside
    i64/u64 as floats)."""
    if isinstance(v, int) and not isinstance(v, bool):
        if not -(1 << 63) <= v <= (1 << 64) - 1:
            try:
                v = float(v)
            except OverflowError:
                raise _Serde(path, "number out of range") from None
        elif not lo <= v <= hi:
            raise _Serde(path, f"invalid value: integer `{v}`, expected {ty}")
        else:
            return v
    raise _Serde(path, f"invalid type: {_unexpected(v)}, expected {ty}")


# Line's fields: sku and quantity required; unitPrice any JSON value, absent or null when not
# given (serde's Option), refused by validate when given.
REQUIRED_FIELDS = (("sku", "u64", 0, (1 << 64) - 1), ("quantity", "u32", 0, (1 << 32) - 1))
LINE_FIELDS = ("sku", "quantity", "unitPrice")


def _line(v, at):
    if isinstance(v, list):  # serde also fills a struct from an array of its fields, in order
        # element by element, as serde reads them; then whether the length fits
        got = [_number(f"{at}[{i}]", x, *f[1:]) for i, (x, f) in enumerate(zip(v, REQUIRED_FIELDS))]
        if not 2 <= len(v) <= 3:
            raise _Serde(at, f"invalid length {len(v)}, expected struct Line")
        return got[0], got[1], v[2] if len(v) > 2 else None
    if not isinstance(v, dict):
        raise _Serde(at, f"invalid type: {_unexpected(v)}, expected struct Line")
    got = {}
    for name, value in v.items():
        if name not in LINE_FIELDS:
            # serde_path_to_error's path names the unknown member itself
            raise _Serde(
                f"{at}.{name}", f"unknown field `{name}`, expected one of `sku`, `quantity`, `unitPrice`"
            )
        got[name] = value if name == "unitPrice" else _number(
            f"{at}.{name}", value, *next(f for f in REQUIRED_FIELDS if f[0] == name)[1:]
        )
    for name, *_ in REQUIRED_FIELDS:
        if name not in got:
            raise _Serde(at, f"missing field `{name}`")
    return got["sku"], got["quantity"], got.get("unitPrice")


def _place_order(value):
    items = None
    for name, v in value.items():
        if name != "items":
            raise _Serde(name, f"unknown field `{name}`, expected `items`")
        if not isinstance(v, list):
            raise _Serde("items", f"invalid type: {_unexpected(v)}, expected a sequence")
        items = [_line(x, f"items[{i}]") for i, x in enumerate(v)]
    if items is None:
        raise _Serde(".", "missing field `items`")
    return items


def validate(lines):
    if not lines or len(lines) > MAX_LINES:
        raise invalid(f"items: give 1 to {MAX_LINES} lines")
    seen = set()
    for i, (sku, quantity, unit_price) in enumerate(lines):
        if unit_price is not None:
            raise c.bad_request(
                "unit_price_not_accepted",
                f"items[{i}].unitPrice: prices come from the catalogue (PUT /products/{{sku}}); "
                "leave unitPrice out",
            )
        if not 1 <= sku <= SKU_MAX:
            raise invalid(f"items[{i}].sku: give an integer from 1 to {SKU_MAX}")
        if not 1 <= quantity <= MAX_QUANTITY:
            raise invalid(f"items[{i}].quantity: give an integer from 1 to {MAX_QUANTITY}")
        if sku in seen:
            raise c.bad_request(
                "duplicate_sku",
                f"items[{i}].sku: {sku} appears twice; give one line per SKU with the total quantity",
            )
        seen.add(sku)


# ---------------------------------------------------------------------------------------------
# The writes (store::commerce::place_catalogue_order, place_order)

PRODUCT_ATTRIBUTES = ("Type", "Sku", "Name", "CreatedAt", "UpdatedAt", "Price", "Currency")


def catalogue(skus):
    """The products of these SKUs that exist (store::products::catalogue): ONE strongly
    consistent BatchGetItem, its unprocessed keys sent again with backoff."""
    names = {f"#n{i}": a for i, a in enumerate(PRODUCT_ATTRIBUTES)}
    pending = [{"PK": c.S("PRODUCT#%012d" % sku), "SK": c.S("A")} for sku in skus]
    found = []
    for attempt in range(1, BATCH_ATTEMPTS + 1):
        try:
            out = DDB.batch_get_item(
                RequestItems={TABLE: {
                    "Keys": pending,
                    "ProjectionExpression": ", ".join(names),
                    "ExpressionAttributeNames": names,
                    "ConsistentRead": True,
                }},
                ReturnConsumedCapacity="TOTAL",
            )
        except c.SDK_ERRORS as e:
            raise c.store_error(e) from None
        found.extend(out.get("Responses", {}).get(TABLE, []))
        pending = out.get("UnprocessedKeys", {}).get(TABLE, {}).get("Keys", [])
        if not pending:
            return found
        c.backoff(attempt)
    raise c.throttled(f"unprocessed keys after {BATCH_ATTEMPTS} attempts")


def place_catalogue_order(order, items, idem):
    """Prices the lines from the catalogue and places the order: (outcome, detail), where
    ("placed", response) | ("customer_not_found", None) | ("replayed", (response, same)) |
    ("unknown_sku" or "sku_not_for_sale" or "price_changed", sku) |
    ("mixed_currencies", [(sku, currency)]). A price changed between the read and the
    transaction prices the order again, at most PRICE_ATTEMPTS times."""
    skus = [sku for sku, _ in items]
    changed = None
    for _ in range(PRICE_ATTEMPTS):
        products = {}
        for item in catalogue(skus):
            if c.type_of(item) != "Product":
                raise c.internal("expected an item of type Product")
            products[c.int_of(item, "Sku", *c.U64)] = item
        prices = []
        for sku in skus:
            product = products.get(sku)
            if product is None:
                return "unknown_sku", sku
            if "Price" not in product or "Currency" not in product:
                return "sku_not_for_sale", sku
            prices.append((sku, c.int_of(product, "Price", *c.I64), c.s_of(product, "Currency")))
        currency = prices[0][2]
        if any(cur != currency for _, _, cur in prices):
            return "mixed_currencies", [(sku, cur) for sku, _, cur in prices]
        priced = dict(order, lines=[(s, q, p) for (s, q), (_, p, _) in zip(items, prices)])
        priced["total"] = sum(q * p for _, q, p in priced["lines"])
        answer = response(priced, currency)
        if idem is not None:
            idem = dict(idem, response=answer)
        outcome, detail = place_order(priced, idem, prices, currency)
        if outcome == "price_changed":
            changed = detail
            continue
        return outcome, answer if outcome == "placed" else detail
    return "price_changed", changed


def order_items(order, rep, currency):
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
        "Currency": c.S(currency),
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


def place_order(order, idem, prices, currency):
    """("placed", None) | ("customer_not_found", None) | ("replayed", (response, same)) |
    ("price_changed", sku)."""
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
        outcome = place_with_rep(order, rep, idem, customer_key, prices, currency)
        if outcome is not None:
            return outcome
    raise c.throttled("the customer's account rep kept changing while the order was placed")


def place_with_rep(order, rep, idem, customer_key, prices, currency):
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
    summary, header, lines = order_items(order, rep, currency)
    for item in (summary, header, *lines):
        actions.append({"Put": {
            "TableName": TABLE,
            "Item": item,
            "ConditionExpression": "attribute_not_exists(#n0)",
            "ExpressionAttributeNames": {"#n0": "PK"},
        }})
    price_parts = len(actions)
    for sku, cents, cur in prices:  # each product still has the price it was priced at
        actions.append({"ConditionCheck": {
            "TableName": TABLE,
            "Key": {"PK": c.S("PRODUCT#%012d" % sku), "SK": c.S("A")},
            "ConditionExpression": "(#n0 = :v0) AND (#n1 = :v1)",
            "ExpressionAttributeNames": {"#n0": "Price", "#n1": "Currency"},
            "ExpressionAttributeValues": {":v0": c.N(cents), ":v1": c.S(cur)},
        }})

    if idem is not None:  # store::txn::Transaction::idempotent_on
        token = hashlib.sha256()
        for part in ("C3", order["customer"], idem["key"], order["id"]):
            data = part.encode("utf-8")
            token.update(len(data).to_bytes(8, "big") + data)
        token_base = token.hexdigest()[:32]
    else:
        token_base = c.new_ulid()[0]
    reasons = send_transaction(actions, token_base)
    if reasons is None:
        return "placed", None
    if reasons[0] == "ConditionalCheckFailed":
        return None
    for (sku, _, _), reason in zip(prices, reasons[price_parts:]):
        if reason == "ConditionalCheckFailed":
            return "price_changed", sku
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


def send_transaction(actions, token_base):
    """None when written; the cancellation reasons (one per action) when a condition failed.
    Retried with backoff while cancelled only by conflicts or throttles (store::txn); each
    attempt's ClientRequestToken is `<token_base>.<cancelled attempts before it>`."""
    attempt = 0
    while True:
        attempt += 1
        try:
            DDB.transact_write_items(
                TransactItems=actions,
                ClientRequestToken=f"{token_base}.{attempt - 1}",
                ReturnConsumedCapacity="TOTAL",
            )
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
