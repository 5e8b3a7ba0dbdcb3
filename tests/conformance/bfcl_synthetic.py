"""Synthetic BFCL cases: every decoder grammar branch and every checker rule.

Each case is a dict: ``name`` (unique), ``category``, ``functions`` (BFCL
schemas), ``ground_truth`` (possible answer; None for (ir)relevance),
``result`` (the model output), ``mode`` (``fc`` or ``prompt``) and ``names``
(``dots`` or ``underscores``). Their verdicts, as BFCL's own code gives them,
are kept in ``bfcl_cases.json`` next to this file (regenerate with
``TOOLEVAL_BFCL_WRITE=1 pytest tests/conformance/test_bfcl_synthetic.py``).
"""

from __future__ import annotations

from typing import Any


def _fn(name: str, props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "description": "",
        "parameters": {"type": "dict", "properties": props, "required": required or []},
    }


# ---------------------------------------------------------------- Python

PY_FN = _fn(
    "geo.route",
    {
        "start": {"type": "string"},
        "count": {"type": "integer"},
        "speed": {"type": "float"},
        "loop": {"type": "boolean"},
        "points": {"type": "array", "items": {"type": "float"}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "pair": {"type": "tuple", "items": {"type": "integer"}},
        "opts": {"type": "dict"},
        "legs": {"type": "array", "items": {"type": "dict"}},
        "extra": {"type": "any"},
    },
    ["start"],
)
PY_GT = [
    {
        "geo.route": {
            "start": ["New York, NY", "NYC"],
            "count": [3, ""],
            "speed": [2.0, ""],
            "loop": [False, ""],
            "points": [[1.0, 3.0], ""],
            "tags": [["fast", "Scenic route"], ""],
            "pair": [[1, 2], ""],
            "opts": [{"avoid": ["tolls"], "units": ["km", ""]}, ""],
            "legs": [[{"to": ["Boston"], "by": ["car", ""]}], ""],
            "extra": ["anything", ""],
        }
    }
]
# ground truth where a parameter holds a variable name instead of a value
VAR_FN = _fn(
    "calc.area",
    {
        "base": {"type": "integer"},
        "items": {"type": "array", "items": {"type": "integer"}},
        "cfg": {"type": "dict"},
        "name": {"type": "string"},
    },
    ["base"],
)
VAR_GT = [
    {
        "calc.area": {
            "base": ["b", 10],
            "items": ["myItemList", [1, 2], ""],
            "cfg": ["config", ""],
            "name": ["true", ""],
        }
    }
]

PY_TEXTS = [
    # wrappers and list shapes
    "[geo.route(start='NYC')]",
    "geo.route(start='NYC')",
    "(geo.route(start='NYC'),)",
    "{geo.route(start='NYC')}",
    "```\n[geo.route(start='NYC')]\n```",
    "```python\n[geo.route(start='NYC')]\n```",
    "'[geo.route(start=\"NYC\")]'",
    "\"[geo.route(start='NYC')]\"",
    "  \n[geo.route(start='NYC')]\n  ",
    "[geo.route(start='NYC'), 3]",
    "[geo.route(start='NYC')][0]",
    "[]",
    "",
    "I cannot answer that.",
    "[geo.route(start='NYC'), geo.route(start='NYC')]",
    "geo.route(start='NYC'), geo.route(start='NYC')",
    # names
    "[geo_route(start='NYC')]",
    "[route(start='NYC')]",
    "[x.geo.route(start='NYC')]",
    "[geo.route()(start='NYC')]",
    "[a[0](start='NYC')]",
    "['s'.route(start='NYC')]",
    # strings and normalisation
    "[geo.route(start='new york ny')]",
    "[geo.route(start='New-York, N.Y.')]",
    "[geo.route(start='Boston')]",
    "[geo.route(start=NYC)]",
    '[geo.route(start="NYC", count=3)]',
    "[geo.route(start='NYC', extra='Anything')]",
    "[geo.route(start='NYC', extra=1)]",
    # numbers and unary operators
    "[geo.route(start='NYC', count=3.0)]",
    "[geo.route(start='NYC', count=True)]",
    "[geo.route(start='NYC', count=-3)]",
    "[geo.route(start='NYC', count=+3)]",
    "[geo.route(start='NYC', count=~-3)]",
    "[geo.route(start='NYC', count=-(-3))]",
    "[geo.route(start='NYC', loop=not True)]",
    "[geo.route(start='NYC', count=-True)]",
    "[geo.route(start='NYC', count=-'3')]",
    "[geo.route(start='NYC', count=-x)]",
    "[geo.route(start='NYC', speed=2)]",
    "[geo.route(start='NYC', speed=2.0)]",
    "[geo.route(start='NYC', speed=-2.0)]",
    "[geo.route(start='NYC', speed=4/2)]",
    "[geo.route(start='NYC', speed=1+1)]",
    "[geo.route(start='NYC', count=2**2-1)]",
    "[geo.route(start='NYC', count=7//2)]",
    "[geo.route(start='NYC', count=1/0)]",
    "[geo.route(start='NYC', count=x+1)]",
    "[geo.route(start='NYC', count=0x3)]",
    "[geo.route(start='NYC', count=3_0)]",
    "[geo.route(start='NYC', speed=2e0)]",
    "[geo.route(start='NYC', count=3j)]",
    "[geo.route(start='NYC', start2='NY' + 'C')]",
    "[geo.route(start='N' + 'YC')]",
    "[geo.route(start='NY' 'C')]",
    # booleans and bare identifiers
    "[geo.route(start='NYC', loop=False)]",
    "[geo.route(start='NYC', loop=false)]",
    "[geo.route(start='NYC', loop=0)]",
    "[geo.route(start='NYC', loop=None)]",
    "[geo.route(start='NYC', loop=null)]",
    # lists, tuples, sets
    "[geo.route(start='NYC', points=[1.0, 3.0])]",
    "[geo.route(start='NYC', points=[1, 3])]",
    "[geo.route(start='NYC', points=[1.0, 3])]",
    "[geo.route(start='NYC', points=[3.0, 1.0])]",
    "[geo.route(start='NYC', points=(1.0, 3.0))]",
    "[geo.route(start='NYC', points={1.0, 3.0})]",
    "[geo.route(start='NYC', points=[])]",
    "[geo.route(start='NYC', points=[1.0]*2)]",
    "[geo.route(start='NYC', points=[1.0] + [3.0])]",
    "[geo.route(start='NYC', tags=['FAST', 'scenic-route'])]",
    "[geo.route(start='NYC', tags=['fast'])]",
    "[geo.route(start='NYC', tags=[fast, 'Scenic route'])]",
    "[geo.route(start='NYC', tags='fast')]",
    "[geo.route(start='NYC', pair=(1, 2))]",
    "[geo.route(start='NYC', pair=[1, 2])]",
    "[geo.route(start='NYC', pair=(2, 1))]",
    "[geo.route(start='NYC', pair=(1, '2'))]",
    "[geo.route(start='NYC', points=[i for i in x])]",
    # dicts
    "[geo.route(start='NYC', opts={'avoid': 'tolls'})]",
    "[geo.route(start='NYC', opts={'avoid': 'Tolls', 'units': 'KM'})]",
    "[geo.route(start='NYC', opts={'avoid': 'ferries'})]",
    "[geo.route(start='NYC', opts={'units': 'km'})]",
    "[geo.route(start='NYC', opts={'avoid': 'tolls', 'fast': True})]",
    "[geo.route(start='NYC', opts={avoid: 'tolls'})]",
    "[geo.route(start='NYC', opts={})]",
    "[geo.route(start='NYC', opts={**x})]",
    "[geo.route(start='NYC', opts={['a']: 1})]",
    "[geo.route(start='NYC', opts=dict(avoid='tolls'))]",
    "[geo.route(start='NYC', opts='tolls')]",
    # list of dicts
    "[geo.route(start='NYC', legs=[{'to': 'boston'}])]",
    "[geo.route(start='NYC', legs=[{'to': 'Boston', 'by': 'car'}])]",
    "[geo.route(start='NYC', legs=[{'to': 'Boston'}, {'to': 'NYC'}])]",
    "[geo.route(start='NYC', legs=[{'to': 'Albany'}])]",
    "[geo.route(start='NYC', legs=[{'from': 'Boston'}])]",
    "[geo.route(start='NYC', legs=[])]",
    # (legs=['Boston'] is left out: BFCL's checker raises on it)
    # calls, subscripts and other expressions as values
    "[geo.route(start=get_city(1))]",
    "[geo.route(start=get_city(name='NYC'))]",
    "[geo.route(start=cities[0])]",
    "[geo.route(start=cities[1:2])]",
    "[geo.route(start=cities['a', 'b'])]",
    "[geo.route(start=city.name)]",
    "[geo.route(start=f'NYC')]",
    "[geo.route(start='NYC', loop=1 < 2)]",
    "[geo.route(start='NYC', loop=True and False)]",
    "[geo.route(start=lambda: 'NYC')]",
    "[geo.route(start=...)]",
    "[geo.route(start='NYC', extra=b'x')]",
    "[geo.route(start='NYC' if x else 'B')]",
    "[geo.route(start=(x := 'NYC'))]",
    # argument forms
    "[geo.route('NYC')]",
    "[geo.route('NYC', start='NYC')]",
    "[geo.route(start='NYC', **kw)]",
    "[geo.route(*args, start='NYC')]",
    "[geo.route(start='NYC', start='NYC')]",
    "[geo.route()]",
    "[geo.route(count=3)]",
    "[geo.route(start='NYC', color='red')]",
    "[geo.route(start='NYC'",
    "[geo.route(start='NYC\\x00')]",
    "[geo.route(start='NYC')  # the route\n]",
    "[\n  geo.route(\n    start='NYC',\n    count=3,\n  ),\n]",
    "[geo.route(start='NYC', legs=[{'to': 'Boston', 'by': get(mode='car')}])]",
    "[geo.route(start='NYC', opts={'avoid': 'tolls', 'units': None})]",
    "[geo.route(start='NYC', count=3, count2=-(3))]",
    "[geo.route(start='NYC', tags=['fast', \"Scenic route\"])]",
    "[geo.route(start='''NYC''')]",
    "[geo.route(start=r'NYC')]",
    "[geo.route(start=u'NYC')]",
    "[geo.route(start='NYC', speed=float('2.0'))]",
    "[geo.route(start='NYC', pair=(1, 2)[0:2])]",
    "[geo.route(start='NYC', extra=[*xs])]",
    "[await geo.route(start='NYC')]",
    "[geo.route(start='NYC') for x in y]",
    "[geo.route(start='NYC')] [geo.route(start='NYC')]",
]
VAR_TEXTS = [
    "[calc.area(base=b)]",
    "[calc.area(base=10)]",
    "[calc.area(base='b')]",
    "[calc.area(base=c)]",
    "[calc.area(base=10.0)]",
    "[calc.area(base=10, items=myItemList)]",
    "[calc.area(base=10, items=[1, 2])]",
    "[calc.area(base=10, items=['1', '2'])]",
    "[calc.area(base=10, items=['a', 2])]",
    "[calc.area(base=10, cfg=config)]",
    "[calc.area(base=10, cfg={'a': 1})]",
    "[calc.area(base=10, name=true)]",
    "[calc.area(base=10, name=True)]",
    "[calc.area(base=10, name='TRUE')]",
]


OPT_FN = _fn(
    "stats.mean",
    {"xs": {"type": "array", "items": {"type": "float"}}, "w": {"type": "integer"}},
    ["xs"],
)
OPT_GT = [{"stats.mean": {"xs": [[1.0, 2.0]], "w": [2]}}]
OPT_TEXTS = [
    "[stats.mean(xs=[1.0, 2.0], w=2)]",
    "[stats.mean(xs=[1.0, 2.0])]",
    "[stats.mean(xs=[1, 2], w=2)]",
    "[stats.mean(xs=[1.0, 2], w=2)]",
    "[stats.mean(xs=[1.0, 2.0], w=2.0)]",
    "[stats.mean(xs=(1.0, 2.0), w=2)]",
    "[stats.mean(xs=xs, w=2)]",
]


# a possible answer whose dict field holds a bare string instead of a list
NEST_FN = _fn("cfg.set", {"cfg": {"type": "dict"}}, ["cfg"])
NEST_GT = [{"cfg.set": {"cfg": [{"mode": "fast", "n": [1, ""]}]}}]  # (an object there crashes BFCL)
NEST_TEXTS = [
    "[cfg.set(cfg={'mode': 'f'})]",
    "[cfg.set(cfg={'mode': 'fast'})]",
    "[cfg.set(cfg={'n': 1})]",
    "[cfg.set(cfg={'mode': 'T', 'n': 1})]",
    "[cfg.set(cfg={'mode': ''})]",
]


def _python_cases() -> list[dict[str, Any]]:
    cases = []
    for i, text in enumerate(NEST_TEXTS):
        cases.append(
            {
                "name": f"pynest_{i}",
                "category": "live_simple",
                "functions": [NEST_FN],
                "ground_truth": NEST_GT,
                "result": text,
                "mode": "prompt",
                "names": "dots",
            }
        )
    for i, text in enumerate(OPT_TEXTS):
        cases.append(
            {
                "name": f"pyopt_{i}",
                "category": "simple_python",
                "functions": [OPT_FN],
                "ground_truth": OPT_GT,
                "result": text,
                "mode": "prompt",
                "names": "dots",
            }
        )
    for i, text in enumerate(PY_TEXTS):
        for names in ("dots", "underscores"):
            cases.append(
                {
                    "name": f"py_{i}_{names}",
                    "category": "simple_python",
                    "functions": [PY_FN],
                    "ground_truth": PY_GT,
                    "result": text,
                    "mode": "prompt",
                    "names": names,
                }
            )
    for i, text in enumerate(VAR_TEXTS):
        cases.append(
            {
                "name": f"pyvar_{i}",
                "category": "live_simple",
                "functions": [VAR_FN],
                "ground_truth": VAR_GT,
                "result": text,
                "mode": "prompt",
                "names": "dots",
            }
        )
    return cases


# ---------------------------------------------------------------- function calling

FC_RESULTS: list[Any] = [
    [{"geo.route": '{"start": "NYC"}'}],
    [{"geo_route": '{"start": "NYC"}'}],
    [{"geo.route": {"start": "NYC", "speed": 2}}],
    [{"geo.route": '{"start": "NYC", "points": [1, 3.0]}'}],
    [{"geo.route": '{"start": "NYC", "count": 3.0}'}],
    [{"geo.route": '{"start": "NYC", "opts": {"avoid": "TOLLS"}}'}],
    [{"geo.route": '{"start": "NYC", "opts": {"avoid": ["tolls"]}}'}],
    [{"geo.route": '{"start": "NYC", "legs": [{"to": "boston", "by": "CAR"}]}'}],
    [{"geo.route": '{"start": "NYC", "tags": ["fast", "scenic route"]}'}],
    [{"geo.route": '{"start": "NYC", "extra": null}'}],
    [{"geo.route": '{"start": "NYC"'}],
    [{"geo.route": "[1]"}],
    [{"geo.route": ""}],
    [{}],
    ["geo.route"],
    [{"geo.route": '{"start": "NYC"}', "other": "{}"}],
    [{"geo.route": '{"start": "NYC"}'}, {"geo.route": '{"start": "NYC"}'}],
    [],
    "",
    "[geo.route(start='NYC')]",
]


def _fc_cases() -> list[dict[str, Any]]:
    cases = []
    for i, result in enumerate(FC_RESULTS):
        for names in ("dots", "underscores"):
            cases.append(
                {
                    "name": f"fc_{i}_{names}",
                    "category": "simple_python",
                    "functions": [PY_FN],
                    "ground_truth": PY_GT,
                    "result": result,
                    "mode": "fc",
                    "names": names,
                }
            )
    return cases


# ---------------------------------------------------------------- multiple and parallel

MULTI_FNS = [
    _fn("weather.get", {"city": {"type": "string"}, "days": {"type": "integer"}}, ["city"]),
    _fn("stocks.price", {"ticker": {"type": "string"}}, ["ticker"]),
]
MULTI_GT = [{"weather.get": {"city": ["Paris"], "days": [3, ""]}}]
PAR_GT = [
    {"weather.get": {"city": ["Paris"], "days": [3, ""]}},
    {"weather.get": {"city": ["Rome"], "days": [3, ""]}},
]
PAR_MULTI_GT = [
    {"weather.get": {"city": ["Paris"], "days": ["", 3]}},
    {"stocks.price": {"ticker": ["AAPL"]}},
]
MULTI_TEXTS = [
    "[weather.get(city='Paris')]",
    "[weather.get(city='paris', days=3)]",
    "[stocks.price(ticker='AAPL')]",
    "[weather.get(city='Paris'), stocks.price(ticker='AAPL')]",
    "[weather.get(city='Rome')]",
    "[]",
]
PAR_TEXTS = [
    "[weather.get(city='Paris'), weather.get(city='Rome')]",
    "[weather.get(city='Rome'), weather.get(city='Paris', days=3)]",
    "[weather.get(city='Rome')]",
    "[weather.get(city='Rome'), weather.get(city='Rome')]",
    "[weather.get(city='Paris'), weather.get(city='Rome'), weather.get(city='Oslo')]",
    "[weather.get(city='Paris', days=4), weather.get(city='Rome')]",
]
PAR_MULTI_TEXTS = [
    "[stocks.price(ticker='AAPL'), weather.get(city='Paris')]",
    "[weather.get(city='Paris', days=3), stocks.price(ticker='aapl')]",
    "[weather.get(city='Paris'), weather.get(city='Paris')]",
    "[stocks.price(ticker='AAPL'), stocks.price(ticker='AAPL')]",
    "[weather_get(city='Paris'), stocks_price(ticker='AAPL')]",
]


def _multi_cases() -> list[dict[str, Any]]:
    cases = []
    groups = [
        ("multiple", MULTI_GT, MULTI_TEXTS),
        ("live_multiple", MULTI_GT, MULTI_TEXTS),
        ("parallel", PAR_GT, PAR_TEXTS),
        ("live_parallel", PAR_GT, PAR_TEXTS),
        ("parallel_multiple", PAR_MULTI_GT, PAR_MULTI_TEXTS),
        ("live_parallel_multiple", PAR_MULTI_GT, PAR_MULTI_TEXTS),
    ]
    for category, gt, texts in groups:
        for i, text in enumerate(texts):
            for names in ("dots", "underscores"):
                cases.append(
                    {
                        "name": f"{category}_{i}_{names}",
                        "category": category,
                        "functions": MULTI_FNS,
                        "ground_truth": gt,
                        "result": text,
                        "mode": "prompt",
                        "names": names,
                    }
                )
    return cases


# ---------------------------------------------------------------- (ir)relevance

RELEVANCE_RESULTS: list[tuple[str, Any]] = [
    ("prompt", "[weather.get(city='Paris')]"),
    ("prompt", "weather.get(city='Paris')"),
    ("prompt", "[]"),
    ("prompt", ""),
    ("prompt", "I cannot help with that."),
    ("prompt", "None"),
    ("prompt", "[weather.get(city=x.y)]"),
    ("prompt", "[weather.get()]"),
    ("prompt", "[weather.get(city='Paris'), 3]"),
    ("prompt", "Sure! [weather.get(city='Paris')]"),
    ("prompt", "```\nweather.get(city='Paris')\n```"),
    ("prompt", "get()()"),
    ("prompt", "[{'weather.get': {'city': 'Paris'}}]"),
    ("fc", []),
    ("fc", [{"weather.get": '{"city": "Paris"}'}]),
    ("fc", [{"weather.get": "{}"}]),
    ("fc", [{"weather.get": "not json"}]),
    ("fc", [{"weather.get": "[]"}]),
    ("fc", "I cannot help with that."),
    ("fc", ""),
]


def _relevance_cases() -> list[dict[str, Any]]:
    cases = []
    for category in ("irrelevance", "live_irrelevance", "live_relevance"):
        for i, (mode, result) in enumerate(RELEVANCE_RESULTS):
            cases.append(
                {
                    "name": f"{category}_{i}",
                    "category": category,
                    "functions": MULTI_FNS,
                    "ground_truth": None,
                    "result": result,
                    "mode": mode,
                    "names": "dots",
                }
            )
    return cases


def build_cases() -> list[dict[str, Any]]:
    """Every synthetic case, in a stable order with unique names."""
    from tests.conformance.bfcl_synthetic_langs import lang_cases

    cases = _python_cases() + _fc_cases() + _multi_cases() + _relevance_cases() + lang_cases()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    return cases
