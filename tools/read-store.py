#!/usr/bin/env python3
"""Reads a Strata store from outside Swift, with the `lmdb` and `cbor2` modules only.

Usage: tools/read-store.py STORE ENTITY

Prints one JSON object: {"format": N, "primaryKey": NAME, "records": [{"key": HEX, "value": {...}}]},
with each record's CBOR map translated from field ids to names through the catalog. It is the
proof that the on-disk format is what README's design notes say: plain LMDB, CBOR records, a
JSON catalog. The Swift test suite runs it against a store it wrote and compares.
"""
import base64
import datetime
import json
import sys
import uuid

import cbor2
import lmdb


def plain(value):
    """Turns cbor2's decoded values into JSON-friendly ones."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, datetime.datetime):
        return {"date": value.astimezone(datetime.timezone.utc).isoformat()}
    if isinstance(value, uuid.UUID):
        return {"uuid": str(value).upper()}
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode()}
    if isinstance(value, cbor2.CBORTag):
        return {"tag": value.tag, "value": plain(value.value)}
    return value


def main():
    path, entity = sys.argv[1], sys.argv[2]
    env = lmdb.open(path, readonly=True, lock=False, max_dbs=1024, subdir=True)
    catalog = env.open_db(b"catalog", create=False)
    with env.begin() as txn:
        fmt = json.loads(txn.get(b"format", db=catalog))
        schema = json.loads(txn.get(("entity/" + entity).encode(), db=catalog))
    names = {int(k): v for k, v in schema["fields"]["fields"].items()}
    records_db = env.open_db(schema["recordsDatabase"].encode(), create=False)
    records = []
    with env.begin(db=records_db) as txn:
        for key, value in txn.cursor():
            decoded = cbor2.loads(value)
            if not isinstance(decoded, dict):
                raise SystemExit(f"record {key.hex()} is not a CBOR map")
            record = {names[k]: plain(v) for k, v in decoded.items()}
            records.append({"key": key.hex(), "value": record})
    print(json.dumps({"format": fmt["version"], "primaryKey": schema["primaryKey"], "records": records}, sort_keys=True))


if __name__ == "__main__":
    main()
