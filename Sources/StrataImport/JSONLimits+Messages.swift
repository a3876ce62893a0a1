extension JSONLimits {
    /// What a record of `count` members says when it is over ``maximumRecordFields`` (after
    /// "record N "), with what to do about it.
    func tooManyFields(_ count: Int) -> String {
        "has \(ImportReport.grouped(count)) fields, more than the \(ImportReport.grouped(maximumRecordFields)) a record may have "
            + "(JSONLimits.maximumRecordFields, strata import --max-record-fields N); an object whose members are records, "
            + "each an object, imports as keyed objects, a record a member (ImportOptions.InputFormat.keyedObjects, "
            + "strata import --input-format keyed)"
    }
}
