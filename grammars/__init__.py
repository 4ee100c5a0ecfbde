"""Lark grammars bundled with bonsai (installed as package data)."""
