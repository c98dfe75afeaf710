"""C1: GET /customers/{customerId}?orders=N -- the customer and their newest N orders (default
10, 1..=100), newest first, in ONE Query: the customer's collection read backwards from its `A`
record with Limit = N + 1. Python peer of functions/commerce/src/get_customer.rs (see README.md).
"""

import common as c

DEFAULT_ORDERS = 10
MAX_ORDERS = 100

# Init: configuration and client, once per process.
TABLE = c.TABLE
DDB = c.make_client()


def handler(event, context):
    try:
        c.authorize_owner(event, "customerId", "customer_not_found")
        return handle(event)
    except c.ApiError as e:
        return c.error_response(e)


def handle(event):
    customer = c.path_id(event, "customerId")
    newest = c.query_u32(c.query_params(event), "orders", DEFAULT_ORDERS, 1, MAX_ORDERS)
    # keys::commerce::customer_and_orders: SK BETWEEN "#ORDER#" AND "A", read backwards, so
    # the customer's `A` record comes first, then its newest orders (store::Query::parent_page).
    try:
        out = DDB.query(
            TableName=TABLE,
            KeyConditionExpression="#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2",
            ExpressionAttributeNames={"#n0": "PK", "#n1": "SK"},
            ExpressionAttributeValues={
                ":v0": c.S(f"CUSTOMER#{customer}"),
                ":v1": c.S("#ORDER#"),
                ":v2": c.S("A"),
            },
            ScanIndexForward=False,
            ConsistentRead=False,
            Limit=newest + 1,
            ReturnConsumedCapacity="TOTAL",
        )
    except c.SDK_ERRORS as e:
        raise c.store_error(e) from None
    items = out.get("Items", [])
    if not items or c.type_of(items[0]) != "Customer":
        raise c.ApiError(
            404,
            "customer_not_found",
            f"There is no customer {customer}; create it with PUT /customers/{customer}.",
        )
    orders = []
    for item in items[1:]:
        # Anything but an order summary in the range is a corrupt item, not skipped.
        if c.type_of(item) != "Order":
            raise c.internal(f"expected an item of type Order, found {c.type_of(item)!r}")
        orders.append(c.order_summary_view(item))
    return c.json_response(200, {"customer": c.customer_view(items[0]), "orders": orders})
