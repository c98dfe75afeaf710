// C3: `POST /customers/{customerId}/orders` with `{"items": [{"sku", "quantity", "unitPrice"}]}`
// and an optional `Idempotency-Key` header (Rust: functions/commerce/src/place_order.rs and
// `store::commerce::place_order`).
//
// The customer is read (GetItem, strongly consistent) for its account rep, then ONE
// TransactWriteItems: a ConditionCheck that the customer exists and still has that rep, the
// idempotency record (if a key was given: absent or expired), the summary in the customer's
// collection, the header and the lines in the order's own. A retry under the same key answers
// the first attempt's response (one more GetItem) and writes nothing; the same key with another
// body is a 422.

import { createHash } from "node:crypto";
import { createWriteTransaction } from "electrodb";
import { ApiError, badRequest, header, json, notFound, owner, pathId, serve, throttled } from "./lib/api.mjs";
import { integer, jsonBody, sequence, struct } from "./lib/body.mjs";
import { KeyError, codePointShard, isoTimestamp, newUlid, parseId, shardCountFromEnv } from "./lib/keys.mjs";
import {
  Customer, Idempotency, OrderHeader, OrderLine, OrderSummary, RepOrderSummary,
} from "./lib/table.mjs";
import { Corrupt } from "./lib/views.mjs";

// `ORDER_STATUS_SHARDS`: the header's GSI2 shard is chosen among them (O5). Read at init.
const STATUS_SHARDS = shardCountFromEnv("ORDER_STATUS_SHARDS");

const MAX_LINES = 50;
const MAX_QUANTITY = 10_000n;
const MAX_UNIT_PRICE = 100_000_000n; // cents: $1,000,000
const SKU_MAX = 999_999_999_999n;
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** Tries when the customer's rep changes under the order (`store::commerce::REP_ATTEMPTS`). */
const REP_ATTEMPTS = 3;
/** Tries of a transaction cancelled only by conflicts (`store::txn::TRANSACTION_ATTEMPTS`). */
const TRANSACTION_ATTEMPTS = 6;

const invalid = (message) => badRequest("invalid_body", message);

/** `{"items": [...]}` with serde's rules: `deny_unknown_fields`, `u64`/`u32`/`i64` fields. */
const readBody = (body) =>
  struct(body, "PlaceOrder", {
    items: (v) =>
      sequence(v).map((line) =>
        struct(line, "Line", {
          sku: (n) => integer(n, "u64"),
          quantity: (n) => integer(n, "u32"),
          unitPrice: (n) => integer(n, "i64"),
        }),
      ),
  });

function validate(items) {
  if (items.length === 0 || items.length > MAX_LINES) throw invalid(`items: give 1 to ${MAX_LINES} lines`);
  const seen = new Set();
  items.forEach((l, i) => {
    if (l.sku === 0n || l.sku > SKU_MAX) throw invalid(`items[${i}].sku: give an integer from 1 to ${SKU_MAX}`);
    if (l.quantity === 0n || l.quantity > MAX_QUANTITY) {
      throw invalid(`items[${i}].quantity: give an integer from 1 to ${MAX_QUANTITY}`);
    }
    if (l.unitPrice < 0n || l.unitPrice > MAX_UNIT_PRICE) {
      throw invalid(`items[${i}].unitPrice: give cents from 0 to ${MAX_UNIT_PRICE}`);
    }
    if (seen.has(l.sku)) {
      throw badRequest(
        "duplicate_sku",
        `items[${i}].sku: ${l.sku} appears twice; give one line per SKU with the total quantity`,
      );
    }
    seen.add(l.sku);
  });
}

/** The `Idempotency-Key` header: absent, or a valid id (a key that is there but invalid is a 400). */
function idempotencyKey(event) {
  const raw = header(event, "idempotency-key");
  if (raw === undefined) return undefined;
  const refused = (why) => badRequest("invalid_idempotency_key", `Idempotency-Key: ${why}`);
  // `HeaderValue::to_str` takes visible ASCII (and tab) only.
  if (typeof raw !== "string" || !/^[\t\x20-\x7e]*$/.test(raw)) {
    throw refused("give 1 to 64 ASCII letters, digits, '-', '_' or '.'");
  }
  try {
    return parseId("Idempotency-Key", raw);
  } catch (e) {
    if (e instanceof KeyError) throw refused(e.message);
    throw e;
  }
}

export const handler = serve(owner("customerId", "customer_not_found"), async (event) => {
  const customerId = pathId(event, "customerId");
  const key = idempotencyKey(event);
  const { items } = jsonBody(event, readBody);
  validate(items);

  const { id: orderId, ms: createdMs } = newUlid();
  const lines = items.map((l) => ({
    sku: Number(l.sku),
    quantity: Number(l.quantity),
    unitPrice: Number(l.unitPrice),
  }));
  const order = {
    orderId,
    customerId,
    status: "OPEN",
    createdAt: isoTimestamp(createdMs),
    total: lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0),
    itemCount: lines.length,
  };
  // The answer is made before the write (a retry under the same key replays it).
  const response = JSON.stringify({
    orderId,
    customerId,
    status: "OPEN",
    createdAt: order.createdAt,
    total: order.total,
    items: lines,
  });
  const idempotency = key && {
    key,
    // A digest of the lines as serde_json writes them, to tell a retry from another order.
    requestHash: createHash("sha256").update(JSON.stringify(lines)).digest("hex"),
    response,
    expiresAt: Math.floor(createdMs / 1000) + IDEMPOTENCY_TTL_SECONDS,
  };

  const outcome = await placeOrder(order, lines, idempotency);
  switch (outcome.kind) {
    case "placed":
      return created(response, orderId, false);
    case "customerNotFound":
      throw notFound(
        "customer_not_found",
        `There is no customer ${customerId}; create it with PUT /customers/${customerId} first.`,
      );
    case "replayed": {
      if (!outcome.sameRequest) {
        throw new ApiError(
          422,
          "idempotency_key_reused",
          "This Idempotency-Key was used for a different order; use a new key for a new order.",
        );
      }
      let id = "";
      try {
        const v = JSON.parse(outcome.response);
        if (typeof v.orderId === "string") id = v.orderId;
      } catch {}
      return created(outcome.response, id, true);
    }
  }
});

function created(body, orderId, replayed) {
  let value;
  try {
    value = JSON.parse(body);
  } catch (e) {
    throw new Corrupt(e.message);
  }
  const headers = { location: `/orders/${orderId}` };
  if (replayed) headers["idempotent-replayed"] = "true";
  return json(201, value, headers);
}

/** `store::commerce::place_order`: read the customer's rep, then one transaction. */
async function placeOrder(order, lines, idempotency) {
  for (let attempt = 0; attempt < REP_ATTEMPTS; attempt++) {
    const { data: customer } = await Customer.get({ customerId: order.customerId }).go({
      consistent: true,
      ignoreOwnership: true,
    });
    if (!customer) return { kind: "customerNotFound" };
    const outcome = await placeWithRep(order, lines, customer.accountRepId, idempotency);
    if (outcome) return outcome;
  }
  // The customer's account rep kept changing while the order was placed.
  throw throttled();
}

/** One try with the rep read; `null` when the customer's rep changed (or it went) since. */
async function placeWithRep(order, lines, rep, idempotency) {
  const now = Math.floor(Date.now() / 1000);
  const placed = { ...order, accountRepId: rep };
  // A summary under a rep is also in the rep's GSI1 partition (see lib/table.mjs).
  const Summary = rep === undefined ? OrderSummary : RepOrderSummary;
  const entities = { Customer, Idempotency, Summary, OrderHeader, OrderLine };
  const transaction = createWriteTransaction(entities, (e) => [
    // The customer exists and still has the rep the order records. ElectroDB conditions name
    // attributes, not the key: `attribute_exists(CustomerId)` stands for Rust's
    // `attribute_exists(PK)` (every customer item has both).
    e.Customer.check({ customerId: order.customerId })
      .where((a, { exists, eq, notExists }) =>
        `${exists(a.customerId)} AND ${rep === undefined ? notExists(a.accountRepId) : eq(a.accountRepId, rep)}`,
      )
      .commit(),
    // The key is unused, or its record expired (TTL deletes lazily: the condition decides).
    ...(idempotency
      ? [
          e.Idempotency.put({
            customerId: order.customerId,
            idempotencyKey: idempotency.key,
            orderId: order.orderId,
            requestHash: idempotency.requestHash,
            response: idempotency.response,
            expiresAt: idempotency.expiresAt,
          })
            .where((a, { notExists, lte }) => `${notExists(a.idempotencyKey)} OR ${lte(a.expiresAt, now)}`)
            .commit(),
        ]
      : []),
    // `create` puts on `attribute_not_exists(PK) AND attribute_not_exists(SK)`.
    e.Summary.create(placed).commit(),
    e.OrderHeader.create({ ...placed, statusShard: codePointShard(order.orderId, STATUS_SHARDS) }).commit(),
    ...lines.map((l) => e.OrderLine.create({ orderId: order.orderId, ...l }).commit()),
  ]);

  const reasons = await send(transaction);
  if (reasons === null) return { kind: "placed" };
  if (reasons[0] === "ConditionalCheckFailed") return null;
  if (idempotency && reasons[1] === "ConditionalCheckFailed") {
    const { data: record } = await Idempotency.get({
      customerId: order.customerId,
      idempotencyKey: idempotency.key,
    }).go({ consistent: true, ignoreOwnership: true });
    if (!record) throw new Corrupt("idempotency record vanished");
    return {
      kind: "replayed",
      response: record.response,
      sameRequest: record.requestHash === idempotency.requestHash,
    };
  }
  throw new Error(`transaction cancelled: ${JSON.stringify(reasons)}`);
}

/**
 * Sends the transaction, again (with backoff) while it is cancelled only by conflicts or
 * throttles (`store::txn::Transaction::send`). `null` when it went through, else the
 * cancellation reasons, one per action ("None" where that action was fine).
 */
async function send(transaction) {
  for (let attempt = 1; ; attempt++) {
    const result = await transaction.go();
    if (!result.canceled) return null;
    const reasons = result.data.map((r) => r.code || "None");
    const retryable =
      reasons.some((r) => r !== "None") &&
      reasons.every((r) =>
        ["None", "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"].includes(r),
      );
    if (!retryable) return reasons;
    if (attempt >= TRANSACTION_ATTEMPTS) throw throttled();
    await pause(attempt);
  }
}

/** `store::retry::pause`: full jitter, ceiling 2 ms doubling per attempt, capped at 64 ms. */
function pause(attempt) {
  const ceilingUs = Math.min(2 << Math.min(attempt - 1, 16), 64) * 1000;
  const us = Math.floor(Math.random() * ceilingUs) + 100;
  return new Promise((resolve) => setTimeout(resolve, us / 1000));
}
