// The DynamoDB client and the ElectroDB entities, mapped onto the table's EXISTING items: the key
// strings of `shared/keys/src/commerce.rs` as ElectroDB key templates (`casing: "none"`), the
// PascalCase attribute names of `shared/model/src/commerce.rs` as attribute `field`s.
//
// Made once, at module init (Lambda's init phase), and kept by the warm instance.
//
// How ElectroDB is made to read and write items it did not make:
// - Identifiers. ElectroDB stamps every item it writes with its entity name and version (by
//   default in `__edb_e__` and `__edb_v__`) and, unless told to ignore ownership, reads only items
//   that carry both. The table already has one such attribute, `Type`. Both identifiers are
//   mapped onto it (`identifiers: { entity: "Type", version: "Type" }`) and every entity's
//   `version` is its `Type` value too, so ElectroDB writes exactly `Type: "<entity>"`, no attribute
//   the Rust code does not write, and recognises the Rust code's items as its own.
// - Reads pass `ignoreOwnership: true` all the same: without it ElectroDB adds a
//   FilterExpression on the identifiers to every Query, and the requests would differ from the
//   Rust ones.

import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { Entity, Service } from "electrodb";
import { requireEnv } from "./api.mjs";

export const TABLE = requireEnv("TABLE_NAME");

// Region, credentials and `AWS_ENDPOINT_URL_DYNAMODB` come from the environment (SDK v3 reads the
// service-specific endpoint variable itself), as the Rust SDK's `aws_config::load_defaults`.
// ElectroDB takes the plain client and sends `@aws-sdk/lib-dynamodb` commands through it.
export const client = new DynamoDBClient({});

// The Rust store asks every request for its consumed capacity (for its meter): `TOTAL`, or
// `INDEXES` for a Query on an index. ElectroDB's transactions take no extra request parameters,
// so this is done once, for every command, in the client's middleware stack.
client.middlewareStack.add(
  (next) => (args) => {
    args.input.ReturnConsumedCapacity ??= args.input.IndexName ? "INDEXES" : "TOTAL";
    return next(args);
  },
  { step: "initialize", name: "returnConsumedCapacity" },
);

const config = { client, table: TABLE, identifiers: { entity: "Type", version: "Type" } };
const none = { casing: "none" };
const model = (type) => ({ entity: type, version: type, service: "commerce" });

// Attribute declarations shared by the entities below.
const str = (field, required = false) => ({ type: "string", field, required });
const num = (field, required = false) => ({ type: "number", field, required });

// --- Customer: `CUSTOMER#<customerId>`, `A` ---------------------------------------------------
// Its GSI1 key (`REP#<repId>`, sparse: only with a rep) is not declared: nothing here writes
// customers or reads them by rep.
export const Customer = new Entity(
  {
    model: model("Customer"),
    attributes: {
      customerId: str("CustomerId", true),
      name: str("Name"),
      email: str("Email"),
      createdAt: str("CreatedAt"),
      updatedAt: str("UpdatedAt"),
      // Derived by the stream pipeline; read as stored (see `views.mjs`'s `derived`).
      orderCount: { type: "any", field: "OrderCount" },
      lifetimeValue: { type: "any", field: "LifetimeValue" },
      accountRepId: str("AccountRepId"),
    },
    indexes: {
      byId: {
        collection: "customerOrders",
        pk: { field: "PK", composite: ["customerId"], template: "CUSTOMER#${customerId}", ...none },
        sk: { field: "SK", composite: [], template: "A", ...none },
      },
    },
  },
  config,
);

// --- Order summary: `CUSTOMER#<customerId>`, `#ORDER#<orderId>` (Type `Order`) -----------------
const orderAttributes = {
  orderId: str("OrderId", true),
  customerId: str("CustomerId", true),
  status: str("Status", true),
  createdAt: str("CreatedAt", true),
  total: num("Total", true),
  itemCount: num("ItemCount", true),
  // The currency of the total and the lines' prices (ISO 4217): the products'. Older orders
  // have none.
  currency: str("Currency"),
  lastEventId: str("LastEventId"),
  accountRepId: str("AccountRepId"),
};
const summaryPrimary = {
  collection: "customerOrders",
  pk: { field: "PK", composite: ["customerId"], template: "CUSTOMER#${customerId}", ...none },
  sk: { field: "SK", composite: ["orderId"], template: "#ORDER#${orderId}", ...none },
};

export const OrderSummary = new Entity(
  { model: model("Order"), attributes: orderAttributes, indexes: { byCustomer: summaryPrimary } },
  config,
);

// The same item placed under an account rep, in the rep's GSI1 partition (O10):
// `REP#<repId>`, `<STATUS>#<orderId>`. GSI1 is sparse here (no rep, no GSI1 key), which one
// ElectroDB entity cannot write: given no `accountRepId`, ElectroDB writes the template's prefix
// (`GSI1PK = "REP#"`), and with an index `condition` it refuses the write as incomplete. So the
// summary is two entities of one `Type`, and the writer picks by whether the customer has a rep.
export const RepOrderSummary = new Entity(
  {
    model: model("Order"),
    attributes: orderAttributes,
    indexes: {
      byCustomer: summaryPrimary,
      byRep: {
        index: "GSI1",
        pk: { field: "GSI1PK", composite: ["accountRepId"], template: "REP#${accountRepId}", ...none },
        sk: { field: "GSI1SK", composite: ["status", "orderId"], template: "${status}#${orderId}", ...none },
      },
    },
  },
  config,
);

// C1's one Query: the customer's item collection (its `A` record and its order summaries).
export const customers = new Service({ customer: Customer, order: OrderSummary });

// --- Order header: `ORDER#<orderId>`, `A` (Type `OrderHeader`) --------------------------------
export const OrderHeader = new Entity(
  {
    model: model("OrderHeader"),
    attributes: {
      ...orderAttributes,
      // Stored as a number; written with two digits in the GSI2 key (`ORDERS#07`).
      statusShard: { type: "number", field: "StatusShard", padding: { length: 2, char: "0" } },
    },
    indexes: {
      byId: {
        pk: { field: "PK", composite: ["orderId"], template: "ORDER#${orderId}", ...none },
        sk: { field: "SK", composite: [], template: "A", ...none },
      },
      // C4 by status: `CUSTOMER#<customerId>`, `<STATUS>#<orderId>`.
      byCustomerStatus: {
        index: "GSI1",
        pk: { field: "GSI1PK", composite: ["customerId"], template: "CUSTOMER#${customerId}", ...none },
        sk: { field: "GSI1SK", composite: ["status", "orderId"], template: "${status}#${orderId}", ...none },
      },
      // O5: `ORDERS#<shard:2>`, `<STATUS>#<orderId>`.
      byStatus: {
        index: "GSI2",
        pk: { field: "GSI2PK", composite: ["statusShard"], template: "ORDERS#${statusShard}", ...none },
        sk: { field: "GSI2SK", composite: ["status", "orderId"], template: "${status}#${orderId}", ...none },
      },
    },
  },
  config,
);

// --- Order line: `ORDER#<orderId>`, `ITEM#<sku:12>` (Type `OrderItem`) ------------------------
export const OrderLine = new Entity(
  {
    model: model("OrderItem"),
    attributes: {
      orderId: str("OrderId", true),
      // Stored as a number; written with 12 digits in the keys.
      sku: { type: "number", field: "Sku", required: true, padding: { length: 12, char: "0" } },
      quantity: num("Quantity", true),
      unitPrice: num("UnitPrice", true),
    },
    indexes: {
      byOrder: {
        pk: { field: "PK", composite: ["orderId"], template: "ORDER#${orderId}", ...none },
        sk: { field: "SK", composite: ["sku"], template: "ITEM#${sku}", ...none },
      },
      // O8: `PRODUCT#<sku:12>`, `ORDERITEM#<orderId>`.
      byProduct: {
        index: "GSI1",
        pk: { field: "GSI1PK", composite: ["sku"], template: "PRODUCT#${sku}", ...none },
        sk: { field: "GSI1SK", composite: ["orderId"], template: "ORDERITEM#${orderId}", ...none },
      },
    },
  },
  config,
);

// --- Product: `PRODUCT#<sku:12>`, `A` -------------------------------------------------------
// Read by C3 for its price and currency, and checked in the order's transaction. Only what C3
// reads is declared.
export const Product = new Entity(
  {
    model: model("Product"),
    attributes: {
      sku: { type: "number", field: "Sku", required: true, padding: { length: 12, char: "0" } },
      name: str("Name"),
      createdAt: str("CreatedAt"),
      updatedAt: str("UpdatedAt"),
      // Cents of `currency`; a product without a price is not for sale.
      price: num("Price"),
      currency: str("Currency"),
    },
    indexes: {
      bySku: {
        pk: { field: "PK", composite: ["sku"], template: "PRODUCT#${sku}", ...none },
        sk: { field: "SK", composite: [], template: "A", ...none },
      },
    },
  },
  config,
);

// --- Idempotency record: `IDEMPOTENCY#<customerId>#<key>`, `A` ---------------------------------
export const Idempotency = new Entity(
  {
    model: model("Idempotency"),
    attributes: {
      customerId: str("CustomerId", true),
      idempotencyKey: str("IdempotencyKey", true),
      orderId: str("OrderId", true),
      requestHash: str("RequestHash", true),
      response: str("Response", true),
      expiresAt: num("ExpiresAt", true),
    },
    indexes: {
      byKey: {
        pk: {
          field: "PK",
          composite: ["customerId", "idempotencyKey"],
          template: "IDEMPOTENCY#${customerId}#${idempotencyKey}",
          ...none,
        },
        sk: { field: "SK", composite: [], template: "A", ...none },
      },
    },
  },
  config,
);
