/// Limits that keep hostile or mistaken JSON from exhausting the stack or memory, or from
/// becoming absurd records.
public struct JSONLimits: Sendable, Equatable {
    /// The deepest nesting of arrays and objects accepted. Deeper input is an error, never a stack
    /// overflow: the parser recurses once per level.
    public var maximumDepth: Int
    /// The longest string accepted, in UTF-8 bytes. A longer one is an error as soon as the limit
    /// is passed, before the rest of it is read.
    public var maximumStringLength: Int
    /// The most members a record object may have (4,096 unless given). A wider record is refused
    /// with `.invalidRecord` naming the record and this limit, by the importer (a failed record,
    /// skipped under ``ImportOptions/ErrorPolicy/skip``) and by schema inference: such an object
    /// is usually many records keyed by name (``ImportOptions/InputFormat/keyedObjects``) or a
    /// table of values, not one record. `strata import --max-record-fields N` sets it.
    public var maximumRecordFields: Int

    /// Limits of 512 levels of nesting, 64 MiB strings and 4,096 members a record unless given.
    public init(maximumDepth: Int = 512, maximumStringLength: Int = 64 << 20, maximumRecordFields: Int = 4_096) {
        self.maximumDepth = maximumDepth
        self.maximumStringLength = maximumStringLength
        self.maximumRecordFields = maximumRecordFields
    }
}
