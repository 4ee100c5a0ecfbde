"""The standard library's pure-Python JSON decoder (json.decoder + json.scanner) as a target."""
