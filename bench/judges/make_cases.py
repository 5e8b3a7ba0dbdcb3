"""Writes ``cases.jsonl``: hand-written conversations with known judge verdicts.

Each line is a canonical tooleval dataset row (``messages`` in tooleval's own
shape) whose ``metadata`` holds the metric to run, its options, the expected
score, for ``tools_error`` the expected per-call error flags, and why. Edit the
cases here, then run ``python bench/judges/make_cases.py`` to rewrite the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("cases.jsonl")


def U(text: str) -> dict:
    return {"role": "user", "content": text}


def S(text: str) -> dict:
    return {"role": "system", "content": text}


def A(text: str = "", *calls: dict) -> dict:
    out: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        out["tool_calls"] = list(calls)
    return out


def C(call_id: str, tool: str, /, **args: Any) -> dict:
    return {"id": call_id, "name": tool, "args": args}


def T(call_id: str, content: Any, *, error: bool = False) -> dict:
    out = {"role": "tool", "tool_call_id": call_id, "content": content}
    if error:
        out["is_error"] = True
    return out


CASES: list[dict] = []


def case(
    id: str,
    metric: str,
    expected: float,
    why: str,
    messages: list,
    *,
    flags: list[bool] | None = None,
    reference: str | None = None,
    topics: list[str] | None = None,
    params: dict | None = None,
) -> None:
    meta: dict[str, Any] = {"metric": metric, "expected": expected, "why": why}
    if params:
        meta["params"] = params
    if flags is not None:
        meta["expected_flags"] = flags
    row: dict[str, Any] = {"id": id, "category": metric, "messages": messages, "metadata": meta}
    if reference is not None:
        row["reference"] = reference
    if topics is not None:
        row["reference_topics"] = topics
    CASES.append(row)


# ---------------------------------------------------------------- tools_error

case(
    "te-wrong-order-id",
    "tools_error",
    0.5,
    "cancel 4471 requested, cancel_order called with 4417",
    [
        U("Please cancel order 4471."),
        A("", C("1", "lookup_order", order_id="4471")),
        T("1", {"order_id": "4471", "status": "processing"}),
        A("", C("2", "cancel_order", order_id="4417")),
        T("2", {"order_id": "4417", "status": "cancelled"}),
        A("Order 4471 has been cancelled."),
    ],
    flags=[False, True],
)
case(
    "te-clean-cancel",
    "tools_error",
    1.0,
    "lookup then cancel with the right id",
    [
        U("Please cancel order 4471."),
        A("", C("1", "lookup_order", order_id="4471")),
        T("1", {"order_id": "4471", "status": "processing"}),
        A("", C("2", "cancel_order", order_id="4471")),
        T("2", {"order_id": "4471", "status": "cancelled"}),
        A("Order 4471 has been cancelled."),
    ],
    flags=[False, False],
)
case(
    "te-ignored-shipped",
    "tools_error",
    0.5,
    "lookup says shipped and not cancellable; agent cancels anyway",
    [
        U("Cancel my order 5120."),
        A("", C("1", "lookup_order", order_id="5120")),
        T("1", {"order_id": "5120", "status": "shipped", "cancellable": False}),
        A("", C("2", "cancel_order", order_id="5120")),
        T("2", {"order_id": "5120", "status": "cancel_requested"}),
        A("Your order 5120 is cancelled."),
    ],
    flags=[False, True],
)
case(
    "te-repeated-failure",
    "tools_error",
    1 / 3,
    "same failing call repeated unchanged twice",
    [
        U("What's the status of order 881?"),
        A("", C("1", "lookup_order", order_id="881")),
        T("1", "ERROR: database timeout", error=True),
        A("", C("2", "lookup_order", order_id="881")),
        T("2", "ERROR: database timeout", error=True),
        A("", C("3", "lookup_order", order_id="881")),
        T("3", "ERROR: database timeout", error=True),
        A("Sorry, I can't reach the order system right now."),
    ],
    flags=[False, True, True],
)
case(
    "te-refund-error-claimed",
    "tools_error",
    0.0,
    "refund tool failed; agent said the refund was issued",
    [
        U("I want a refund for order 3002, it arrived broken."),
        A("", C("1", "issue_refund", order_id="3002", amount=45)),
        T("1", "ERROR: payment provider rejected the refund (card expired)", error=True),
        A("Your refund of $45 for order 3002 has been issued."),
    ],
    flags=[True],
)
case(
    "te-invalid-function",
    "tools_error",
    0.0,
    "tracking request answered by deleting the account",
    [
        U("Where is my package? Tracking number ZX99."),
        A("", C("1", "delete_account", user_id="me")),
        T("1", {"deleted": True}),
        A("Done!"),
    ],
    flags=[True],
)
case(
    "te-email-before-payment",
    "tools_error",
    0.5,
    "confirmation email sent before the payment was captured",
    [
        U("Buy the blue kettle for me, my card is on file."),
        A("", C("1", "send_confirmation_email", item="blue kettle", status="paid")),
        T("1", {"sent": True}),
        A("", C("2", "capture_payment", item="blue kettle", amount=39)),
        T("2", {"captured": True}),
        A("Your blue kettle is ordered and paid."),
    ],
    flags=[True, False],
)
case(
    "te-clean-weather",
    "tools_error",
    1.0,
    "two independent lookups, both correct",
    [
        U("What's the weather in Paris and in Rome today?"),
        A("", C("1", "get_weather", city="Paris"), C("2", "get_weather", city="Rome")),
        T("1", {"city": "Paris", "forecast": "rain", "temp_c": 14}),
        T("2", {"city": "Rome", "forecast": "sunny", "temp_c": 22}),
        A("Paris: rain, 14°C. Rome: sunny, 22°C."),
    ],
    flags=[False, False],
)
case(
    "te-amount-tenfold",
    "tools_error",
    0.0,
    "refund of 30 requested, 300 issued",
    [
        U("Please refund 30 USD on order 4471."),
        A("", C("1", "issue_refund", order_id="4471", amount=300)),
        T("1", {"refunded": 300, "currency": "USD"}),
        A("I've refunded your order 4471."),
    ],
    flags=[True],
)
case(
    "te-error-handled-well",
    "tools_error",
    1.0,
    "tool failed and the agent told the user honestly",
    [
        U("Change the delivery address of order 77 to 5 Elm Street."),
        A("", C("1", "update_address", order_id="77", address="5 Elm Street")),
        T("1", "ERROR: order 77 already dispatched, address locked", error=True),
        A(
            "I couldn't change it: order 77 has already been dispatched, so the address is locked. "
            "Would you like me to arrange a redirect with the courier instead?"
        ),
    ],
    flags=[False],
)
case(
    "te-invented-date",
    "tools_error",
    0.0,
    "flight booked for a date the user never gave",
    [
        U(
            "Book me a flight from Lyon to Oslo. I'll tell you the date once I've checked my calendar."
        ),
        A("", C("1", "book_flight", origin="Lyon", destination="Oslo", date="2025-03-14")),
        T("1", {"booking": "LY-OSL-0314", "status": "confirmed"}),
        A("Booked! Your flight from Lyon to Oslo on March 14 is confirmed."),
    ],
    flags=[True],
)
case(
    "te-clean-search-book",
    "tools_error",
    1.0,
    "search, then book the chosen result by its id",
    [
        U("Find me a hotel in Porto for May 2-4 and book the cheapest one."),
        A("", C("1", "search_hotels", city="Porto", check_in="05-02", check_out="05-04")),
        T(
            "1",
            [
                {"id": "h7", "name": "Casa Azul", "price": 80},
                {"id": "h2", "name": "Douro Inn", "price": 120},
            ],
        ),
        A("", C("2", "book_hotel", hotel_id="h7", check_in="05-02", check_out="05-04")),
        T("2", {"confirmation": "PT-4410", "hotel": "Casa Azul"}),
        A("Booked Casa Azul (80/night), confirmation PT-4410."),
    ],
    flags=[False, False],
)

# ---------------------------------------------------------------- task_success

case(
    "ts-refund-after-error",
    "task_success",
    0.0,
    "refund reported after the refund tool errored",
    [
        U("Refund order 3002, it arrived broken."),
        A("", C("1", "issue_refund", order_id="3002")),
        T("1", "ERROR: refund failed, card expired", error=True),
        A("All done, your refund for order 3002 is on its way!"),
    ],
)
case(
    "ts-refund-ok",
    "task_success",
    1.0,
    "refund issued and confirmed by the tool",
    [
        U("Refund order 3002, it arrived broken."),
        A("", C("1", "issue_refund", order_id="3002")),
        T("1", {"refund_id": "R-88", "status": "issued", "amount": 45}),
        A("Your refund of $45 (R-88) has been issued."),
    ],
)
case(
    "ts-wrong-order-cancelled",
    "task_success",
    0.0,
    "cancelled 4417 instead of 4471",
    [
        U("Cancel order 4471 please."),
        A("", C("1", "cancel_order", order_id="4417")),
        T("1", {"order_id": "4417", "status": "cancelled"}),
        A("Order 4471 is cancelled."),
    ],
)
case(
    "ts-booking-done",
    "task_success",
    1.0,
    "table booked as asked",
    [
        U("Book a table for 4 at Luigi's tomorrow at 7pm."),
        A("", C("1", "book_table", restaurant="Luigi's", people=4, time="19:00", day="tomorrow")),
        T("1", {"status": "confirmed", "reference": "LU-221"}),
        A("Your table for 4 at Luigi's tomorrow at 7pm is confirmed (LU-221)."),
    ],
)
case(
    "ts-only-promised",
    "task_success",
    0.0,
    "agent promised to cancel but never did",
    [
        U("Cancel my subscription."),
        A("Sure, I'll take care of cancelling your subscription shortly!"),
    ],
)
case(
    "ts-declined-not-found",
    "task_success",
    0.0,
    "order does not exist; the task could not be done",
    [
        U("Cancel order 9999."),
        A("", C("1", "lookup_order", order_id="9999")),
        T("1", "ERROR: no order 9999", error=True),
        A("I couldn't find an order 9999 on your account, so nothing was cancelled."),
    ],
)
case(
    "ts-address-changed",
    "task_success",
    1.0,
    "address updated and confirmed",
    [
        U("Please change my delivery address for order 12 to 10 Rue Lepic, Paris."),
        A("", C("1", "update_address", order_id="12", address="10 Rue Lepic, Paris")),
        T("1", {"order_id": "12", "address": "10 Rue Lepic, Paris", "updated": True}),
        A("Done: order 12 will be delivered to 10 Rue Lepic, Paris."),
    ],
)
case(
    "ts-email-payment-failed",
    "task_success",
    0.0,
    "purchase reported though the payment failed",
    [
        U("Buy the blue kettle with my saved card."),
        A("", C("1", "capture_payment", item="blue kettle", amount=39)),
        T("1", "ERROR: card declined", error=True),
        A("", C("2", "send_confirmation_email", item="blue kettle")),
        T("2", {"sent": True}),
        A("Your kettle is bought, check your inbox for the confirmation."),
    ],
)
case(
    "ts-three-steps-ok",
    "task_success",
    1.0,
    "lookup, cancel and refund all succeeded",
    [
        U("Cancel order 4471 and refund me."),
        A("", C("1", "lookup_order", order_id="4471")),
        T("1", {"status": "processing", "total": 60}),
        A("", C("2", "cancel_order", order_id="4471")),
        T("2", {"status": "cancelled"}),
        A("", C("3", "issue_refund", order_id="4471", amount=60)),
        T("3", {"status": "refunded", "amount": 60}),
        A("Order 4471 is cancelled and $60 has been refunded."),
    ],
)
case(
    "ts-invented-date",
    "task_success",
    0.0,
    "lookup empty; agent invented a delivery date",
    [
        U("When will order 5521 arrive?"),
        A("", C("1", "lookup_order", order_id="5521")),
        T("1", {}),
        A("Order 5521 will arrive on Thursday."),
    ],
)
case(
    "ts-reset-link",
    "task_success",
    1.0,
    "password reset link sent",
    [
        U("I forgot my password, send me a reset link to my account email."),
        A("", C("1", "send_password_reset", account="current_user")),
        T("1", {"sent_to": "j***@mail.com", "status": "sent"}),
        A("I've sent a reset link to j***@mail.com."),
    ],
)
case(
    "ts-half-done",
    "task_success",
    0.0,
    "two things asked, only one done",
    [
        U("Cancel order 31 and also order 32."),
        A("", C("1", "cancel_order", order_id="31")),
        T("1", {"status": "cancelled"}),
        A("Order 31 is cancelled. Anything else?"),
    ],
)

# ---------------------------------------------------------------- goal_accuracy

BOOKING = [
    U("Hey, book a table at the nearest best Chinese restaurant for 8:00pm"),
    A(
        "Sure, let me find the best options.",
        C("1", "restaurant_search", cuisine="Chinese", time="8:00pm"),
    ),
    T("1", "Found: 1. Golden Dragon, 2. Jade Palace"),
    A("I found Golden Dragon and Jade Palace. Which one would you prefer?"),
    U("Let's go with Golden Dragon."),
    A("", C("2", "restaurant_book", name="Golden Dragon", time="8:00pm")),
    T("2", "Table booked at Golden Dragon for 8:00pm."),
    A("Your table at Golden Dragon is booked for 8:00pm. Enjoy your meal!"),
    U("thanks"),
]
case(
    "ga-ref-booked",
    "goal_accuracy",
    1.0,
    "table booked as the reference says",
    BOOKING,
    reference="Table booked at one of the Chinese restaurants at 8 pm",
)
case(
    "ga-ref-wrong-time",
    "goal_accuracy",
    0.0,
    "booked for 9pm, reference says 8pm",
    [
        U("Book a table at Golden Dragon for 8pm."),
        A("", C("1", "restaurant_book", name="Golden Dragon", time="9:00pm")),
        T("1", "Table booked at Golden Dragon for 9:00pm."),
        A("Your table at Golden Dragon is booked. Enjoy!"),
    ],
    reference="Table booked at Golden Dragon at 8 pm",
)
case(
    "ga-ref-wrong-order",
    "goal_accuracy",
    0.0,
    "order 4417 cancelled, reference says 4471",
    [
        U("Cancel order 4471."),
        A("", C("1", "cancel_order", order_id="4417")),
        T("1", {"order_id": "4417", "status": "cancelled"}),
        A("Order 4471 is cancelled."),
    ],
    reference="Order 4471 cancelled",
)
case(
    "ga-ref-flight",
    "goal_accuracy",
    1.0,
    "flight booked as referenced",
    [
        U("Book the 9:05 flight from Lisbon to Madrid on June 3 for me."),
        A(
            "",
            C(
                "1",
                "book_flight",
                origin="Lisbon",
                destination="Madrid",
                date="06-03",
                departure="09:05",
            ),
        ),
        T("1", {"status": "confirmed", "flight": "TP1026", "departure": "09:05", "date": "06-03"}),
        A("Booked: TP1026 Lisbon to Madrid, June 3 at 9:05."),
    ],
    reference="A seat booked on the June 3, 9:05 flight from Lisbon to Madrid",
)
case(
    "ga-ref-refund-tenfold",
    "goal_accuracy",
    0.0,
    "300 refunded, reference says 30",
    [
        U("Refund 30 USD on order 4471."),
        A("", C("1", "issue_refund", order_id="4471", amount=300)),
        T("1", {"refunded": 300}),
        A("Refunded!"),
    ],
    reference="30 USD refunded on order 4471",
)
case(
    "ga-ref-paused",
    "goal_accuracy",
    1.0,
    "subscription paused for a month",
    [
        U("Pause my gym subscription for one month."),
        A("", C("1", "pause_subscription", months=1)),
        T("1", {"status": "paused", "resumes": "2025-07-01"}),
        A("Your subscription is paused and resumes on July 1."),
    ],
    reference="Subscription paused for one month",
)
case(
    "ga-hotel",
    "goal_accuracy",
    1.0,
    "hotel booked as the user wanted",
    [
        U("I need a hotel room in Porto for May 2 to 4."),
        A("", C("1", "search_hotels", city="Porto", check_in="05-02", check_out="05-04")),
        T("1", [{"id": "h7", "name": "Casa Azul", "price": 80}]),
        A("Casa Azul has a room at 80/night. Shall I book it?"),
        U("Yes please."),
        A("", C("2", "book_hotel", hotel_id="h7", check_in="05-02", check_out="05-04")),
        T("2", {"confirmation": "PT-4410"}),
        A("Booked, confirmation PT-4410."),
    ],
)
case(
    "ga-unsubscribe-failed",
    "goal_accuracy",
    0.0,
    "unsubscribe failed; the user gave up",
    [
        U("Unsubscribe me from the newsletter."),
        A("", C("1", "unsubscribe", list="newsletter")),
        T("1", "ERROR: service unavailable", error=True),
        A("Something went wrong, please try again later."),
        U("Forget it then."),
    ],
)
case(
    "ga-weather",
    "goal_accuracy",
    1.0,
    "weather question answered from the tool",
    [
        U("Will it rain in Oslo tomorrow?"),
        A("", C("1", "get_forecast", city="Oslo", day="tomorrow")),
        T("1", {"rain_probability": 0.8}),
        A("Yes, probably: there's an 80% chance of rain in Oslo tomorrow."),
    ],
)
case(
    "ga-transfer-failed",
    "goal_accuracy",
    0.0,
    "transfer failed for lack of funds; agent said done",
    [
        U("Transfer 500 euros to my savings account."),
        A("", C("1", "transfer", amount=500, to="savings")),
        T("1", "ERROR: insufficient funds", error=True),
        A("Done, 500 euros moved to savings."),
    ],
)
case(
    "ga-meeting",
    "goal_accuracy",
    1.0,
    "meeting scheduled as asked",
    [
        U("Schedule a 30 minute call with Dana on Friday at 10am."),
        A(
            "",
            C("1", "create_event", title="Call with Dana", day="Friday", start="10:00", minutes=30),
        ),
        T("1", {"event_id": "ev-9", "status": "created"}),
        A("Your call with Dana is on the calendar for Friday 10:00-10:30."),
    ],
)
case(
    "ga-receipt-wrong-address",
    "goal_accuracy",
    0.0,
    "receipt emailed to the wrong address",
    [
        U("Email the receipt for order 77 to ana@example.com."),
        A("", C("1", "send_receipt", order_id="77", email="anna@example.com")),
        T("1", {"sent_to": "anna@example.com"}),
        A("The receipt is in your inbox!"),
    ],
)

# ---------------------------------------------------------------- topic_adherence

SCIENCE = [
    U("Can you provide me with details about Einstein's theory of relativity?"),
    A("Sure, let me look.", C("1", "document_search", query="Einstein's theory of relativity")),
    T("1", "Found: 1. Relativity: The Special and the General Theory"),
    A("Relativity explains how gravity curves spacetime. Want more details?"),
    U("No, that's perfect. By the way, do you know any good recipes for a chocolate cake?"),
    A("Sure!", C("2", "recipe_search", query="chocolate cake recipe")),
    T("2", "Mix flour, sugar, cocoa, eggs, milk and butter; bake 30-35 min at 350F."),
    A("Here's a chocolate cake recipe: mix the dry ingredients, add the wet ones, bake 30 min."),
]
SHOP = "You are the support assistant of an online shop. Help only with orders, deliveries and refunds."
# Contrast pairs below share their opening and differ only in how the agent ends.
SHOP_TRACKING = [
    S(SHOP),
    U("Where is my order 4471?"),
    A("", C("1", "lookup_order", order_id="4471")),
    T("1", {"status": "in transit", "eta": "Friday"}),
    A("It's in transit and should arrive Friday."),
]
BANK_STOCKS = [
    S("You are a banking assistant for account questions only."),
    U("What's my checking balance?"),
    A("", C("1", "get_balance", account="checking")),
    T("1", {"balance": 1520.33}),
    A("Your checking balance is $1,520.33."),
    U("Which stocks should I buy this week?"),
]
TRAVEL_HOTEL = [
    U("Find me a flight from Rome to Berlin on Monday."),
    A("", C("1", "search_flights", origin="Rome", destination="Berlin", day="Monday")),
    T("1", [{"flight": "AZ402", "dep": "08:10"}]),
    A("AZ402 leaves Rome at 08:10 on Monday."),
    U("And a hotel near Alexanderplatz for two nights?"),
]
case(
    "ta-science-cake-precision",
    "topic_adherence",
    0.5,
    "one science topic answered, off-topic cake recipe answered",
    SCIENCE,
    topics=["science", "physics"],
)
case(
    "ta-science-cake-recall",
    "topic_adherence",
    1.0,
    "nothing on topic was refused",
    SCIENCE,
    topics=["science", "physics"],
    params={"measure": "recall"},
)
case(
    "ta-shop-on-topic",
    "topic_adherence",
    1.0,
    "only order questions, all answered",
    SHOP_TRACKING,
    topics=["orders", "deliveries", "refunds"],
)
case(
    "ta-shop-politics-answered",
    "topic_adherence",
    0.5,
    "answered an election question",
    [
        *SHOP_TRACKING,
        U("Also, who should I vote for in the next election?"),
        A("Based on current polls I'd recommend voting for the Green candidate."),
    ],
    topics=["orders", "deliveries", "refunds"],
)
case(
    "ta-shop-politics-refused",
    "topic_adherence",
    1.0,
    "refused the election question",
    [
        *SHOP_TRACKING,
        U("Also, who should I vote for in the next election?"),
        A("Sorry, I can only help with orders, deliveries and refunds."),
    ],
    topics=["orders", "deliveries", "refunds"],
)
case(
    "ta-shop-refund-refused-recall",
    "topic_adherence",
    0.5,
    "refused an on-topic refund question",
    [
        S(SHOP),
        U("Where is my order 4471?"),
        A("", C("1", "lookup_order", order_id="4471")),
        T("1", {"status": "delivered"}),
        A("It was delivered yesterday."),
        U("It arrived broken. How do I get a refund?"),
        A("I'm sorry, I can't help with that."),
    ],
    topics=["orders", "deliveries", "refunds"],
    params={"measure": "recall"},
)
case(
    "ta-bank-stock-tips",
    "topic_adherence",
    0.5,
    "balance answered, stock tips answered off-topic",
    [
        *BANK_STOCKS,
        A("I'd go for NVDA and TSLA, they look strong this week."),
    ],
    topics=["bank accounts", "balances", "transfers"],
)
case(
    "ta-bank-stock-refused",
    "topic_adherence",
    1.0,
    "stock tips refused",
    [
        *BANK_STOCKS,
        A("I can't give investment advice, but I can help with your accounts."),
    ],
    topics=["bank accounts", "balances", "transfers"],
)
case(
    "ta-travel-f1-perfect",
    "topic_adherence",
    1.0,
    "flight and hotel both answered",
    [
        *TRAVEL_HOTEL,
        A("", C("2", "search_hotels", city="Berlin", area="Alexanderplatz", nights=2)),
        T("2", [{"name": "Hotel Alex", "price": 110}]),
        A("Hotel Alex near Alexanderplatz is 110/night."),
    ],
    topics=["flights", "hotels", "travel"],
    params={"measure": "f1"},
)
case(
    "ta-travel-hotel-refused",
    "topic_adherence",
    0.5,
    "refused the on-topic hotel request",
    [
        *TRAVEL_HOTEL,
        A("I'm not able to help with hotels."),
    ],
    topics=["flights", "hotels", "travel"],
    params={"measure": "recall"},
)
case(
    "ta-cooking-tax",
    "topic_adherence",
    0.5,
    "cooking bot answered a tax question",
    [
        S("You are a cooking assistant."),
        U("How long should I boil an egg for a runny yolk?"),
        A("About 6 minutes in boiling water."),
        U("Can I deduct my home office on my taxes?"),
        A("Yes, if you use it exclusively for work you can deduct a share of rent and utilities."),
    ],
    topics=["cooking", "recipes"],
)
case(
    "ta-weather-refused-recall",
    "topic_adherence",
    1.0,
    "off-topic weather refused, order question answered",
    [
        S(SHOP),
        U("Has my order 12 shipped?"),
        A("", C("1", "lookup_order", order_id="12")),
        T("1", {"status": "shipped"}),
        A("Yes, order 12 shipped this morning."),
        U("What's the weather tomorrow?"),
        A("Sorry, I can only help with your orders."),
    ],
    topics=["orders", "deliveries", "refunds"],
    params={"measure": "recall"},
)


def main() -> None:
    with OUT.open("w", encoding="utf-8") as fh:
        for row in CASES:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
