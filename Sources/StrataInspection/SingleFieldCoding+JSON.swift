@_spi(Format) import StrataFormat

extension SingleFieldCoding {
    /// Reads stored value bytes as JSON (``StoredRecord``'s mapping).
    package static func jsonValue(from bytes: [UInt8]) throws(CBORReadFailure) -> JSONValue {
        var offset = 0
        return try CBORReader(bytes: bytes).jsonValue(at: &offset)
    }
}
