"""Shop (echo network.json under one top folder, epoch times, header lists): cart and checkout."""

from __future__ import annotations

from datetime import UTC, datetime

from builders.kit import (
    JSON_RESP,
    OUT,
    SHOP_API_KEY,
    SHOP_COOKIE,
    Clock,
    EchoNetwork,
    pretty,
    task_json,
    write_zip,
)

# ----------------------------------------------------------------------------- 2. shop


def shop() -> None:
    start = datetime(2026, 5, 7, 9, 12, 3, 500000, tzinfo=UTC)
    site = "https://shop.example.com"
    # Epoch-millisecond timestamps and name/value header lists: both valid echo variants.
    net = EchoNetwork(Clock(start), f"{site}/c/coffee", epoch=True, list_headers=True)
    web = {"cookie": SHOP_COOKIE, "accept": "application/json", "x-api-key": SHOP_API_KEY}
    product = {
        "id": "sku_7741",
        "name": "Ethiopia Yirgacheffe, whole bean 250 g",
        "price": {"amount": 1450, "currency": "EUR"},
        "stock": 38,
        "roast": "light",
    }
    catalogue = [
        product,
        {"id": "sku_7742", "name": "Colombia Huila 250 g", "price": {"amount": 1290, "currency": "EUR"}},
        {"id": "sku_7750", "name": "Decaf Brazil 500 g", "price": {"amount": 1990, "currency": "EUR"}},
        {"id": "sku_7760", "name": "Espresso blend 1 kg", "price": {"amount": 3200, "currency": "EUR"}},
    ]
    net.add(
        "GET",
        f"{site}/c/coffee",
        status=200,
        resource_type="document",
        req_headers={"cookie": SHOP_COOKIE, "accept": "text/html"},
        resp_headers={"content-type": "text/html"},
        resp_body="<!doctype html><title>Coffee – Shop</title><main id=app></main>",
    )
    net.add("GET", f"{site}/_next/static/chunks/main-8c1d.js", status=200, resource_type="script")
    net.add("GET", f"{site}/_next/static/css/4e2a.css", status=200, resource_type="stylesheet")
    net.add("GET", f"{site}/fonts/Recoleta-Medium.woff2", status=200, resource_type="font")
    net.add(
        "GET",
        "https://cdn.shop.example.com/img/products/sku_7741/w_640.webp",
        status=200,
        resource_type="image",
    )
    net.add(
        "GET",
        f"{site}/api/products?category=coffee&sort=popular",
        status=200,
        req_headers=web,
        resp_headers=JSON_RESP,
        resp_body={"items": catalogue, "next": None},
    )
    net.add(
        "POST",
        "https://www.google-analytics.com/g/collect?v=2&tid=G-SHOP99&en=view_item_list",
        status=204,
        resource_type="ping",
    )
    net.add(
        "GET",
        f"{site}/api/products/sku_7741",
        status=200,
        req_headers=web,
        resp_headers=JSON_RESP,
        resp_body=product,
        page=f"{site}/p/sku_7741",
        gap_ms=2100,
    )
    r_fail = net.add(
        "POST",
        f"{site}/api/cart/items",
        status=500,
        req_headers={**web, "content-type": "application/json"},
        req_body={"productId": "sku_7741", "quantity": 1},
        resp_headers=JSON_RESP,
        resp_body={"error": "internal", "message": "inventory service timeout", "traceId": "7f0c2a"},
        page=f"{site}/p/sku_7741",
        gap_ms=1800,
        duration_ms=3004,
    )
    net.add(
        "POST",
        f"{site}/_vercel/insights/event",
        status=200,
        req_headers={"content-type": "application/json"},
        req_body={"name": "add_to_cart_error", "path": "/p/sku_7741"},
        page=f"{site}/p/sku_7741",
        gap_ms=10,
    )
    cart_item = {"id": "ci_5521", "productId": "sku_7741", "quantity": 1, "unitPrice": 1450}
    r_add = net.add(
        "POST",
        f"{site}/api/cart/items",
        status=201,
        req_headers={**web, "content-type": "application/json"},
        req_body={"productId": "sku_7741", "quantity": 1},
        resp_headers=JSON_RESP,
        resp_body={"cartId": "cart_3307", "item": cart_item},
        page=f"{site}/p/sku_7741",
        gap_ms=1500,
    )
    net.add(
        "GET",
        f"{site}/api/cart",
        status=200,
        req_headers=web,
        resp_headers={**JSON_RESP, "etag": '"cart-3307-v8"'},
        resp_body={"id": "cart_3307", "items": [cart_item], "subtotal": 1450},
        page=f"{site}/cart",
        gap_ms=900,
    )
    r_qty = net.add(
        "PATCH",
        f"{site}/api/cart/items/ci_5521",
        status=200,
        req_headers={**web, "content-type": "application/json"},
        req_body={"quantity": 2},
        resp_headers=JSON_RESP,
        resp_body={"cartId": "cart_3307", "item": {**cart_item, "quantity": 2}},
        page=f"{site}/cart",
        gap_ms=1400,
    )
    net.add(
        "GET",
        f"{site}/api/cart",
        status=304,
        req_headers={**web, "if-none-match": '"cart-3307-v9"'},
        resp_headers={"etag": '"cart-3307-v9"'},
        page=f"{site}/cart",
    )
    net.add(
        "GET",
        f"{site}/api/shipping/options?country=DE",
        status=200,
        req_headers=web,
        resp_headers=JSON_RESP,
        resp_body={"options": [{"id": "ship_dhl_std", "price": 490}, {"id": "ship_dhl_exp", "price": 990}]},
        page=f"{site}/checkout",
        gap_ms=1100,
    )
    order = {
        "id": "ord_90311",
        "cartId": "cart_3307",
        "status": "placed",
        "items": [{"productId": "sku_7741", "quantity": 2, "unitPrice": 1450}],
        "shipping": {"optionId": "ship_dhl_std", "price": 490},
        "total": {"amount": 3390, "currency": "EUR"},
    }
    r_order = net.add(
        "POST",
        f"{site}/api/orders",
        status=201,
        req_headers={**web, "content-type": "application/json", "idempotency-key": "c1e0f3b2-0d4e"},
        req_body={
            "cartId": "cart_3307",
            "shippingOptionId": "ship_dhl_std",
            "paymentMethodId": "pm_card_4242",
        },
        resp_headers=JSON_RESP,
        resp_body=order,
        page=f"{site}/checkout",
        gap_ms=4200,
        duration_ms=640,
    )
    net.add(
        "POST",
        "https://bat.bing.com/action/0?ti=5612345&evt=purchase&gv=33.90",
        status=204,
        resource_type="ping",
        page=f"{site}/checkout",
    )
    net.add(
        "GET",
        f"{site}/api/orders/ord_90311",
        status=200,
        req_headers=web,
        resp_headers=JSON_RESP,
        resp_body=order,
        page=f"{site}/order/ord_90311",
    )
    assert r_fail != r_add
    instruction = (
        "Add two bags of the Ethiopia Yirgacheffe (250 g) to the cart and check out with "
        "standard DHL shipping using the saved card."
    )
    dbdiff = {
        "tables": {
            "cart_items": {
                "inserted": [{"id": "ci_5521", "cart_id": "cart_3307", "product_id": "sku_7741", "quantity": 2}],
                "updated": [],
                "deleted": [],
            },
            "orders": {
                "inserted": [
                    {
                        "id": "ord_90311",
                        "cart_id": "cart_3307",
                        "status": "placed",
                        "total_cents": 3390,
                        "shipping_option": "ship_dhl_std",
                    }
                ],
                "updated": [],
                "deleted": [],
            },
        }
    }
    write_zip(
        OUT / "shop_checkout.zip",
        [
            ("task.json", task_json("rec_shop_90311", start, site, instruction, [r_add, r_qty, r_order])),
            ("network.json", pretty({"version": 1, "requests": net.requests})),
            ("dbdiff.json", pretty(dbdiff)),
        ],
        folder="shop-checkout-0507",
    )
