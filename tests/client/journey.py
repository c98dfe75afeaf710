"""One customer's journey through a client that openapi-python-client generated from openapi.yaml.

Run by tests/src/generated_client.rs against a local stack:
    python journey.py <dir holding journey_client> <base url> <customer token> <staff token> <customer id> <sku>
Staff put a product on sale; the customer signs up, puts it in their cart, orders it and reads the
order back. Every call goes through the generated functions and models, so a document the
generator misreads (a wrong type, a missing answer) fails here.
"""

import sys

sys.path.insert(0, sys.argv[1])

from journey_client import AuthenticatedClient  # noqa: E402
from journey_client.api.commerce import (  # noqa: E402
    get_cart,
    get_order,
    place_order,
    put_cart_line,
    put_customer,
    put_product,
)
from journey_client.models import (  # noqa: E402
    Customer,
    OrderLineRequest,
    PlacedOrder,
    PlaceOrderBody,
    Product,
    PutCartLineBody,
    PutCustomerBody,
    PutProductBody,
)

base_url, customer_token, staff_token, customer_id, sku = sys.argv[2:7]
sku = int(sku)
customer = AuthenticatedClient(base_url=base_url, token=customer_token, raise_on_unexpected_status=True)
staff = AuthenticatedClient(base_url=base_url, token=staff_token, raise_on_unexpected_status=True)


def expect(what, response, statuses, model):
    assert response.status_code in statuses, f"{what}: {response.status_code} {response.content!r}"
    assert isinstance(response.parsed, model), f"{what}: parsed as {type(response.parsed).__name__}"
    print(f"{what}: {int(response.status_code)}")
    return response.parsed


# Staff put the product on sale at its price.
product = PutProductBody.from_dict({"name": "Journey kettle", "price": 1999, "currency": "USD"})
expect("put product", put_product.sync_detailed(sku=sku, client=staff, body=product), (200, 201), Product)

# The customer signs up, fills the cart, orders.
body = PutCustomerBody.from_dict({"name": "Journey Customer", "email": "journey@example.com"})
signed_up = expect("put customer", put_customer.sync_detailed(customer_id, client=customer, body=body), (201,), Customer)
assert signed_up.customer_id == customer_id, signed_up

line = put_cart_line.sync_detailed(customer_id, str(sku), client=customer, body=PutCartLineBody(quantity=2))
assert line.status_code == 200, f"put cart line: {line.status_code} {line.content!r}"
print("put cart line: 200")
cart = get_cart.sync_detailed(customer_id, client=customer)
assert cart.status_code == 200, f"get cart: {cart.status_code} {cart.content!r}"
print("get cart: 200")

# The order names what and how many; the price is the catalogue's.
order = PlaceOrderBody(items=[OrderLineRequest(sku=sku, quantity=2)])
placed = expect("place order", place_order.sync_detailed(customer_id, client=customer, body=order, idempotency_key="journey-1"), (201,), PlacedOrder)
assert placed.customer_id == customer_id and len(placed.items) == 1, placed
assert placed.total == 2 * 1999, f"the catalogue's price: {placed.total}"

# Read back: the order's page.
page = get_order.sync_detailed(str(placed.order_id), client=customer)
assert page.status_code == 200, f"get order: {page.status_code} {page.content!r}"
read = page.parsed.to_dict()
assert placed.order_id in str(read), read
print("get order: 200")
print("journey: ok")
