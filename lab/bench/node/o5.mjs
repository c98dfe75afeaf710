// O5: `GET /orders?status=OPEN&from=YYYY-MM-DD&to=YYYY-MM-DD&limit=&cursor=` (Rust:
// functions/commerce/src/list_orders.rs, `store::Paging::merged_page`, `store::merge`): every
// order in a status placed in the date range, across customers, newest first. Staff only.
//
// GSI2 is write-sharded: a header stands in `ORDERS#<shard>`, sorted by `<STATUS>#<orderId>`.
// Every shard `0..ORDER_STATUS_SHARDS` is queried in parallel (`GSI2SK BETWEEN <STATUS>#<first
// ULID of from> AND <STATUS>#<last ULID of to>`, backwards), and the shards are merged into one
// order with one signed cursor. The merge (which streams are asked, for how many items, in which
// rounds) is `store::merge::merged_page_by`'s, so the same Queries are sent.

import { badRequest, invalidParameter, json, query, queryOrderDates, queryU32, serve, STAFF } from "./lib/api.mjs";
import { CursorCodec } from "./lib/cursor.mjs";
import { KeyError, debugStr, endMs, shardCountFromEnv, startMs, ulidCeiling, ulidFloor } from "./lib/keys.mjs";
import { OrderHeader } from "./lib/table.mjs";
import { Corrupt, orderSummary } from "./lib/views.mjs";

// Read once, at init; a missing or invalid setting stops the function (`Deps::from_env`).
const STATUS_SHARDS = shardCountFromEnv("ORDER_STATUS_SHARDS");
const cursors = CursorCodec.fromEnv();

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const STATUSES = ["OPEN", "PROCESSING", "SHIPPED", "IN_TRANSIT", "OUT_FOR_DELIVERY", "DELIVERED", "CANCELLED", "RETURNED"];

export const handler = serve(STAFF, async (event) => {
  const status = query(event, "status");
  if (status === undefined) throw invalidParameter("status", "give status=OPEN (or another status)");
  if (!STATUSES.includes(status)) {
    throw invalidParameter("status", new KeyError(`${debugStr(status)} is not one of ${STATUSES.join(", ")}`).message);
  }
  const { from, to } = queryOrderDates(event);
  // One stream per shard: the key condition of its Query.
  const lo = ulidFloor(startMs(from));
  const hi = ulidCeiling(endMs(to));
  const streams = Array.from({ length: STATUS_SHARDS }, (_, shard) => ({ shard, lo, hi }));

  const limit = queryU32(event, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
  const binding = `O5|${status}|${from.iso}|${to.iso}|${limit}`;
  const cursor = query(event, "cursor");
  let positions = streams.map(() => ({ at: "start" }));
  if (cursor !== undefined) {
    let flat;
    try {
      flat = cursors.decode(binding, cursor);
    } catch (e) {
      throw invalidCursor(e.message);
    }
    positions = positionsFromItem(flat, streams.length);
    if (!positions) throw invalidCursor("the cursor is malformed");
  }

  const page = await mergedPage(status, streams, positions, limit);
  const orders = page.items.map((item) => {
    if (item.Type !== "OrderHeader") throw new Corrupt(`expected an OrderHeader, found ${item.Type}`);
    return orderSummary(item);
  });
  const nextCursor = page.next ? cursors.encode(binding, positionsToItem(page.next)) : null;
  return json(200, { status, orders, nextCursor });
});

const invalidCursor = (why) =>
  badRequest(
    "invalid_cursor",
    `${why}: pass back the nextCursor of the previous page unchanged, with the same parameters`,
  );

/** One Query of one shard: at most `limit` items after `start`, newest first. */
async function queryShard(status, stream, start, limit) {
  const { data, cursor } = await OrderHeader.query
    .byStatus({ statusShard: stream.shard, status })
    .between({ orderId: stream.lo }, { orderId: stream.hi })
    .go({
      order: "desc",
      limit,
      // `pager: "raw"`: the cursor in and out is DynamoDB's own key (the merge signs its own).
      pager: "raw",
      cursor: start,
      // The items' key attributes too: the merge orders by GSI2SK and records where each
      // stream stands by the item's key.
      data: "includeKeys",
      ignoreOwnership: true,
    });
  return { items: data, lastKey: cursor || null };
}

/** An item's position in its stream: the table's key and the index's sort key. */
const keyOf = (item) => {
  const key = {};
  for (const name of ["PK", "SK", "GSI2SK"]) if (item[name] !== undefined) key[name] = item[name];
  return key;
};

/**
 * `store::merge::merged_page_by` (descending, by sort key): a stream that ran dry but may hold
 * more is read before the next item is chosen; the streams asked in one round share what the page
 * still needs, plus one each; the next item is the largest GSI2SK, ties to the lower shard.
 */
async function mergedPage(status, streams, positions, limit) {
  const st = streams.map((stream, i) => {
    const p = positions[i];
    return {
      stream,
      buffer: [],
      exhausted: p.at === "done",
      // DynamoDB's ExclusiveStartKey: the item's key plus the index's partition key.
      resume: p.at === "after" ? { ...p.key, GSI2PK: `ORDERS#${String(stream.shard).padStart(2, "0")}` } : null,
      position: p,
    };
  });
  const out = [];
  while (out.length < limit) {
    const dry = st.filter((s) => s.buffer.length === 0 && !s.exhausted);
    if (dry.length) {
      const batch = Math.ceil((limit - out.length) / dry.length) + 1;
      const pages = await Promise.all(dry.map((s) => queryShard(status, s.stream, s.resume, batch)));
      dry.forEach((s, k) => {
        s.buffer.push(...pages[k].items);
        s.exhausted = pages[k].lastKey === null;
        s.resume = pages[k].lastKey;
      });
    }
    let next = null;
    for (const s of st) {
      if (!s.buffer.length) continue;
      const key = s.buffer[0].GSI2SK ?? "";
      if (next === null || key > (next.buffer[0].GSI2SK ?? "")) next = s;
    }
    if (next === null) break;
    const item = next.buffer.shift();
    next.position = { at: "after", key: keyOf(item) };
    out.push(item);
  }
  for (const s of st) if (s.buffer.length === 0 && s.exhausted) s.position = { at: "done" };
  const done = st.every((s) => s.position.at === "done");
  return { items: out, next: done ? null : st.map((s) => s.position) };
}

/** `Positions::to_item`: `"<stream>.<attribute>"` for a stream after an item, `"<stream>": "done"`. */
function positionsToItem(positions) {
  const flat = {};
  positions.forEach((p, i) => {
    if (p.at === "done") flat[String(i)] = "done";
    else if (p.at === "after") for (const [name, value] of Object.entries(p.key)) flat[`${i}.${name}`] = value;
  });
  return flat;
}

/** `Positions::from_item`: `null` for a map that is not one `positionsToItem` makes. */
function positionsFromItem(flat, streams) {
  const positions = Array.from({ length: streams }, () => ({ at: "start" }));
  const index = (text) => (/^\+?[0-9]+$/.test(text) && Number(text) < streams ? Number(text) : null);
  for (const [name, value] of Object.entries(flat)) {
    const dot = name.indexOf(".");
    if (dot < 0) {
      const i = index(name);
      if (i === null || value !== "done" || positions[i].at !== "start") return null;
      positions[i] = { at: "done" };
    } else {
      const i = index(name.slice(0, dot));
      if (i === null) return null;
      const attribute = name.slice(dot + 1);
      if (positions[i].at === "done") return null;
      if (positions[i].at === "start") positions[i] = { at: "after", key: {} };
      positions[i].key[attribute] = value;
    }
  }
  return positions;
}
