/// Byte-level (code point) substring tests, matching the binary order indexes use.
enum StringSearch {
    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        text.utf8.starts(with: prefix.utf8)
    }

    static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        text.utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    /// Every string contains the empty string.
    static func contains(_ text: String, _ part: String) -> Bool {
        let needle = Array(part.utf8)
        guard !needle.isEmpty else { return true }
        let haystack = Array(text.utf8)
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}
