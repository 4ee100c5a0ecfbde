"""A mutated function's closure shape kept: the free variables the mutant no longer uses, referenced in dead code.

A method calling `super()` has a hidden free variable, `__class__`, and its live function a
closure cell for it; a mutant that drops the call (`return super().f(x)` -> `return None`)
compiles to code without it, and `function.__code__` refuses code with another number of
free variables (see `swap`).  Referencing the lost names in an `if False:` block at the end
of the function keeps them free (the compiler's scope analysis sees the block, its code
generation drops it): the same bytecode, with the original's closure shape.

Invariant: `keep_closure_shape` returns code that differs from the mutant's only in the free
(and enclosing cell) variables it declares, or None.
"""

from __future__ import annotations

import ast
import types

from mu2py.engine.swap import code_index


def lost_free_variables(original: types.CodeType, mutated: types.CodeType) -> dict[tuple[str, int], list[str]]:
    """Per (qualname, position among namesakes): the original's free variables a mutated function lost (no new ones)."""
    originals = code_index(original)
    lost: dict[tuple[str, int], list[str]] = {}
    for qualname, codes in code_index(mutated).items():
        olds = originals.get(qualname, [])
        if len(olds) != len(codes):
            continue
        for position, (old, new) in enumerate(zip(olds, codes, strict=True)):
            missing = [name for name in old.co_freevars if name not in new.co_freevars]
            if missing and set(new.co_freevars) <= set(old.co_freevars):
                lost[(qualname, position)] = missing
    return lost


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every `def` in the tree with its qualified name, in source order (as `code_index` lists their code)."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child))
                visit(child, f"{prefix}{child.name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def keep_closure_shape(source: str, file: str, original: types.CodeType, mutated: types.CodeType
                       ) -> types.CodeType | None:
    """The mutated module `source` compiled with its functions' lost free variables kept, or None (see the module)."""
    lost = lost_free_variables(original, mutated)
    if not lost:
        return None
    tree = ast.parse(source, file)
    seen: dict[str, int] = {}
    for qualname, node in _functions(tree):
        position = seen.get(qualname, 0)
        seen[qualname] = position + 1
        names = lost.get((qualname, position))
        if names:
            last = node.body[-1]
            dead = ast.If(test=ast.Constant(False), orelse=[],
                          body=[ast.Expr(ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load()))])
            node.body.append(ast.copy_location(dead, last))
    compiled = compile(ast.fix_missing_locations(tree), file, "exec", dont_inherit=True)
    originals, kept = code_index(original), code_index(compiled)
    for qualname, position in lost:
        done = kept.get(qualname, [])
        if len(done) <= position or done[position].co_freevars != originals[qualname][position].co_freevars:
            return None
    return compiled
