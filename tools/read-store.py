#!/usr/bin/env python3
"""Reads a Strata store from outside Swift, with the `lmdb` and `cbor2` modules only.

Usage: tools/read-store.py STORE ENTITY
       tools/read-store.py STORE ENTITY --text-indexes
       tools/read-store.py STORE ENTITY --postings INDEX TERM

The first form prints one JSON object: {"format": N, "primaryKey": NAME, "records": [{"key": HEX,
"value": {...}}]}, with each record's CBOR map translated from field ids to names through the
catalog. It is the proof that the on-disk format is what README's design notes say: plain LMDB,
CBOR records, a JSON catalog. The Swift test suite runs it against a store it wrote and compares.

--text-indexes prints the entity's full-text indexes as the catalog records them (name, fields,
weights, stemming, stopWords, positions, tokenizerVersion, foldingVersion), each with its
"documents" (count) and "segments" from the index header.

--postings prints one full-text index's postings of one term (the term as stored: folded, as
`[cd]` folds) and every live document's field lengths:
{"index": NAME, "term": TERM, "postings": [{"key": HEX, "document": ID, "frequencies": [per field],
"positions": [[per field]]}], "documentLengths": [{"key": HEX, "document": ID, "fieldLengths": [...]}]},
postings in document id order, documents a merge has not dropped yet (in `deleted`) left out.
The layout is StorageFormat.md's "Full-text indexes".
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


class Reader:
    """Unsigned LEB128 varints and bytes of one stored value."""

    def __init__(self, data, offset=0):
        self.data, self.offset = data, offset

    def byte(self):
        value = self.data[self.offset]
        self.offset += 1
        return value

    def varint(self):
        value, shift = 0, 0
        while True:
            byte = self.byte()
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    def version(self, structure):
        version = self.byte()
        if version != 1:
            raise SystemExit(f"{structure}: format version {version}, not 1")


def statistics(data):
    """A version byte, the document count, F, F total field lengths, the next document id."""
    r = Reader(data)
    r.version("index statistics")
    count = r.varint()
    totals = [r.varint() for _ in range(r.varint())]
    return {"documentCount": count, "totalFieldLengths": totals, "nextDocument": r.varint()}


def header(data):
    """Document 0 of `documents`: version, the statistics' length and bytes, then the segments."""
    r = Reader(data)
    r.version("index header")
    length = r.varint()
    stats = statistics(data[r.offset:r.offset + length])
    r.offset += length
    segments = [{"number": r.varint(), "level": r.varint()} for _ in range(r.varint())]
    return stats, segments


def document_entry(data):
    """A version byte, F, F field lengths, the primary key's length and bytes."""
    r = Reader(data)
    r.version("document entry")
    lengths = [r.varint() for _ in range(r.varint())]
    size = r.varint()
    return lengths, bytes(data[r.offset:r.offset + size])


def posting_block(data):
    """A block's documents: [(document id, [frequency per field], [[position per field]])]."""
    r = Reader(data)
    r.version("posting block")
    fields, count, first = r.varint(), r.varint(), r.varint()
    r.varint()  # the last document minus the first
    for _ in range(fields):
        r.varint()  # the highest frequency in each field
    r.varint()  # the least document length
    documents_length, positions_length = r.varint(), r.varint()
    positions = Reader(data, r.offset + documents_length)
    documents, document = [], first
    for _ in range(count):
        document += r.varint()
        mask = 1 if fields == 1 else r.varint()
        frequencies = [r.varint() if mask & (1 << f) else 0 for f in range(fields)]
        documents.append((document, frequencies))
    result = []
    for document, frequencies in documents:
        per_field = []
        for frequency in frequencies:
            found, position = [], 0
            for occurrence in range(frequency if positions_length else 0):
                gap = positions.varint()
                position = gap if occurrence == 0 else position + gap
                found.append(position)
            per_field.append(found)
        result.append((document, frequencies, per_field))
    return result


def text_databases(env, schema, index):
    """The four databases of full-text index `index`: text/<X>/<index>/{postings,documents,keys,deleted}."""
    records = schema["recordsDatabase"]
    stem = "text/" + (records[len("records/"):] if records.startswith("records/") else schema["name"]) + "/" + index
    return {part: env.open_db(f"{stem}/{part}".encode(), create=False) for part in ("postings", "documents", "keys", "deleted")}


def text_indexes(env, schema):
    indexes = []
    for entry in schema.get("fullTextIndexes", []):
        databases = text_databases(env, schema, entry["name"])
        with env.begin(db=databases["documents"]) as txn:
            stats, segments = header(txn.get((0).to_bytes(8, "big")))
        indexes.append(dict(entry, documents=stats["documentCount"], segments=segments))
    return indexes


def postings(env, schema, index, term):
    if not any(entry["name"] == index for entry in schema.get("fullTextIndexes", [])):
        raise SystemExit(f"{schema['name']} has no full-text index named {index}")
    databases = text_databases(env, schema, index)
    term_bytes = term.encode()
    found, lengths = [], []
    with env.begin() as txn:
        _, segments = header(txn.get((0).to_bytes(8, "big"), db=databases["documents"]))
        deleted = {int.from_bytes(k, "big") for k, _ in txn.cursor(db=databases["deleted"])}
        documents = {}
        for key, value in txn.cursor(db=databases["documents"]):
            document = int.from_bytes(key, "big")
            if document != 0:
                documents[document] = document_entry(value)
        for segment in segments:
            # Postings keys: segment (4 bytes, big-endian), the term's UTF-8, 0x00, the block's
            # first document (8 bytes, big-endian; 0 for the term's summary in the segment).
            prefix = segment["number"].to_bytes(4, "big") + term_bytes + b"\x00"
            cursor = txn.cursor(db=databases["postings"])
            if not cursor.set_range(prefix):
                continue
            for key, value in cursor:
                if not key.startswith(prefix) or len(key) != len(prefix) + 8:
                    break
                if int.from_bytes(key[len(prefix):], "big") == 0:
                    continue  # the term's summary
                for document, frequencies, positions in posting_block(value):
                    if document in deleted or document not in documents:
                        continue
                    found.append({"key": documents[document][1].hex(), "document": document,
                                  "frequencies": frequencies, "positions": positions})
    for document in sorted(documents):
        field_lengths, key = documents[document]
        lengths.append({"key": key.hex(), "document": document, "fieldLengths": field_lengths})
    found.sort(key=lambda posting: posting["document"])
    return {"index": index, "term": term, "postings": found, "documentLengths": lengths}


def main():
    path, entity = sys.argv[1], sys.argv[2]
    env = lmdb.open(path, readonly=True, lock=False, max_dbs=1024, subdir=True)
    if len(sys.argv) > 3:
        catalog = env.open_db(b"catalog", create=False)
        with env.begin() as txn:
            schema = json.loads(txn.get(("entity/" + entity).encode(), db=catalog))
        if sys.argv[3] == "--text-indexes":
            print(json.dumps(text_indexes(env, schema), sort_keys=True))
        elif sys.argv[3] == "--postings" and len(sys.argv) == 6:
            print(json.dumps(postings(env, schema, sys.argv[4], sys.argv[5]), sort_keys=True, ensure_ascii=False))
        else:
            raise SystemExit(__doc__)
        return
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
