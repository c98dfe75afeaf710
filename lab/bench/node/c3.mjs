// C3: `POST /customers/{customerId}/orders` with `{"items": [{"sku", "quantity"}]}` and an
// optional `Idempotency-Key` header (Rust: functions/commerce/src/place_order.rs and
// `store::commerce::place_catalogue_order`).
//
// Prices are the catalogue's: the products are read (ONE strongly consistent BatchGetItem) for
// their price and currency, the customer (GetItem, strongly consistent) for its account rep, then
// ONE TransactWriteItems: a ConditionCheck that the customer exists and still has that rep, the
// idempotency record (if a key was given: absent or expired), the summary in the customer's
// collection, the header and the lines in the order's own, and a ConditionCheck that each
// product still has the price and currency read (else the order is priced again). A unitPrice
// in the body is a 400; an unknown or unpriced SKU and mixed currencies are 422s. A retry under
// the same key answers the first attempt's response (one more GetItem) and writes nothing; the
// same key with another body is a 422.

import { createHash } from "node:crypto";
import { createWriteTransaction } from "electrodb";
import { ApiError, badRequest, header, json, notFound, owner, pathId, serve, throttled } from "./lib/api.mjs";
import { anyValue, integer, jsonBody, sequence, struct } from "./lib/body.mjs";
import { KeyError, codePointShard, isoTimestamp, newUlid, parseId, shardCountFromEnv } from "./lib/keys.mjs";
import {
  Customer, Idempotency, OrderHeader, OrderLine, OrderSummary, Product, RepOrderSummary,
} from "./lib/table.mjs";
import { Corrupt } from "./lib/views.mjs";

// `ORDER_STATUS_SHARDS`: the header's GSI2 shard is chosen among them (O5). Read at init.
const STATUS_SHARDS = shardCountFromEnv("ORDER_STATUS_SHARDS");

/** The transaction's 4 + 2 × lines actions stay within DynamoDB's 100. */
const MAX_LINES = 48;
const MAX_QUANTITY = 10_000n;
const SKU_MAX = 999_999_999_999n;
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** Tries when the customer's rep changes under the order (`store::commerce::REP_ATTEMPTS`). */
const REP_ATTEMPTS = 3;
/** Tries of a transaction cancelled only by conflicts (`store::txn::TRANSACTION_ATTEMPTS`). */
const TRANSACTION_ATTEMPTS = 6;
/** Pricings when a product's price changes under the order (`store::commerce::PRICE_ATTEMPTS`). */
const PRICE_ATTEMPTS = 3;
/** Tries of a batch read with unprocessed keys (`store::BATCH_ATTEMPTS`). */
const BATCH_ATTEMPTS = 8;

const invalid = (message) => badRequest("invalid_body", message);

/**
 * `{"items": [...]}` with serde's rules: `deny_unknown_fields`, `u64`/`u32` fields, `unitPrice`
 * any value or none (`Option<Value>`: refused by `validate` when given).
 */
const readBody = (body) =>
  struct(body, "PlaceOrder", {
    items: (v, at) =>
      sequence(v, at, (line, lineAt) =>
        struct(
          line,
          "Line",
          {
            sku: (n, p) => integer(n, "u64", p),
            quantity: (n, p) => integer(n, "u32", p),
            unitPrice: anyValue,
          },
          lineAt,
          ["unitPrice"],
        ),
      ),
  });

function validate(items) {
  if (items.length === 0 || items.length > MAX_LINES) throw invalid(`items: give 1 to ${MAX_LINES} lines`);
  const seen = new Set();
  items.forEach((l, i) => {
    if (l.unitPrice !== undefined) {
      throw badRequest(
        "unit_price_not_accepted",
        `items[${i}].unitPrice: prices come from the catalogue (PUT /products/{sku}); leave unitPrice out`,
      );
    }
    if (l.sku === 0n || l.sku > SKU_MAX) throw invalid(`items[${i}].sku: give an integer from 1 to ${SKU_MAX}`);
    if (l.quantity === 0n || l.quantity > MAX_QUANTITY) {
      throw invalid(`items[${i}].quantity: give an integer from 1 to ${MAX_QUANTITY}`);
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
  const requested = items.map((l) => ({ sku: Number(l.sku), quantity: Number(l.quantity) }));
  const order = { orderId, customerId, status: "OPEN", createdAt: isoTimestamp(createdMs) };
  const idempotency = key && {
    key,
    // A digest of the lines ([sku, quantity]) as serde_json writes them, to tell a retry from
    // another order.
    requestHash: createHash("sha256")
      .update(JSON.stringify(requested.map((l) => [l.sku, l.quantity])))
      .digest("hex"),
    expiresAt: Math.floor(createdMs / 1000) + IDEMPOTENCY_TTL_SECONDS,
  };

  const outcome = await placeCatalogueOrder(order, requested, idempotency);
  const lineOf = (sku) => requested.findIndex((l) => l.sku === sku);
  switch (outcome.kind) {
    case "placed":
      return created(outcome.response, orderId, false);
    case "customerNotFound":
      throw notFound(
        "customer_not_found",
        `There is no customer ${customerId}; create it with PUT /customers/${customerId} first.`,
      );
    case "unknownSku":
      throw new ApiError(422, "unknown_sku", `items[${lineOf(outcome.sku)}].sku: no product has SKU ${outcome.sku}`);
    case "unpricedSku":
      throw new ApiError(
        422,
        "sku_not_for_sale",
        `items[${lineOf(outcome.sku)}].sku: product ${outcome.sku} has no price, so it is not for sale`,
      );
    case "mixedCurrencies":
      throw new ApiError(
        422,
        "mixed_currencies",
        `items: the products are priced in different currencies (${outcome.prices
          .map((p) => `${p.sku}: ${p.currency}`)
          .join(", ")}); place one order per currency`,
      );
    case "priceChanged":
      throw new ApiError(
        409,
        "price_changed",
        `items[${lineOf(outcome.sku)}].sku: the price of product ${outcome.sku} kept changing while the order was placed; nothing was written, try again`,
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

/** The answer to a placed order (and what a retry under its key replays). */
const answer = (order, currency, lines) =>
  JSON.stringify({
    orderId: order.orderId,
    customerId: order.customerId,
    status: "OPEN",
    createdAt: order.createdAt,
    currency,
    total: order.total,
    items: lines,
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

/** The products of these SKUs that exist (`store::products::catalogue`): ONE strongly consistent
 * BatchGetItem, its unprocessed keys sent again with backoff. */
async function catalogue(skus) {
  let pending = skus.map((sku) => ({ sku }));
  const found = [];
  for (let attempt = 1; attempt <= BATCH_ATTEMPTS; attempt++) {
    const { data, unprocessed } = await Product.get(pending).go({
      consistent: true,
      ignoreOwnership: true,
      attributes: ["sku", "name", "createdAt", "updatedAt", "price", "currency"],
    });
    found.push(...data);
    if (unprocessed.length === 0) return found;
    pending = unprocessed.map((u) => ({ sku: u.sku ?? Number(u.PK.slice("PRODUCT#".length)) }));
    await pause(attempt);
  }
  throw throttled();
}

/**
 * `store::commerce::place_catalogue_order`: the lines priced from the products read, then
 * [`placeOrder`]; priced again while a product's price changes under it.
 */
async function placeCatalogueOrder(order, requested, idempotency) {
  const skus = requested.map((l) => l.sku);
  let changed;
  for (let attempt = 0; attempt < PRICE_ATTEMPTS; attempt++) {
    const products = await catalogue(skus);
    const prices = [];
    for (const sku of skus) {
      const product = products.find((p) => p.sku === sku);
      if (!product) return { kind: "unknownSku", sku };
      if (product.price === undefined || product.currency === undefined) return { kind: "unpricedSku", sku };
      prices.push({ sku, cents: product.price, currency: product.currency });
    }
    const currency = prices[0].currency;
    if (prices.some((p) => p.currency !== currency)) return { kind: "mixedCurrencies", prices };
    const lines = requested.map((l, k) => ({ ...l, unitPrice: prices[k].cents }));
    const priced = {
      ...order,
      currency,
      total: lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0),
      itemCount: lines.length,
    };
    const response = answer(priced, currency, lines);
    const outcome = await placeOrder(priced, lines, idempotency && { ...idempotency, response }, prices);
    if (outcome.kind === "priceChanged") {
      changed = outcome.sku;
      continue;
    }
    return outcome.kind === "placed" ? { ...outcome, response } : outcome;
  }
  return { kind: "priceChanged", sku: changed };
}

/** `store::commerce::place_order`: read the customer's rep, then one transaction. */
async function placeOrder(order, lines, idempotency, prices) {
  for (let attempt = 0; attempt < REP_ATTEMPTS; attempt++) {
    const { data: customer } = await Customer.get({ customerId: order.customerId }).go({
      consistent: true,
      ignoreOwnership: true,
    });
    if (!customer) return { kind: "customerNotFound" };
    const outcome = await placeWithRep(order, lines, customer.accountRepId, idempotency, prices);
    if (outcome) return outcome;
  }
  // The customer's account rep kept changing while the order was placed.
  throw throttled();
}

/** One try with the rep read; `null` when the customer's rep changed (or it went) since. */
async function placeWithRep(order, lines, rep, idempotency, prices) {
  const now = Math.floor(Date.now() / 1000);
  const placed = { ...order, accountRepId: rep };
  // A summary under a rep is also in the rep's GSI1 partition (see lib/table.mjs).
  const Summary = rep === undefined ? OrderSummary : RepOrderSummary;
  const entities = { Customer, Idempotency, Summary, OrderHeader, OrderLine, Product };
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
    // Each product still has the price and currency the order was priced at.
    ...prices.map((p) =>
      e.Product.check({ sku: p.sku })
        .where((a, { eq }) => `${eq(a.price, p.cents)} AND ${eq(a.currency, p.currency)}`)
        .commit(),
    ),
  ]);

  const reasons = await send(transaction, tokenBase(order, idempotency));
  if (reasons === null) return { kind: "placed" };
  if (reasons[0] === "ConditionalCheckFailed") return null;
  const checks = reasons.slice(reasons.length - prices.length);
  const moved = checks.findIndex((r) => r === "ConditionalCheckFailed");
  if (moved >= 0) return { kind: "priceChanged", sku: prices[moved].sku };
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
 * The transaction's `ClientRequestToken` base (`store::txn::Transaction`): derived from the
 * `Idempotency-Key` and the order (`idempotent_on`), else the order's own new id.
 */
function tokenBase(order, idempotency) {
  if (!idempotency) return newUlid().id;
  const hash = createHash("sha256");
  for (const part of ["C3", order.customerId, idempotency.key, order.orderId]) {
    const bytes = Buffer.from(part, "utf8");
    const length = Buffer.alloc(8);
    length.writeBigUInt64BE(BigInt(bytes.length));
    hash.update(length).update(bytes);
  }
  return hash.digest("hex").slice(0, 32);
}

/**
 * Sends the transaction, again (with backoff) while it is cancelled only by conflicts or
 * throttles (`store::txn::Transaction::send`), each attempt's `ClientRequestToken` being
 * `<base>.<cancelled attempts before it>`. `null` when it went through, else the cancellation
 * reasons, one per action ("None" where that action was fine).
 */
async function send(transaction, base) {
  for (let attempt = 1; ; attempt++) {
    const result = await transaction.go({ token: `${base}.${attempt - 1}` });
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
