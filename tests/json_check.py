#!/usr/bin/env python3
"""Validate a pressmark JSON document (stdin) against docs/json/NAME.schema.json
with python3-jsonschema (Debian's 4.10 and newer alike). Prints "ok" or the
first error with its path; exits 1 on an invalid document."""
import json, os, sys, warnings

warnings.simplefilter("ignore", DeprecationWarning)
import jsonschema

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "json")
store = {}
for f in os.listdir(here):
    if f.endswith(".schema.json"):
        s = json.load(open(os.path.join(here, f)))
        store[s["$id"]] = s
schema = store["https://pressmark.invalid/json/%s.schema.json" % sys.argv[1]]
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
resolver = jsonschema.RefResolver.from_schema(schema, store=store)
doc = json.load(sys.stdin)
errors = sorted(cls(schema, resolver=resolver).iter_errors(doc), key=lambda e: list(e.path))
if errors:
    e = errors[0]
    print("invalid at /%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message[:300]))
    sys.exit(1)
print("ok")
