"""Synthetic BFCL cases for the Java and JavaScript categories (see bfcl_synthetic)."""

from __future__ import annotations

from typing import Any

from tests.conformance.bfcl_synthetic import _fn

JAVA_FN = _fn(
    "Db.connect",
    {
        "id": {"type": "integer"},
        "small": {"type": "byte"},
        "short": {"type": "short"},
        "big": {"type": "long"},
        "ratio": {"type": "float"},
        "precise": {"type": "double"},
        "flag": {"type": "boolean"},
        "letter": {"type": "char"},
        "name": {"type": "String"},
        "extra": {"type": "any"},
        "nums": {"type": "Array", "items": {"type": "integer"}},
        "words": {"type": "ArrayList", "items": {"type": "String"}},
        "longs": {"type": "ArrayList", "items": {"type": "long"}},
        "doubles": {"type": "Array", "items": {"type": "double"}},
        "opts": {"type": "HashMap"},
    },
    ["id", "name"],
)
JAVA_GT = [
    {
        "Db.connect": {
            "id": [5],
            "small": [1, ""],
            "short": [-2, ""],
            "big": [100, ""],
            "ratio": [1.5, ""],
            "precise": [2.5, ""],
            "flag": [True, ""],
            "letter": ["a", ""],
            "name": ["db1", "DB 1"],
            "extra": ["thing", ""],
            "nums": [[1, 2], ""],
            "words": [["x", "y"], ""],
            "longs": [[1, 2], ""],
            "doubles": [[0.5], ""],
            "opts": [{"k": ["v"], "n": [1, ""]}, ""],
        }
    }
]
_J = 'Db.connect(id=5, name="db1"'
JAVA_TEXTS = [
    f"[{_J})]",
    f"{_J})",
    f"[{_J});]",
    f"```\n[{_J})]\n```",
    "[Db.connect(id=5, name='db1')]",
    '[Db.connect(id="5", name="db1")]',
    '[Db.connect(id=5, name="DB-1")]',
    '[Db.connect(id=5, name="db2")]',
    '[Db.connect(id=-5, name="db1")]',
    '[Db.connect(id=2+3, name="db1")]',
    '[Db.connect(id=5L, name="db1")]',
    '[Db.connect(id=5.0, name="db1")]',
    '[connect(id=5, name="db1")]',
    '[Db_connect(id=5, name="db1")]',
    '[conn.Db.connect(id=5, name="db1")]',
    "[Db.connect(id=5)]",
    '[Db.connect(name="db1")]',
    '[Db.connect(id=5, name="db1", color="red")]',
    '[Db.connect(id=5, name="db1", verbose)]',
    '[Db.connect(id=5, name="db1", String.class)]',
    '[Db.connect(id=5, name="db1", 42)]',
    '[Db.connect(id=5, id=6, name="db1")]',
    "[Db.connect(id=5, name=dbName)]",
    "[Db.connect(id=5, name=cfg.name)]",
    '[Db.connect(id=5, name=System.getenv("DB"))]',
    '[Db.connect(id=5, name="db" + "1")]',
    '[Db.connect(id=5, name="db1"), Db.connect(id=5, name="db1")]',
    '[Db.connect(id=5, name="db1"',
    "I cannot connect to a database.",
    "[]",
    '[Db.connect(id=5, name="db1", small=1, short=-2, big=100L)]',
    '[Db.connect(id=5, name="db1", big=100)]',
    '[Db.connect(id=5, name="db1", ratio=1.5f)]',
    '[Db.connect(id=5, name="db1", ratio=1.5)]',
    '[Db.connect(id=5, name="db1", precise=2.5)]',
    '[Db.connect(id=5, name="db1", precise=2.5d)]',
    '[Db.connect(id=5, name="db1", precise=25e-1)]',
    '[Db.connect(id=5, name="db1", flag=true)]',
    '[Db.connect(id=5, name="db1", flag="true")]',
    '[Db.connect(id=5, name="db1", flag=TRUE)]',
    "[Db.connect(id=5, name=\"db1\", letter='a')]",
    '[Db.connect(id=5, name="db1", letter="a")]',
    '[Db.connect(id=5, name="db1", extra="thing")]',
    '[Db.connect(id=5, name="db1", extra=thing)]',
    '[Db.connect(id=5, name="db1", nums=new int[]{1, 2})]',
    '[Db.connect(id=5, name="db1", nums=new int[] {2, 1})]',
    '[Db.connect(id=5, name="db1", nums=new int[2])]',
    '[Db.connect(id=5, name="db1", nums=new Integer[]{1, 2})]',
    '[Db.connect(id=5, name="db1", nums={1, 2})]',
    '[Db.connect(id=5, name="db1", words=new ArrayList<>(Arrays.asList("x", "y")))]',
    '[Db.connect(id=5, name="db1", words=new ArrayList<String>(Arrays.asList("X", "y")))]',
    '[Db.connect(id=5, name="db1", words=Arrays.asList("x", "y"))]',
    '[Db.connect(id=5, name="db1", words=new ArrayList<>())]',
    '[Db.connect(id=5, name="db1", longs=new ArrayList<>(Arrays.asList(1L, 2L)))]',
    '[Db.connect(id=5, name="db1", longs=new ArrayList<>(Arrays.asList(1, 2)))]',
    '[Db.connect(id=5, name="db1", doubles=new double[]{0.5})]',
    '[Db.connect(id=5, name="db1", doubles=new double[]{.5})]',
    '[Db.connect(id=5, name="db1", opts=new HashMap<>())]',
    '[Db.connect(id=5, name="db1", opts=new HashMap<String, String>() {{ put("k", "v"); }})]',
    '[Db.connect(id=5, name="db1", opts=Map.of("k", "v"))]',
    '[Db.connect(id=5, name="db1", opts=x -> x + 1)]',
    '[Db.connect(id=5, name="caf\u00e9 db")]',
    '[Db.connect(id=5, /* the id */ name="db1") // done]',
    '[Db.connect(id=5, name="db1");\nOther.call(x=1);]',
    '[int x = 1; Db.connect(id=x, name="db1");]',
    "[Db.connect(id=5, name=Collections.<String>emptyList())]",
    "[Db.connect(id=5, name=(String) obj)]",
    '[Db.connect(id=5, name=cond ? "db1" : "db2")]',
    "[Db.connect(id=5, name=\"db1\", letter='\\n')]",
    '[Db.connect(id=0x5, name="db1")]',
    '[Db.connect(id=5, name="db1", nums=new int[][]{{1, 2}})]',
    '[Db.connect(id=5, name="db1", words=new ArrayList<String>() {{ add("x"); add("y"); }})]',
    '[Db.connect(id = 5 , name = "db1")]',
    '[Db.connect(id+=5, name="db1")]',
    '[new Db().connect(id=5, name="db1")]',
]
JAVA_FC = [
    {"Db.connect": '{"id": "5", "name": "db1"}'},
    {"Db.connect": '{"id": 5, "name": "db1"}'},
    {"Db.connect": '{"id": "5", "name": "db1", "nums": "new int[]{1, 2}"}'},
    {"Db.connect": '{"id": "5", "name": "db1", "flag": true}'},
    {"Db.connect": '{"id": "5", "name": "\\"db1\\""}'},
    {"Db.connect": '{"id": "5\\n", "name": "db1"}'},
    {"Db.connect": '{"id": " 5", "name": "db1"}'},
    {"Db.connect": '{"id": "\\uff15", "name": "db1"}'},
    {"Db.connect": '{"id": "5", "name": "db1", "big": "100L\\n"}'},
    {"Db.connect": '{"id": "5", "name": "db1", "ratio": "1.5f\\n"}'},
    {"Db.connect": '{"id": "5", "name": "db1", "precise": "2.5\\n"}'},
    {"Db.connect": '{"id": "5", "name": "db1", "flag": "true\\n"}'},
    {"Db.connect": '{"id": "5", "name": "db1", "nums": "new int[]{1, 2\\n}"}'},
    {
        "Db.connect": '{"id": "5", "name": "db1", "longs": "new ArrayList<>(Arrays.asList(1L, 2L\\n))"}'
    },
    {
        "Db.connect": '{"id": "5", "name": "db1", "opts": "new HashMap<String, Object>() {{ put(\\"k\\", \\"v\\"); put(\\"n\\", 1); }}"}'
    },
    {"Db.connect": '{"id": "5", "name": "db1", "doubles": "new double[]{0.5, }"}'},
    {"Db.connect": '{"id": "5", "name": "db1", "letter": "\'a\'"}'},
]

JS_FN = _fn(
    "fetchData",
    {
        "url": {"type": "String"},
        "retries": {"type": "integer"},
        "ratio": {"type": "float"},
        "big": {"type": "Bigint"},
        "flag": {"type": "Boolean"},
        "items": {"type": "array", "items": {"type": "String"}},
        "nums": {"type": "array", "items": {"type": "integer"}},
        "grid": {"type": "array", "items": {"type": "array"}},
        "cfg": {"type": "dict"},
        "extra": {"type": "any"},
    },
    ["url"],
)
JS_GT = [
    {
        "fetchData": {
            "url": ["https://x.com"],
            "retries": [3, ""],
            "ratio": [0.5, ""],
            "big": [10, ""],
            "flag": [True, ""],
            "items": [["a", "b"], ""],
            "nums": [[1, 2], ""],
            "grid": [[[1, 2], [3, 4]], ""],
            "cfg": [{"k": ["v"], "n": [1, ""]}, ""],
            "extra": ["x", ""],
        }
    }
]
_U = 'fetchData(url="https://x.com"'
JS_TEXTS = [
    f"[{_U})]",
    f"{_U})",
    f"[{_U});]",
    "[fetchData(url='https://x.com')]",
    "[fetchData(url=`https://x.com`)]",
    '[fetchData(url="HTTPS://X.COM")]',
    '[fetchData(url="https://y.com")]',
    "[fetchData(url=myUrl)]",
    '[fetchData(url="https://x.com"), fetchData(url="https://x.com")]',
    '[fetchData(url="https://x.com", url="https://x.com")]',
    '[fetchData(url="https://x.com", true)]',
    '[fetchData(url="https://x.com", verbose)]',
    '[fetchData(url="https://x.com", false)]',
    '[fetchData(url="https://x.com", 3)]',
    '[api.fetchData(url="https://x.com")]',
    '[await fetchData(url="https://x.com")]',
    '[fetchData(url="https://x.com"',
    "[let x = 1]",
    "Sorry, I cannot fetch that.",
    "[]",
    '[fetchData(url="https://x.com", retries=3)]',
    '[fetchData(url="https://x.com", retries="3")]',
    '[fetchData(url="https://x.com", retries=3.0)]',
    '[fetchData(url="https://x.com", retries=-3)]',
    '[fetchData(url="https://x.com", ratio=0.5)]',
    '[fetchData(url="https://x.com", ratio=.5)]',
    '[fetchData(url="https://x.com", ratio=1)]',
    '[fetchData(url="https://x.com", big=10n)]',
    '[fetchData(url="https://x.com", big=10)]',
    '[fetchData(url="https://x.com", flag=true)]',
    '[fetchData(url="https://x.com", flag="true")]',
    '[fetchData(url="https://x.com", items=["a", "b"])]',
    "[fetchData(url=\"https://x.com\", items=['A', 'b'])]",
    '[fetchData(url="https://x.com", items=new Array("a", "b"))]',
    '[fetchData(url="https://x.com", items=["a, b"])]',
    '[fetchData(url="https://x.com", items=[])]',
    '[fetchData(url="https://x.com", items="a,b")]',
    '[fetchData(url="https://x.com", nums=[1, 2])]',
    '[fetchData(url="https://x.com", nums=[1, "2"])]',
    '[fetchData(url="https://x.com", nums=[1.0, 2])]',
    '[fetchData(url="https://x.com", grid=[[1, 2], [3, 4]])]',
    '[fetchData(url="https://x.com", grid=[[1, 2],[3, 4]])]',
    '[fetchData(url="https://x.com", grid=[[1, 2]])]',
    '[fetchData(url="https://x.com", cfg={k: "v"})]',
    "[fetchData(url=\"https://x.com\", cfg={'k': 'V', 'n': 1})]",
    '[fetchData(url="https://x.com", cfg={"k": "v", "n": "1"})]',
    '[fetchData(url="https://x.com", cfg={})]',
    '[fetchData(url="https://x.com", cfg={k: "w"})]',
    '[fetchData(url="https://x.com", cfg={n: 1})]',
    '[fetchData(url="https://x.com", cfg={k: ["v"]})]',
    '[fetchData(url="https://x.com", cfg=config)]',
    '[fetchData(url="https://x.com", extra="x")]',
    '[fetchData(url="https://x.com", extra=x)]',
    '[fetchData(url="https://x.com", extra=() => 1)]',
    '[fetchData(url="https://x.com" /* main */) // done]',
    '[fetchData(url="https://x.com");\nfetchData(url="https://y.com");]',
    '[const u = "https://x.com"; fetchData(url=u);]',
    '[fetchData(url="https://x.com", cfg={...base, k: "v"})]',
    '[fetchData(url="https://x.com", items=[...xs])]',
    '[fetchData(url="https://x.com", extra=`x`)]',
    '[fetchData(url="https://x.com", retries += 3)]',
    '[fetchData(url = "https://x.com")]',
    '[fetchData(url="https://x.com", ratio=1e-1)]',
    '[fetchData(url="https://x.com", nums=new Array(1, 2))]',
    '[fetchData(url="https://x.com", cfg={"k": {"a": 1}, "n": [1, 2]})]',
    '[fetchData?.(url="https://x.com")]',
    "[fetchData`x`]",
    "[fetchData(url='\\'https://x.com\\'')]",
]
JS_FC = [
    {"fetchData": '{"url": "https://x.com"}'},
    {"fetchData": '{"url": "https://x.com", "retries": 3}'},
    {"fetchData": '{"url": "https://x.com", "retries": "3"}'},
    {"fetchData": '{"url": "\'https://x.com\'", "items": "[\\"a\\", \\"b\\"]"}'},
    {"fetchData": '{"url": "https://x.com", "retries": "3\\n"}'},
    {"fetchData": '{"url": "https://x.com", "ratio": "0.5\\n"}'},
    # ("big": "10n\\n" is left out: BFCL's converter raises on it)
    {"fetchData": '{"url": "https://x.com", "nums": "[1, 2]\\n"}'},
    {"fetchData": '{"url": "https://x.com", "nums": " [1, 2]"}'},
    {"fetchData": '{"url": "https://x.com", "grid": "new Array([1, 2], [3, 4])"}'},
    {"fetchData": '{"url": "https://x.com", "cfg": "{k: \'v\', n: 1}"}'},
    {"fetchData": '{"url": "https://x.com", "cfg": "{k: v, n: [1, 2]}"}'},
    {"fetchData": '{"url": "https://x.com", "cfg": " {}"}'},
    {"fetchData": '{"url": "https://x.com", "items": "[a, \'b\']"}'},
    {"fetchData": '{"url": "\\"https://x.com"}'},
]


def lang_cases() -> list[dict[str, Any]]:
    """Java and JavaScript cases, prompt style and function calling."""
    cases = []
    groups = [
        ("simple_java", JAVA_FN, JAVA_GT, JAVA_TEXTS, JAVA_FC),
        ("simple_javascript", JS_FN, JS_GT, JS_TEXTS, JS_FC),
    ]
    for category, fn, gt, texts, fc in groups:
        for i, text in enumerate(texts):
            cases.append(
                {
                    "name": f"{category}_{i}",
                    "category": category,
                    "functions": [fn],
                    "ground_truth": gt,
                    "result": text,
                    "mode": "prompt",
                    "names": "dots",
                }
            )
        for i, item in enumerate(fc):
            cases.append(
                {
                    "name": f"{category}_fc_{i}",
                    "category": category,
                    "functions": [fn],
                    "ground_truth": gt,
                    "result": [item],
                    "mode": "fc",
                    "names": "dots",
                }
            )
    return cases
