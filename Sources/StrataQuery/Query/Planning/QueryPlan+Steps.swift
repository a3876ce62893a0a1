import Foundation

extension QueryPlan {
    /// One step of a plan, as `strata explain --tree` and `--format json` show it: what it does,
    /// the index it reads, how many rows the planner expects from it and, after
    /// ``QueryRequest/analyze()``, how many it gave and how long the plan took up to it.
    public struct Step: Sendable, Hashable {
        /// `FullScan`, `KeyLookup`, `KeyRange`, `IndexScan`, `IndexMerge`, `IndexOrder`, `TextSearch`, `Union`,
        /// `Intersection`, `SemiJoin`, `Filter`, `Sort`, `TopK`, `Offset` or `Limit`.
        public var operation: String
        /// The rest of the step's line: the entity and condition, the predicate, the sort keys.
        public var detail: String
        /// The index the step reads, if any.
        public var index: String?
        /// The step walks its keys backwards (for a descending order it delivers).
        public var reversed = false
        /// The rows the planner expects the step to give: the access path's estimate, which the
        /// later steps can only lower (a filter at most keeps them all); nil when unknown (the
        /// parts of a union or an intersection).
        public var estimatedRows: Int?
        /// The rows the step gave when the query ran (``QueryRequest/analyze()``).
        public var actualRows: Int?
        /// The seconds the plan took up to and including this step when the query ran.
        public var seconds: Double?
        /// For a `TextSearch`, the posting blocks it read when the query ran
        /// (``QueryRequest/analyze()``).
        public var postingsRead: Int?
        /// The steps that feed this one beside the pipeline: the parts of a union or an
        /// intersection, the related entity's plan of a semi-join.
        public var children: [Step]

        /// A step that has not run (no actual rows or time).
        public init(operation: String, detail: String, index: String? = nil, estimatedRows: Int? = nil, children: [Step] = []) {
            self.operation = operation
            self.detail = detail
            self.index = index
            self.estimatedRows = estimatedRows
            self.children = children
        }

        /// `operation(detail)`, as the one-line plan writes it.
        package var line: String { "\(operation)(\(detail))" + (reversed ? " reversed" : "") }
    }

    /// The plan's steps in the order rows flow through them: the semi-joins of relationship
    /// conditions, the access path, then the filter, sort, offset and limit that apply.
    public var steps: [Step] {
        var steps = semiJoins.map(\.step)
        var rows = estimatedRows
        steps.append(step(for: access, estimate: rows, top: true))
        if residual != .constant(true) { steps.append(Step(operation: "Filter", detail: residual.explained, estimatedRows: rows)) }
        if !orderFromAccess, !sort.isEmpty {
            let keys = sort.map(\.explained).joined(separator: ", ")
            if let limit {
                rows = min(rows, offset + limit)
                steps.append(Step(operation: "TopK", detail: "\(keys), \(offset + limit)", estimatedRows: rows))
            } else {
                steps.append(Step(operation: "Sort", detail: keys, estimatedRows: rows))
            }
        }
        if offset > 0 {
            rows = max(rows - offset, 0)
            steps.append(Step(operation: "Offset", detail: "\(offset)", estimatedRows: rows))
        }
        if let limit {
            rows = min(rows, limit)
            steps.append(Step(operation: "Limit", detail: "\(limit)", estimatedRows: rows))
        }
        return steps
    }

    /// The step of an access path; `top` for the plan's own (which carries the estimate).
    private func step(for access: Access, estimate: Int, top: Bool) -> Step {
        let rows = top ? estimate : nil
        var step = accessStep(access, estimate: estimate, rows: rows)
        switch access {
        case .fullScan, .primaryKeyRange, .indexScan: step.reversed = reversed
        default: break
        }
        return step
    }

    private func accessStep(_ access: Access, estimate: Int, rows: Int?) -> Step {
        switch access {
        case .union(let parts):
            let children = parts.map { step(for: $0, estimate: estimate, top: false) }
            return Step(operation: "Union", detail: children.map(\.line).joined(separator: ", "), estimatedRows: rows, children: children)
        case .intersection(let parts):
            let children = parts.map { step(for: $0, estimate: estimate, top: false) }
            return Step(operation: "Intersection", detail: children.map(\.line).joined(separator: ", "), estimatedRows: rows, children: children)
        case .fullScan:
            return Step(operation: "FullScan", detail: "\(entity)", estimatedRows: rows)
        case .textSearch(let text):
            return Step(operation: "TextSearch", detail: text.explained(entity: entity), index: text.index, estimatedRows: rows)
        case .primaryKeyLookup(let field, let keys):
            return Step(operation: "KeyLookup", detail: keys.count == 1 ? "\(entity).\(field) = \(keys[0].explained)"
                        : "\(entity).\(field) IN \(QueryValue.list(keys).explained)", estimatedRows: rows)
        case .primaryKeyRange(let field, let range):
            return Step(operation: "KeyRange", detail: "\(entity).\(field) \(range.explained)", estimatedRows: rows)
        case .indexScan(let index, let fields, let condition):
            let target = "\(entity).\(index)"
            let scan = merge != nil ? "IndexMerge" : "IndexScan"
            switch condition {
            case .compound(let leading, let next):
                // Which fields bound the scan: `User.lastName,luckyNumber (lastName = "Bluth", luckyNumber > 5)`.
                var bounds = zip(leading, fields).map { values, field in
                    let name = field.path.joined(separator: ".")
                    return values.count == 1 ? "\(name) = \(values[0].explained)" : "\(name) IN \(QueryValue.list(values).explained)"
                }
                let bounded = leading.count < fields.count ? fields[leading.count].path.joined(separator: ".") : keyField
                if let bound = Self.explained(next, field: bounded) { bounds.append(bound) }
                return Step(operation: scan, detail: "\(target) (\(bounds.joined(separator: ", ")))", index: index, estimatedRows: rows)
            case .points(let values) where values.count == 1:
                return Step(operation: scan, detail: "\(target) = \(values[0].explained)", index: index, estimatedRows: rows)
            case .points(let values):
                return Step(operation: scan,
                            detail: "\(target) IN \(QueryValue.list(values).explained)", index: index, estimatedRows: rows)
            case .range(let range):
                return Step(operation: scan, detail: "\(target) \(range.explained)", index: index, estimatedRows: rows)
            case .prefix(let prefix):
                return Step(operation: scan, detail: "\(target) BEGINSWITH \(QueryValue.string(prefix).explained)",
                            index: index, estimatedRows: rows)
            case .all:
                return Step(operation: "IndexOrder", detail: "\(target)", index: index, estimatedRows: rows)
            }
        }
    }

    /// A compound scan's condition on one field as `explain` prints it; nil for `.all`.
    private static func explained(_ condition: QueryPlan.IndexCondition, field: String) -> String? {
        switch condition {
        case .points(let values) where values.count == 1: "\(field) = \(values[0].explained)"
        case .points(let values): "\(field) IN \(QueryValue.list(values).explained)"
        case .range(let range): "\(field) \(range.explained)"
        case .prefix(let prefix): "\(field) BEGINSWITH \(QueryValue.string(prefix).explained)"
        case .all, .compound: nil
        }
    }

    /// Every index the plan reads, its semi-joins' plans included, each once in order of use.
    public var indexesUsed: [String] {
        var names: [String] = []
        func collect(_ step: Step) {
            if let index = step.index, !names.contains(index) { names.append(index) }
            step.children.forEach(collect)
        }
        steps.forEach(collect)
        return names
    }

    /// The plan as an indented tree, the last step at the top and the steps feeding each step
    /// below it, as `sqlite3`'s `EXPLAIN QUERY PLAN` draws one:
    ///
    /// ```
    /// QUERY PLAN User
    /// └─ Limit 2  (estimated 2 rows)
    ///    └─ Filter luckyNumber > 5  (estimated ≤ 5 rows)
    ///       └─ IndexScan User.lastName[cd] = "bluth"  (index lastName[cd], estimated 5 rows)
    /// ```
    /// Steps run by ``QueryRequest/analyze()`` also show their actual rows and time.
    public func tree(_ steps: [Step]? = nil) -> String {
        let steps = steps ?? self.steps
        var text = "QUERY PLAN \(entity)\n"
        // The pipeline as a chain: each step's input is the step before it; the semi-joins feed the access path.
        let chain = steps.filter { $0.operation != "SemiJoin" }
        let joins = steps.filter { $0.operation == "SemiJoin" }
        func draw(_ position: Int, prefix: String) {
            let step = chain[position]
            text += prefix + "└─ " + Self.treeLine(step, isFilterLike: position > 0) + "\n"
            let inner = prefix + "   "
            var below = step.children
            if position == 0 { below = joins + below }
            for (index, child) in below.enumerated() {
                drawChild(child, prefix: inner, last: index == below.count - 1 && position == 0)
            }
            if position > 0 { draw(position - 1, prefix: inner) }
        }
        func drawChild(_ step: Step, prefix: String, last: Bool) {
            text += prefix + (last ? "└─ " : "├─ ") + Self.treeLine(step, isFilterLike: false) + "\n"
            let inner = prefix + (last ? "   " : "│  ")
            for (index, child) in step.children.enumerated() {
                drawChild(child, prefix: inner, last: index == step.children.count - 1)
            }
        }
        if !chain.isEmpty { draw(chain.count - 1, prefix: "") }
        return text
    }

    private static func treeLine(_ step: Step, isFilterLike: Bool) -> String {
        var notes: [String] = []
        if let index = step.index { notes.append("index \(index)") }
        if let rows = step.estimatedRows {
            notes.append("estimated \(step.operation == "Filter" ? "≤ " : "")\(rows) row\(rows == 1 ? "" : "s")")
        }
        if step.reversed { notes.append("reversed") }
        if let rows = step.actualRows { notes.append("actual \(rows) row\(rows == 1 ? "" : "s")") }
        if let blocks = step.postingsRead { notes.append("\(blocks) posting block\(blocks == 1 ? "" : "s") read") }
        if let seconds = step.seconds { notes.append(String(format: "%.3f ms", seconds * 1000)) }
        // A union or an intersection lists its parts below it, not on its line.
        let detail = step.operation == "Union" || step.operation == "Intersection" ? "" : " " + step.detail
        return step.operation + detail + (notes.isEmpty ? "" : "  (" + notes.joined(separator: ", ") + ")")
    }

    /// The plan as one JSON object (`strata explain --format json`): `steps` in the order rows
    /// flow, each with its operation, detail, index, estimated (and actual) rows and its parts
    /// or sub-plan; every index used, the sub-plans' included; the one-line `text`.
    public func jsonObject(_ steps: [Step]? = nil) -> JSONValue {
        let steps = steps ?? self.steps
        return .object([
            JSONMember(key: "entity", value: .string(entity)),
            JSONMember(key: "text", value: .string(description)),
            JSONMember(key: "steps", value: .array(steps.map(\.jsonValue))),
            JSONMember(key: "indexes", value: .array(indexesUsed.map(JSONValue.string))),
            JSONMember(key: "estimatedRows", value: .int(Int64(estimatedRows))),
            JSONMember(key: "orderFromAccess", value: .bool(orderFromAccess)),
            JSONMember(key: "reversed", value: .bool(reversed)),
            JSONMember(key: "offset", value: .int(Int64(offset))),
            JSONMember(key: "limit", value: limit.map { .int(Int64($0)) } ?? .null),
        ])
    }
}

extension QueryPlan.Step {
    /// The step as a JSON object.
    public var jsonValue: JSONValue {
        var members = [JSONMember(key: "operation", value: .string(operation)), JSONMember(key: "detail", value: .string(detail))]
        if let index { members.append(JSONMember(key: "index", value: .string(index))) }
        if reversed { members.append(JSONMember(key: "reversed", value: .bool(true))) }
        members.append(JSONMember(key: "estimatedRows", value: estimatedRows.map { .int(Int64($0)) } ?? .null))
        if let actualRows { members.append(JSONMember(key: "actualRows", value: .int(Int64(actualRows)))) }
        if let postingsRead { members.append(JSONMember(key: "postingsRead", value: .int(Int64(postingsRead)))) }
        if let seconds { members.append(JSONMember(key: "seconds", value: .double((seconds * 1e6).rounded() / 1e6))) }
        if !children.isEmpty { members.append(JSONMember(key: "children", value: .array(children.map(\.jsonValue)))) }
        return .object(members)
    }
}

extension QueryPlan.SemiJoin {
    /// The semi-join as a step, the related entity's plan (its last step, fed by the others) below it.
    package var step: QueryPlan.Step {
        var step = QueryPlan.Step(operation: "SemiJoin", detail: "\(relationship) via \(through) ⇒ \(keys) keys", estimatedRows: keys)
        if let plan { step.children = plan.steps }
        return step
    }
}
