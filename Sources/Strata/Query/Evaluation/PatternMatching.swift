import Foundation
import Synchronization

/// `LIKE` wildcards and `MATCHES` regular expressions on (already folded) strings.
///
/// Regular expressions are ICU's, through `NSRegularExpression`, and must match the whole string.
/// Compiled expressions are cached because a filter evaluates the same pattern once per record.
enum PatternMatching {
    /// `*` matches any run of characters, `?` exactly one; `\*`, `\?` and `\\` match themselves.
    /// Greedy with single backtracking, so time stays O(n·m) for any pattern.
    static func like(_ string: String, pattern: String) -> Bool {
        let text = Array(string)
        var tokens: [LikeToken] = []
        var iterator = pattern.makeIterator()
        while let c = iterator.next() {
            switch c {
            case "*": if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?": tokens.append(.anyOne)
            case "\\": tokens.append(.literal(iterator.next() ?? "\\"))
            default: tokens.append(.literal(c))
            }
        }
        var (t, p) = (0, 0)
        var backtrack: (pattern: Int, text: Int)?
        while t < text.count {
            if p < tokens.count {
                switch tokens[p] {
                case .anyRun:
                    backtrack = (p, t)
                    p += 1
                    continue
                case .anyOne:
                    t += 1; p += 1
                    continue
                case .literal(let c) where c == text[t]:
                    t += 1; p += 1
                    continue
                default:
                    break
                }
            }
            guard let resume = backtrack else { return false }
            backtrack = (resume.pattern, resume.text + 1)
            p = resume.pattern + 1
            t = resume.text + 1
        }
        while p < tokens.count, tokens[p] == .anyRun { p += 1 }
        return p == tokens.count
    }

    private enum LikeToken: Equatable {
        case anyRun, anyOne
        case literal(Character)
    }

    /// Whether `string` matches `pattern` as a whole; false when the pattern is invalid.
    static func matches(_ string: String, pattern: String, caseInsensitive: Bool) -> Bool {
        guard let regex = regularExpression(pattern, caseInsensitive: caseInsensitive) else { return false }
        let range = NSRange(location: 0, length: string.utf16.count)
        return regex.firstMatch(in: string, options: [], range: range) != nil
    }

    static func isValidRegularExpression(_ pattern: String) -> Bool {
        regularExpression(pattern, caseInsensitive: false) != nil
    }

    private static func regularExpression(_ pattern: String, caseInsensitive: Bool) -> NSRegularExpression? {
        let key = CacheKey(pattern: pattern, caseInsensitive: caseInsensitive)
        if let cached = cache.withLock({ $0[key] }) { return cached.regex }
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        // The bare pattern is compiled first so that one like `a)(b` cannot balance the wrapper;
        // the wrapper anchors the whole string, so `a|ab` matches "ab" (a first match would stop at "a").
        var regex: NSRegularExpression?
        if (try? NSRegularExpression(pattern: pattern, options: options)) != nil {
            regex = try? NSRegularExpression(pattern: "\\A(?:\(pattern))\\z", options: options)
        }
        cache.withLock { entries in
            if entries.count >= 256 { entries.removeAll(keepingCapacity: true) }
            entries[key] = CachedRegex(regex: regex)
        }
        return regex
    }

    private struct CacheKey: Hashable, Sendable {
        var pattern: String
        var caseInsensitive: Bool
    }

    /// A compiled expression (nil when the pattern is invalid, so failures are cached too).
    // NSRegularExpression is immutable after creation and documented as safe to share across threads.
    private struct CachedRegex: @unchecked Sendable {
        var regex: NSRegularExpression?
    }

    private static let cache = Mutex<[CacheKey: CachedRegex]>([:])
}
