"""Bonsai fuzzing: bounded grammar generation (and, on top of it, lattice corpus growth)."""

from bonsai.bounds import Bounds, Measure, measure
from bonsai.generator import BoundedGenerator, Sample
from bonsai.grammar import Grammar, GrammarLoadError, load_grammar
from bonsai.tree import RepeatNode, RuleNode, Token, render

__all__ = [
    "BoundedGenerator",
    "Bounds",
    "Grammar",
    "GrammarLoadError",
    "Measure",
    "RepeatNode",
    "RuleNode",
    "Sample",
    "Token",
    "load_grammar",
    "measure",
    "render",
]
