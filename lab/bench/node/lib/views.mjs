// Wire formats (`shared/api/src/views.rs`): records as clients see them, camelCase, in the Rust
// views' field order.

const I64_MAX = 9223372036854775807n;

/** An item that does not fit its record: a 500, as Rust's `ModelError`. */
export class Corrupt extends Error {}

/**
 * A derived value (`model::Derived`) as shown: the integer when it can be right (an integer,
 * not negative), else `null` and its name noted in `drift`. Absent is 0 (`#[serde(default)]`).
 */
export function derived(value, name, drift) {
  let n;
  if (value === undefined) n = 0;
  else if (typeof value === "number") n = Number.isInteger(value) ? value : undefined;
  else if (typeof value === "bigint") {
    // Beyond 2^53: Rust would show it exactly while in i64; JSON.stringify cannot, so drift.
    n = undefined;
  } else if (typeof value === "string") {
    // Rust's `str::parse::<i64>`: an optional sign, then digits, within i64.
    n = /^[+-]?[0-9]+$/.test(value) && BigInt(value) <= I64_MAX ? Number(value) : undefined;
    if (n !== undefined && !Number.isSafeInteger(n)) n = undefined;
  } else {
    throw new Corrupt(`${name}: not a number`);
  }
  if (n === undefined || n < 0) {
    drift.push(name);
    return null;
  }
  return n;
}

function required(record, names) {
  for (const name of names) {
    if (record[name] === undefined || record[name] === null) throw new Corrupt(`missing ${name}`);
  }
}

/** A customer (`views::commerce::customer`); `drift` collects the derived values it hid. */
export function customer(c, drift) {
  required(c, ["customerId", "name", "email", "createdAt", "updatedAt"]);
  return {
    customerId: c.customerId,
    name: c.name,
    email: c.email,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    orderCount: derived(c.orderCount, "orderCount", drift),
    lifetimeValue: derived(c.lifetimeValue, "lifetimeValue", drift),
    accountRepId: c.accountRepId ?? null,
  };
}

/** An order as lists show it (`views::commerce::order_summary`). */
export function orderSummary(o) {
  required(o, ["orderId", "customerId", "status", "createdAt", "total", "itemCount"]);
  return {
    orderId: o.orderId,
    customerId: o.customerId,
    status: o.status,
    createdAt: o.createdAt,
    currency: o.currency ?? null,
    total: o.total,
    itemCount: o.itemCount,
    accountRepId: o.accountRepId ?? null,
  };
}

/** `X-Derived-Inconsistent` when a view hid drifted values (`api::json`). */
export const driftHeaders = (drift) =>
  drift.length ? { "x-derived-inconsistent": drift.join(", ") } : {};
