/// Finds the known field a mistyped name most likely meant, so an "unknown field" error can say
/// "did you mean 'lastName'?" instead of leaving the reader to diff names by eye.
package enum FieldNameSuggestion {
    /// The closest field by edit distance (ignoring case), if it is close enough to be a typo:
    /// at most a third of the name's length, and never more than 3 edits.
    package static func suggestion(for name: String, among fields: Set<String>) -> String? {
        let target = Array(name.lowercased().unicodeScalars)
        let limit = min(3, max(1, target.count / 3))
        var best: (name: String, distance: Int)?
        // Sorted so that ties resolve the same way on every run.
        for field in fields.sorted() {
            let distance = editDistance(target, Array(field.lowercased().unicodeScalars))
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (field, distance)
            }
        }
        return best?.name
    }

    /// Optimal string alignment distance (Levenshtein plus adjacent transpositions), in two rows.
    package static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previousPrevious[j - 2] + 1)
                }
                current[j] = value
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
