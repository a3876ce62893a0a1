import Foundation

extension FieldPath {
    /// The stored field path of a type-erased key path, named as ``components(of:)`` names typed
    /// ones: `\Address.city` → `["city"]`, `\User.address.city` → `["address", "city"]`.
    ///
    /// ```swift
    /// FieldPath.components(ofAny: \KernUser.lastName as AnyKeyPath)   // ["lastName"]
    /// ```
    ///
    /// Returns nil when the description does not read as a chain of stored property names (a
    /// computed property can show as `<computed 0x… (Int)>`, a subscript as `[…]`), so callers can
    /// refuse it rather than query a field that does not exist.
    package static func components(ofAny keyPath: AnyKeyPath) -> [String]? {
        let text = String(describing: keyPath)                     // "\Address.city"
        let root = "\\" + String(describing: type(of: keyPath).rootType) + "."
        guard text.hasPrefix(root) else { return nil }
        let rest = String(text.dropFirst(root.count))
            .replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "!", with: "")
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty, parts.allSatisfy(isIdentifier) else { return nil }
        return parts
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || CharacterSet.alphanumerics.contains($0) }
    }
}
