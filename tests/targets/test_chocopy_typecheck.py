"""Tests for ChocoPy semantic analysis and type checking (targets/chocopy/typecheck.py)."""

import importlib.util
from pathlib import Path

import pytest

from targets.chocopy.driver import ChocoPySyntaxError, typecheck
from targets.chocopy.parser import parse

ROOT = Path(__file__).resolve().parents[2]
# the conformance data lives in shared/, beside the repository checkout
DATA = next(
    (p for p in (Path(__file__).resolve().parents[2].parent / "shared" / "chocopy-conformance",
                 Path("/work/shared/chocopy-conformance")) if p.is_dir()),
    Path(__file__).resolve().parents[2].parent / "shared" / "chocopy-conformance",
)


def cls(name):
    return {"kind": "ClassValueType", "className": name}


def lst(elem):
    return {"kind": "ListValueType", "elementType": elem}


INT, BOOL, STR, OBJ, NONE, EMPTY = (cls(n) for n in ("int", "bool", "str", "object", "<None>", "<Empty>"))


def messages(src):
    return [e["message"] for e in typecheck(src)["errors"]["errors"]]


def last_type(src):
    """Inferred type of the expression of the last statement (an ExprStmt)."""
    return typecheck(src)["statements"][-1]["expr"]["inferredType"]


# ------------------------------------------------------------ the Bonsai paper's examples


# The eleven small programs of the Bonsai paper's Figs. 3.2-3.4 as far as the issue names them
# (`pass`, `a:object = 1`, `def a(b:str, a:int)`, nested functions with and without nonlocal,
# `[[1], [None]]`, a class with an attribute that is constructed); the last four are
# reconstructions covering the remaining statement forms (index assignment, builtin calls,
# for, while). Each maps to the kinds of its top-level declarations and statements.
PAPER_EXAMPLES = {
    "pass\n": ([], []),
    "a:object = 1\n": (["VarDef"], []),
    "def a(b:str, a:int):\n    pass\n": (["FuncDef"], []),
    "def f():\n    def g():\n        pass\n    pass\n": (["FuncDef"], []),
    "def f() -> int:\n    x:int = 0\n"
    "    def g():\n        nonlocal x\n        x = 1\n    g()\n    return x\n": (["FuncDef"], []),
    "[[1], [None]]\n": ([], ["ExprStmt"]),
    "class A(object):\n    a:int = 0\nx:A = None\nx = A()\n": (["ClassDef", "VarDef"], ["AssignStmt"]),
    "x:[int] = None\nx = [1, 2]\nx[0] = x[1]\n": (["VarDef"], ["AssignStmt", "AssignStmt"]),
    "print(len(\"ab\"))\n": ([], ["ExprStmt"]),
    "x:str = \"\"\nfor x in \"abc\":\n    print(x)\n": (["VarDef"], ["ForStmt"]),
    "x:bool = True\nwhile x:\n    x = not x\n": (["VarDef"], ["WhileStmt"]),
}


@pytest.mark.parametrize("src", list(PAPER_EXAMPLES))
def test_paper_examples_parse_to_the_expected_program(src):
    decls, stmts = PAPER_EXAMPLES[src]
    prog = parse(src).to_json()
    assert [d["kind"] for d in prog["declarations"]] == decls
    assert [s["kind"] for s in prog["statements"]] == stmts


def test_paper_examples_parse_details():
    fn = parse("def a(b:str, a:int):\n    pass\n").to_json()["declarations"][0]
    assert fn["name"]["name"] == "a" and fn["returnType"]["className"] == "<None>"
    assert [(p["identifier"]["name"], p["type"]["className"]) for p in fn["params"]] == [("b", "str"), ("a", "int")]
    outer = parse("def f():\n    def g():\n        pass\n    pass\n").to_json()["declarations"][0]
    assert outer["declarations"][0]["kind"] == "FuncDef" and outer["declarations"][0]["name"]["name"] == "g"
    outer = parse(next(s for s in PAPER_EXAMPLES if "nonlocal" in s)).to_json()["declarations"][0]
    assert [d["kind"] for d in outer["declarations"]] == ["VarDef", "FuncDef"]
    assert outer["declarations"][1]["declarations"][0]["kind"] == "NonLocalDecl"
    lists = parse("[[1], [None]]\n").to_json()["statements"][0]["expr"]
    assert [e["kind"] for e in lists["elements"]] == ["ListExpr", "ListExpr"]
    cls_def = parse("class A(object):\n    a:int = 0\nx:A = None\nx = A()\n").to_json()["declarations"][0]
    assert cls_def["superClass"]["name"] == "object" and cls_def["declarations"][0]["kind"] == "VarDef"


@pytest.mark.parametrize("src", list(PAPER_EXAMPLES))
def test_paper_examples_are_well_typed(src):
    assert messages(src) == []


def test_paper_example_types():
    assert last_type("[[1], [None]]\n") == lst(OBJ)
    prog = typecheck("class A(object):\n    a:int = 0\nx:A = None\nx = A()\n")
    assign = prog["statements"][0]
    assert assign["targets"][0]["inferredType"] == cls("A")
    assert assign["value"]["inferredType"] == cls("A")
    assert "inferredType" not in assign["value"]["function"]
    assert typecheck("a:object = 1\n")["declarations"][0]["value"]["inferredType"] == INT


# ------------------------------------------------------------ expressions


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("1 + 2\n", INT),
        ("\"a\" + \"b\"\n", STR),
        ("[1] + [2]\n", lst(INT)),
        ("[1] + [True]\n", lst(OBJ)),
        ("1 < 2\n", BOOL),
        ("1 == 2\n", BOOL),
        ("\"a\" != \"b\"\n", BOOL),
        ("None is None\n", BOOL),
        ("-1\n", INT),
        ("not True\n", BOOL),
        ("1 if True else 2\n", INT),
        ("1 if True else \"a\"\n", OBJ),
        ("[]\n", EMPTY),
        ("[None, None]\n", lst(NONE)),
        ("[1, None]\n", lst(OBJ)),
        ("\"abc\"[0]\n", STR),
        ("[[1]][0]\n", lst(INT)),
        ("input()\n", STR),
        ("len([])\n", INT),
        ("print(1)\n", NONE),
        ("1 // 2 % 3 * 4\n", INT),
    ],
)
def test_expression_types(src, expected):
    assert last_type(src) == expected


def test_function_identifier_and_method_member_get_func_types():
    src = (
        "class A(object):\n"
        "    def m(self:\"A\", x:int) -> bool:\n"
        "        return True\n"
        "def f(x:int) -> int:\n"
        "    return x\n"
        "f(1)\n"
        "A().m(2)\n"
    )
    prog = typecheck(src)
    call = prog["statements"][0]["expr"]
    assert call["function"]["inferredType"] == {"kind": "FuncType", "parameters": [INT], "returnType": INT}
    mcall = prog["statements"][1]["expr"]
    assert mcall["inferredType"] == BOOL
    assert mcall["method"]["inferredType"]["parameters"] == [cls("A"), INT]
    assert "inferredType" not in mcall["method"]["member"]


def test_join_uses_class_hierarchy():
    src = (
        "class A(object):\n    pass\n"
        "class B(A):\n    pass\n"
        "class C(A):\n    pass\n"
        "[B(), C()]\n"
    )
    assert last_type(src) == lst(cls("A"))


# ------------------------------------------------------------ type errors


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("1 and 2\n", "Cannot apply operator `and` on types `int` and `int`"),
        ("True - False\n", "Cannot apply operator `-` on types `bool` and `bool`"),
        ("1 + \"a\"\n", "Cannot apply operator `+` on types `int` and `str`"),
        ("1 is 1\n", "Cannot apply operator `is` on types `int` and `int`"),
        ("None == None\n", "Cannot apply operator `==` on types `<None>` and `<None>`"),
        ("not \"x\"\n", "Cannot apply operator `not` on type `str`"),
        ("-None\n", "Cannot apply operator `-` on type `<None>`"),
        ("x:int = True\n", "Expected type `int`; got type `bool`"),
        ("x:int = 0\nx = None\n", "Expected type `int`; got type `<None>`"),
        ("x:[object] = None\nx = [1]\n", "Expected type `[object]`; got type `[int]`"),
        ("x - 1\n", "Not a variable: x"),
        ("baz()\n", "Not a function or class: baz"),
        ("def f(x:int) -> int:\n    return x\nf()\n", "Expected 1 arguments; got 0"),
        (
            "def f(x:int) -> int:\n    return x\nf(True)\n",
            "Expected type `int`; got type `bool` in parameter 0",
        ),
        ("x:int = 0\nx.foo\n", "There is no attribute named `foo` in class `int`"),
        ("x:object = None\nx.m()\n", "There is no method named `m` in class `object`"),
        ("[1][True]\n", "Index is of non-integer type `bool`"),
        ("False[0]\n", "Cannot index into type `bool`"),
        ("x:str = \"a\"\nx[0] = \"b\"\n", "`str` is not a list type"),
        ("return 1\n", "Return statement cannot appear at the top level"),
        ("def f() -> int:\n    return None\n", "Expected type `int`; got type `<None>`"),
        ("def f() -> str:\n    return\n", "Expected type `str`; got `None`"),
        (
            "def f() -> int:\n    if True:\n        return 1\n",
            "All paths in this function/method must return a non-None value: f",
        ),
        (
            "x:int = 0\ndef f():\n    x = 1\n",
            "Cannot assign to variable that is not explicitly declared in this scope: x",
        ),
        ("if 1:\n    pass\n", "Condition expression cannot be of type `int`"),
    ],
)
def test_type_errors(src, expected):
    assert expected in messages(src)


def test_error_carries_location_and_node_message():
    prog = typecheck("x:int = 1\ny:bool = True\nx = y\n")
    (err,) = prog["errors"]["errors"]
    message = "Expected type `int`; got type `bool`"
    assert err == {"kind": "CompilerError", "location": [3, 1, 3, 5], "message": message}
    assert prog["statements"][0]["errorMsg"] == err["message"]


def test_if_else_returns_on_all_paths():
    src = "def f(b:bool) -> int:\n    if b:\n        return 1\n    else:\n        return 2\n"
    assert messages(src) == []


# ------------------------------------------------------------ declaration errors


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("x:int = 1\nx:int = 2\n", "Duplicate declaration of identifier in same scope: x"),
        (
            "def print(x:object) -> object:\n    pass\n",
            "Duplicate declaration of identifier in same scope: print",
        ),
        ("def f(x:int, x:int):\n    pass\n", "Duplicate declaration of identifier in same scope: x"),
        ("def f(str:int):\n    pass\n", "Cannot shadow class name: str"),
        ("def f():\n    global y\n    pass\n", "Not a global variable: y"),
        ("def f():\n    nonlocal y\n    pass\n", "Not a nonlocal variable: y"),
        ("x:A = None\n", "Invalid type annotation; there is no class named: A"),
        ("class A(B):\n    pass\n", "Super-class not defined: B"),
        ("x:int = 1\nclass A(x):\n    pass\n", "Super-class must be a class: x"),
        ("class A(int):\n    pass\n", "Cannot extend special class: int"),
        ("class A(object):\n    def f() -> int:\n        return 1\n",
         "First parameter of the following method must be of the enclosing class: f"),
        ("class A(object):\n    x:int = 1\nclass B(A):\n    x:int = 2\n", "Cannot re-define attribute: x"),
        (
            "class A(object):\n    def f(self:\"A\") -> int:\n        return 1\n"
            "class B(A):\n    def f(self:\"B\") -> bool:\n        return True\n",
            "Method overridden with different type signature: f",
        ),
        (
            "class A(object):\n    def __init__(self:\"A\", x:int):\n        pass\n",
            "Method overridden with different type signature: __init__",
        ),
    ],
)
def test_declaration_errors(src, expected):
    assert expected in messages(src)


def test_declaration_errors_skip_type_checking():
    prog = typecheck("x:int = 1\nx:int = 2\n1 + True\n")
    assert len(prog["errors"]["errors"]) == 1
    assert "inferredType" not in prog["statements"][0]["expr"]


def test_global_forward_reference_and_class_shadowing_later_class():
    assert messages("def f():\n    global x\n    x = 1\nx:int = 0\n") == []
    assert messages("def f():\n    A:int = 1\n    pass\nclass A(object):\n    pass\n") == [
        "Cannot shadow class name: A"
    ]


def test_syntax_error_raises():
    with pytest.raises(ChocoPySyntaxError):
        typecheck("x = = 1\n")


def test_typecheck_is_deterministic():
    src = "x:[int] = None\nx = [1, 2]\nprint(x[0] + len(x))\n"
    assert typecheck(src) == typecheck(src)


# ------------------------------------------------------------ conformance regression guard

PARSE_FLOOR = 46
TYPECHECK_FLOOR = 146


@pytest.mark.skipif(not DATA.exists(), reason="conformance data not available")
def test_conformance_score_does_not_regress():
    path = ROOT / "benchmarks" / "chocopy_conformance.py"
    spec = importlib.util.spec_from_file_location("chocopy_conformance", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    parse_ok, _ = bench.run_parse(DATA)
    typed_ok, _ = bench.run_typecheck(DATA)
    assert len(parse_ok) >= PARSE_FLOOR
    assert len(typed_ok) >= TYPECHECK_FLOOR
