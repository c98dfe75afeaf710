// C1: `GET /customers/{customerId}?orders=N` (Rust: functions/commerce/src/get_customer.rs): the
// customer and their newest N orders (default 10, 1..=100), newest first, in ONE Query: the
// customer's item collection read backwards from its `A` record (which sorts after every
// `#ORDER#` summary) with `Limit = N + 1`.

import { json, notFound, owner, pathId, queryU32, serve } from "./lib/api.mjs";
import { customers } from "./lib/table.mjs";
import { Corrupt, customer as customerView, driftHeaders, orderSummary } from "./lib/views.mjs";

const DEFAULT_ORDERS = 10;
const MAX_ORDERS = 100;

export const handler = serve(owner("customerId", "customer_not_found"), async (event) => {
  const customerId = pathId(event, "customerId");
  const newest = queryU32(event, "orders", DEFAULT_ORDERS, 1, MAX_ORDERS);

  // ElectroDB's collection query: `PK = CUSTOMER#<id>`, backwards, `Limit = N + 1`, each item
  // returned under the entity it belongs to. ElectroDB has no sort-key condition for a
  // collection (it would be `begins_with` of the entities' common prefix, here empty), so the
  // Rust code's `SK BETWEEN "#ORDER#" AND "A"` is not sent: the partition holds nothing else
  // (keys::commerce), so the same items are read and paid for.
  const { data } = await customers.collections
    .customerOrders({ customerId })
    .go({ order: "desc", limit: newest + 1, ignoreOwnership: true });

  // Read backwards, the first item is the customer's `A` record, or there is no customer.
  const [found] = data.customer;
  if (!found) {
    throw notFound(
      "customer_not_found",
      `There is no customer ${customerId}; create it with PUT /customers/${customerId}.`,
    );
  }
  if (data.customer.length > 1) throw new Corrupt("two customer records");
  const drift = [];
  const body = {
    customer: customerView(found, drift),
    orders: data.order.map(orderSummary),
  };
  return json(200, body, driftHeaders(drift));
});
