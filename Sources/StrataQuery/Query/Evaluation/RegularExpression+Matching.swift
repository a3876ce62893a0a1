extension RegularExpression {
    /// Whether `text` as a whole matches.
    package func matches(_ text: String) -> Bool {
        var steps = 0
        return matches(text, steps: &steps)
    }

    /// Whether `text` as a whole matches, adding to `steps` the work done: one per program
    /// position entered or run at each text position, so never more than
    /// `2 × (text length + 1) × program.count` (tests check the bound). Checks the running
    /// query's budget (``QueryBudget``) as it goes: false when it runs out.
    ///
    /// A Pike VM: the set of program positions alive after each character is kept once each, in
    /// two sparse sets (current and next), so no path is ever tried twice and nothing backtracks.
    package func matches(_ text: String, steps: inout Int) -> Bool {
        let input = Array(text.unicodeScalars)
        var current = ThreadSet(capacity: program.count)
        var next = ThreadSet(capacity: program.count)
        var stack: [Int] = []
        add(0, at: 0, in: input, to: &current, stack: &stack, steps: &steps)
        var nextCheck = steps + QueryBudget.checkInterval
        for index in 0...input.count {
            if current.isEmpty { return false }
            if steps >= nextCheck {
                // A query's budget that ran out stops the match (its answer is then not used).
                if QueryBudget.matcherMustStop() { return false }
                nextCheck = steps + QueryBudget.checkInterval
            }
            let scalar: Unicode.Scalar? = index < input.count ? input[index] : nil
            let folded = caseInsensitive ? scalar.map(CaseFolding.fold) : scalar
            next.removeAll()
            for position in current.members {
                steps += 1
                let advances: Bool
                switch program[position] {
                case .match:
                    if scalar == nil { return true }
                    advances = false
                case .scalar(let expected):
                    advances = folded == expected
                case .any:
                    advances = scalar.map { !Self.isLineTerminator($0) } ?? false
                case .set(let set):
                    advances = scalar.map { sets[set].contains($0, caseInsensitive: caseInsensitive) } ?? false
                case .split, .jump, .assert:
                    advances = false   // followed when the position was added
                }
                if advances { add(position + 1, at: index + 1, in: input, to: &next, stack: &stack, steps: &steps) }
            }
            swap(&current, &next)
        }
        return false
    }

    /// Adds `start` and every position reachable from it without consuming a character (through
    /// jumps, splits and assertions that hold at `index`), each once.
    private func add(_ start: Int, at index: Int, in input: [Unicode.Scalar], to set: inout ThreadSet,
                     stack: inout [Int], steps: inout Int) {
        stack.append(start)
        while let position = stack.popLast() {
            guard set.insert(position) else { continue }
            steps += 1
            switch program[position] {
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                if Self.holds(assertion, at: index, in: input) { stack.append(position + 1) }
            case .scalar, .any, .set, .match:
                break
            }
        }
    }

    private static func holds(_ assertion: Assertion, at index: Int, in input: [Unicode.Scalar]) -> Bool {
        switch assertion {
        case .start:
            return index == 0
        case .end:
            return index == input.count
        case .endOrFinalLineTerminator:
            let rest = input.count - index
            if rest == 0 { return true }
            if rest == 1 { return isLineTerminator(input[index]) }
            return rest == 2 && input[index] == "\r" && input[index + 1] == "\n"
        case .wordBoundary(let expected):
            let before = index > 0 && ScalarSet.Shorthand.word.contains(input[index - 1])
            let after = index < input.count && ScalarSet.Shorthand.word.contains(input[index])
            return (before != after) == expected
        }
    }

    /// What `.` does not match: `\n`, `\u{0B}`, `\u{0C}`, `\r`, `\u{85}`, `\u{2028}`, `\u{2029}`.
    package static func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}

/// A set of program positions with O(1) insert, membership and clearing (a sparse set), whose
/// members keep their insertion order.
package struct ThreadSet {
    private(set) var members: [Int] = []
    /// Where each position sits in `members`, when it is there (checked against `members`).
    private var slots: [Int]

    package init(capacity: Int) {
        slots = [Int](repeating: 0, count: capacity)
        members.reserveCapacity(capacity)
    }

    package var isEmpty: Bool { members.isEmpty }

    /// Inserts `position`; false when it was already there.
    package mutating func insert(_ position: Int) -> Bool {
        let slot = slots[position]
        if slot < members.count, members[slot] == position { return false }
        slots[position] = members.count
        members.append(position)
        return true
    }

    package mutating func removeAll() { members.removeAll(keepingCapacity: true) }
}
