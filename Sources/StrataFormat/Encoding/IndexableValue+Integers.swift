/// Every integer width shares one encoding (see ``IndexableValue``), so keys compare by value across widths.
extension Int: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Int {
        try OrderedKey.readInteger(Int.self, from: key, at: &position)
    }
}

extension Int8: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Int8 {
        try OrderedKey.readInteger(Int8.self, from: key, at: &position)
    }
}

extension Int16: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Int16 {
        try OrderedKey.readInteger(Int16.self, from: key, at: &position)
    }
}

extension Int32: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Int32 {
        try OrderedKey.readInteger(Int32.self, from: key, at: &position)
    }
}

extension Int64: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Int64 {
        try OrderedKey.readInteger(Int64.self, from: key, at: &position)
    }
}

extension UInt: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> UInt {
        try OrderedKey.readInteger(UInt.self, from: key, at: &position)
    }
}

extension UInt8: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> UInt8 {
        try OrderedKey.readInteger(UInt8.self, from: key, at: &position)
    }
}

extension UInt16: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> UInt16 {
        try OrderedKey.readInteger(UInt16.self, from: key, at: &position)
    }
}

extension UInt32: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> UInt32 {
        try OrderedKey.readInteger(UInt32.self, from: key, at: &position)
    }
}

extension UInt64: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> UInt64 {
        try OrderedKey.readInteger(UInt64.self, from: key, at: &position)
    }
}

extension Int128: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Int128 {
        try OrderedKey.readInteger(Int128.self, from: key, at: &position)
    }
}

extension UInt128: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { OrderedKey.appendInteger(self, to: &key) }
    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> UInt128 {
        try OrderedKey.readInteger(UInt128.self, from: key, at: &position)
    }
}
