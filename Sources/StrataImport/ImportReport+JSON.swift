extension ImportReport {
    /// The report as one JSON object, the one form of it: `strata import --format json` prints it
    /// (with the timings of its phases added) and the studio's import and record routes answer it.
    ///
    /// Members, in this order: `entity`; `dryRun`; `records` (read from the payload); `inserted`,
    /// `updated`, `unchanged`, `deleted`, `skipped`; `failures`, one object per skipped record's
    /// error (the first 100) with `record` (its number in the input, counted from 1; `null` when
    /// the error names none), `code` (``StrataError/Code``'s name) and `message`; `related`, by
    /// entity name, the counts of nested or linked records (`inserted`, `updated`, `unchanged`,
    /// `deleted`, `linked`, `unlinked`); `seconds` (to the millisecond); `summary`, the report's
    /// ``description`` (`inserted 1 · updated 0 · …`).
    public var json: JSONValue {
        .object([
            JSONMember(key: "entity", value: .string(entity)),
            JSONMember(key: "dryRun", value: .bool(dryRun)),
            JSONMember(key: "records", value: .int(Int64(records))),
            JSONMember(key: "inserted", value: .int(Int64(inserted))),
            JSONMember(key: "updated", value: .int(Int64(updated))),
            JSONMember(key: "unchanged", value: .int(Int64(unchanged))),
            JSONMember(key: "deleted", value: .int(Int64(deleted))),
            JSONMember(key: "skipped", value: .int(Int64(skipped))),
            JSONMember(key: "failures", value: .array(failures.map { failure in
                .object([JSONMember(key: "record", value: failure.record.map { .int(Int64($0)) } ?? .null),
                         JSONMember(key: "code", value: .string(failure.code.name)),
                         JSONMember(key: "message", value: .string(failure.message))])
            })),
            JSONMember(key: "related", value: .object(related.sorted { $0.key < $1.key }.map { entity, counts in
                JSONMember(key: entity, value: .object([
                    ("inserted", counts.inserted), ("updated", counts.updated), ("unchanged", counts.unchanged),
                    ("deleted", counts.deleted), ("linked", counts.linked), ("unlinked", counts.unlinked),
                ].map { JSONMember(key: $0.0, value: .int(Int64($0.1))) }))
            })),
            JSONMember(key: "seconds", value: .double((seconds * 1000).rounded() / 1000)),
            JSONMember(key: "summary", value: .string(description)),
        ])
    }
}
