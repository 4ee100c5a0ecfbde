"""The standard library's TOML parser (tomllib, a vendored copy of tomli) as a target."""
