"""O5: GET /orders?status=OPEN&from=YYYY-MM-DD&to=YYYY-MM-DD&limit=&cursor= -- every order in a
status placed in the date range (UTC, both ends included), across customers, newest first.
Staff only. Python peer of functions/commerce/src/list_orders.rs (see README.md).

Every GSI2 shard `ORDERS#<shard>` is queried in parallel (a thread pool made at init) with
`GSI2SK BETWEEN <STATUS>#<first ULID of from> AND <STATUS>#<last ULID of to>`, backwards, and
the shards are merged into ONE order with ONE signed cursor, as store::merge does it.
"""

import re
from concurrent.futures import ThreadPoolExecutor

import common as c

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
STATUSES = ("OPEN", "PROCESSING", "SHIPPED", "IN_TRANSIT", "OUT_FOR_DELIVERY", "DELIVERED",
            "CANCELLED", "RETURNED")
EARLIEST = (1970, 1, 1)
LATEST = (9999, 12, 31)

# Init: configuration, client, cursor codec and thread pool, once per process.
TABLE = c.TABLE
STATUS_SHARDS = c.shard_count_from_env("ORDER_STATUS_SHARDS")
CURSORS = c.CursorCodec.from_env()
DDB = c.make_client(max_pool_connections=max(10, STATUS_SHARDS))
POOL = ThreadPoolExecutor(max_workers=STATUS_SHARDS, thread_name_prefix="shard")


def handler(event, context):
    try:
        c.authorize_staff(event)
        return handle(event)
    except c.ApiError as e:
        return c.error_response(e)


def query_date(params, name):
    v = c.query(params, name)
    if v is None:
        return None
    try:
        return c.parse_iso_date(v)
    except ValueError as e:
        raise c.invalid_parameter(name, e) from None


def handle(event):
    params = c.query_params(event)
    status = c.query(params, "status")
    if status is None:
        raise c.invalid_parameter("status", "give status=OPEN (or another status)")
    if status not in STATUSES:
        raise c.invalid_parameter(
            "status", f"{c.rust_str_debug(status)} is not one of {', '.join(STATUSES)}"
        )
    # api::query_order_dates
    frm = query_date(params, "from") or EARLIEST
    to = query_date(params, "to") or LATEST
    if frm < EARLIEST:
        raise c.invalid_parameter("from", "give a date from 1970-01-01")
    if frm > to:
        raise c.bad_request("invalid_range", f"from ({c.iso(frm)}) is after to ({c.iso(to)})")
    # keys::commerce::order_status_range, one stream per shard.
    lo = f"{status}#{c.ulid(c.date_start_ms(frm), 0)}"
    hi = f"{status}#{c.ulid(c.date_end_ms(to), c.RANDOM_MAX)}"
    streams = ["ORDERS#%02d" % shard for shard in range(STATUS_SHARDS)]
    # store::Paging
    limit = c.query_u32(params, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    binding = f"O5|{status}|{c.iso(frm)}|{c.iso(to)}|{limit}"
    cursor = c.query(params, "cursor")
    positions = [START] * len(streams)
    if cursor is not None:
        try:
            flat = CURSORS.decode(binding, cursor)
        except c.CursorError as e:
            raise c.cursor_error(e) from None
        positions = positions_from_flat(flat, len(streams))
        if positions is None:
            raise c.cursor_error(c.MALFORMED)

    items, next_positions = merged_page(streams, positions, limit, lo, hi)
    orders = []
    for item in items:
        if c.type_of(item) != "OrderHeader":
            raise c.internal(f"expected an item of type OrderHeader, found {c.type_of(item)!r}")
        orders.append(c.order_summary_view(item))
    next_cursor = None
    if next_positions is not None:
        next_cursor = CURSORS.encode(binding, positions_to_flat(next_positions))
    return c.json_response(200, {"status": status, "orders": orders, "nextCursor": next_cursor})


# ---------------------------------------------------------------------------------------------
# store::merge: where each stream stands (START, DONE, or after a key: {name: string}), and
# one merged page

START, DONE = "start", "done"
KEY_ATTRIBUTES = ("PK", "SK", "GSI2SK")  # merge::key_of for an index: table keys + its SK


def positions_to_flat(positions):
    """`"<stream>.<attribute>" -> value` after an item, `"<stream>" -> "done"`; START absent."""
    flat = {}
    for i, p in enumerate(positions):
        if p is DONE:
            flat[str(i)] = "done"
        elif p is not START:
            for name, value in p.items():
                flat[f"{i}.{name}"] = value
    return flat


def _stream_index(s, streams):
    if not re.fullmatch(r"\+?[0-9]+", s):  # Rust's usize parse
        return None
    i = int(s)
    return i if i < streams else None


def positions_from_flat(flat, streams):
    """The inverse of positions_to_flat; None for a map it cannot have made."""
    positions = [START] * streams
    for name, value in flat.items():
        stream, dot, attribute = name.partition(".")
        i = _stream_index(stream, streams)
        if i is None:
            return None
        if not dot:
            if value != "done" or positions[i] is not START:
                return None
            positions[i] = DONE
        elif positions[i] is DONE:
            return None
        else:
            if positions[i] is START:
                positions[i] = {}
            positions[i][attribute] = value
    return positions


def query_stream(pk, lo, hi, limit, start):
    request = dict(
        TableName=TABLE,
        IndexName="GSI2",
        KeyConditionExpression="#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2",
        ExpressionAttributeNames={"#n0": "GSI2PK", "#n1": "GSI2SK"},
        ExpressionAttributeValues={":v0": c.S(pk), ":v1": c.S(lo), ":v2": c.S(hi)},
        ScanIndexForward=False,
        ConsistentRead=False,
        Limit=limit,
        ReturnConsumedCapacity="INDEXES",
    )
    if start is not None:
        request["ExclusiveStartKey"] = start
    out = DDB.query(**request)
    return out.get("Items", []), out.get("LastEvaluatedKey")


def merged_page(streams, positions, limit, lo, hi):
    """At most `limit` items of the streams merged newest first (ties to the lower stream),
    and every stream's position after them (None when all are done)."""
    n = len(streams)
    buffers = [[] for _ in range(n)]  # consumed from the front (index `heads[i]`)
    heads = [0] * n
    exhausted = [p is DONE for p in positions]
    resume = [None] * n
    for i, p in enumerate(positions):
        if isinstance(p, dict):
            resume[i] = {k: c.S(v) for k, v in p.items()}
            resume[i]["GSI2PK"] = c.S(streams[i])
    positions = list(positions)
    out = []
    while len(out) < limit:
        # A stream that ran dry but may hold more is read before the next item is chosen; the
        # streams asked share what the page still needs, plus one each.
        dry = [i for i in range(n) if heads[i] == len(buffers[i]) and not exhausted[i]]
        if dry:
            batch = -(-(limit - len(out)) // len(dry)) + 1
            futures = [POOL.submit(query_stream, streams[i], lo, hi, batch, resume[i]) for i in dry]
            try:
                pages = [f.result() for f in futures]
            except c.SDK_ERRORS as e:
                raise c.store_error(e) from None
            for i, (items, last_key) in zip(dry, pages):
                buffers[i], heads[i] = items, 0
                exhausted[i] = last_key is None
                resume[i] = last_key
        best, best_key = None, None
        for i in range(n):
            if heads[i] < len(buffers[i]):
                k = buffers[i][heads[i]].get("GSI2SK", {}).get("S", "")
                if best is None or k > best_key:  # descending; ties keep the lower stream
                    best, best_key = i, k
        if best is None:
            break
        item = buffers[best][heads[best]]
        heads[best] += 1
        positions[best] = {a: item[a]["S"] for a in KEY_ATTRIBUTES if a in item}
        out.append(item)
    for i in range(n):
        if heads[i] == len(buffers[i]) and exhausted[i]:
            positions[i] = DONE
    if all(p is DONE for p in positions):
        return out, None
    return out, positions
