"""Tests for the ChocoPy grammar and parser (targets/chocopy/parser.py)."""

import json

import pytest

from targets.chocopy.parser import ChocoPySyntaxError, get_lark, parse


def stmt0(src):
    return parse(src).to_json()["statements"][0]


def test_grammar_has_named_user_terminals():
    lark = get_lark()
    names = {t.name for t in lark.terminals}
    assert {"ID", "IDSTRING", "STRING", "INTEGER"} <= names


def test_pass_program():
    prog = parse("pass\n").to_json()
    assert prog["kind"] == "Program"
    assert prog["statements"] == [] and prog["declarations"] == []
    assert prog["errors"] == {"kind": "Errors", "location": [0, 0, 0, 0], "errors": []}


def test_literals_and_locations():
    s = stmt0('"a\\"b\\n"\n')
    assert s["expr"] == {"kind": "StringLiteral", "location": [1, 1, 1, 8], "value": 'a"b\n'}
    assert stmt0("None\n")["expr"]["kind"] == "NoneLiteral"
    assert stmt0("True\n")["expr"]["value"] is True
    assert stmt0("2147483647\n")["expr"]["value"] == 2147483647


def test_integer_out_of_range_is_syntax_error():
    with pytest.raises(ChocoPySyntaxError):
        parse("2147483648\n")


def test_precedence():
    e = stmt0("1 + 2 * -3\n")["expr"]
    assert e["operator"] == "+" and e["right"]["operator"] == "*"
    assert e["right"]["right"]["kind"] == "UnaryExpr"
    e = stmt0("not a == b and c or d\n")["expr"]
    assert e["operator"] == "or"
    assert e["left"]["operator"] == "and"
    assert e["left"]["left"]["operator"] == "not"
    assert e["left"]["left"]["operand"]["operator"] == "=="
    e = stmt0("a if b else c if d else e\n")["expr"]
    assert e["kind"] == "IfExpr" and e["elseExpr"]["kind"] == "IfExpr"
    e = stmt0("a - b - c\n")["expr"]
    assert e["left"]["operator"] == "-"


def test_comparison_is_non_associative():
    with pytest.raises(ChocoPySyntaxError):
        parse("a < b < c\n")


def test_member_index_call():
    e = stmt0("a.b[1].c(2, 3)\n")["expr"]
    assert e["kind"] == "MethodCallExpr"
    assert e["method"]["object"]["kind"] == "IndexExpr"
    assert [a["value"] for a in e["args"]] == [2, 3]
    assert e["location"] == [1, 1, 1, 14]


def test_assignment_chain():
    s = stmt0("x[0] = y = z.f = 1\n")
    assert [t["kind"] for t in s["targets"]] == ["IndexExpr", "Identifier", "MemberExpr"]
    assert s["location"] == [1, 1, 1, 18]


def test_parenthesised_operand_extends_parent_location():
    e = stmt0("(k * 3) % 5\n")["expr"]
    assert e["location"] == [1, 1, 1, 11]
    assert e["left"]["location"] == [1, 2, 1, 6]


def test_function_class_and_blocks():
    src = (
        "class A(object):\n"
        "    x:int = 1\n"
        "    def f(self:\"A\", y:[int]) -> int:\n"
        "        global g\n"
        "        return y[0]\n"
        "\n"
        "def g() :\n"
        "    if True:\n"
        "        pass\n"
        "    elif False:\n"
        "        pass\n"
        "    else:\n"
        "        return\n"
        "x:A = None\n"
        "x = A()\n"
    )
    prog = parse(src).to_json()
    cls, fn, var = prog["declarations"]
    assert cls["kind"] == "ClassDef" and cls["superClass"]["name"] == "object"
    method = cls["declarations"][1]
    assert method["params"][0]["type"] == {"kind": "ClassType", "location": [3, 16, 3, 18], "className": "A"}
    assert method["params"][1]["type"]["kind"] == "ListType"
    assert method["declarations"][0]["kind"] == "GlobalDecl"
    assert fn["returnType"]["className"] == "<None>"
    if_stmt = fn["statements"][0]
    assert if_stmt["thenBody"] == [] and if_stmt["elseBody"][0]["kind"] == "IfStmt"
    assert var["kind"] == "VarDef"
    # reference locations: a class ends where its last member's DEDENT is
    assert cls["location"] == [1, 1, 7, 0]


def test_comments_and_blank_lines():
    prog = parse("# hello\n\nx:int = 1 # c\n  \n# end").to_json()
    assert prog["location"] == [3, 1, 3, 14]


def test_nested_functions_and_nonlocal():
    src = (
        "def f() -> int:\n    x:int = 1\n"
        "    def g():\n        nonlocal x\n        x = 2\n    g()\n    return x\n"
    )
    prog = parse(src).to_json()
    g = prog["declarations"][0]["declarations"][1]
    assert g["declarations"][0]["kind"] == "NonLocalDecl"


@pytest.mark.parametrize(
    "src",
    [
        "x = (y = 2)\n",
        "x:int\n",
        "def f(x)->int:\n    return x\n",
        "x = 1\n  y = 2\n",
        "class A:\n    pass\n",
        "x:float = 5.55\n",
        "x = lambda: 1\n",
        "x = f(arg=x)\n",
        "while True:\n    x = 4\nelse:\n    x = 3\n",
        "y = x[1:2]\n",
        "def f() -> int:\n    x = 1\n    z:int = 2\n",
        "x = 1\ny:int = 2\n",
        "s:str = \"\\q\"\n",
    ],
)
def test_syntax_errors(src):
    with pytest.raises(ChocoPySyntaxError) as info:
        parse(src)
    assert info.value.to_json()["errors"]["errors"][0]["syntax"] is True


def test_python_location_style_for_parse_tests():
    src = "while True:\n    pass\n"
    assert parse(src, python_locations=True).to_json()["location"] == [1, 1, 1, 11]
    assert parse(src).to_json()["location"] == [1, 1, 3, 1]


# ------------------------------------------------------------ predefined class names in the grammar


def _renamed(src: str, old: str, new: str) -> dict:
    """The AST JSON of `src`, with every name `old` in it renamed to `new` (same length)."""
    return json.loads(json.dumps(parse(src).to_json()).replace(f'"{old}"', f'"{new}"'))


@pytest.mark.parametrize("name", ["int", "str", "bool", "object"])
def test_predefined_class_literal_builds_the_ast_of_an_id(name):
    # the grammar offers the predefined classes as literals in type and superclass positions;
    # the AST must be the one a user class name of the same length gives (the reference reads an ID)
    user = "Q" * len(name)
    for template in ("x:{} = None\n", "def f(y:[{}]) -> {}:\n    return y[0]\n", "class A({}):\n    pass\n"):
        src = template.replace("{}", name)
        assert parse(src).to_json() == _renamed(template.replace("{}", user), user, name)


@pytest.mark.parametrize(
    "src",
    [
        "int = 1\n",
        "x = object\n",
        "print(int)\n",
        "object()\n",
        "def f():\n    object:str = \"\"\n    pass\n",
        "class A(object):\n    def str(self:\"A\") -> bool:\n        return True\n",
        "class int(object):\n    pass\n",
        "class A(int):\n    pass\n",
        "for bool in [1]:\n    pass\n",
        "x:\"int\" = None\n",
    ],
)
def test_predefined_class_names_stay_identifiers_elsewhere(src):
    # `int` is no keyword in ChocoPy: outside type and superclass positions it is an ID,
    # so these parse (the type checker rejects some of them, as the reference does)
    assert parse(src).to_json()["kind"] == "Program"


def test_syntax_error_names_a_predefined_class_token_id():
    # the reference lexer has no `object` token kind: the message must say ID, as for any name
    for src in ("x object = 1\n", "x = 1 int\n"):
        with pytest.raises(ChocoPySyntaxError) as info:
            parse(src)
        assert info.value.message.startswith("Parse error near token ID: ")
