import StrataFormat

/// A full-text query that cannot be run, with what is wrong and where: the column (counted in
/// characters from 1) and byte offset of the query text at which the problem starts.
///
/// Parsing never traps: any text gives either a query or this error (hostile input included:
/// unbalanced parentheses and quotes, stray operators, control characters, deep nesting, text
/// longer than the limits of ``TextQueryParser/Limits``).
package struct TextQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is.
    package enum Code: String, Sendable, Hashable {
        /// The query holds no term at all.
        case empty
        /// The query is longer than the parser accepts.
        case tooLong
        /// Parentheses or field scopes nest deeper than the parser accepts.
        case tooDeep
        /// The query has more words and phrases than the parser accepts.
        case tooManyTerms
        /// A character or word that cannot stand where it is.
        case unexpected
        /// A `"` opens a phrase that no `"` closes.
        case unterminatedPhrase
        /// A `(` without its `)`, or a `)` without its `(`.
        case unbalancedParenthesis
        /// An operator (`OR`, `NOT`, `AND`, `field:`) without the query it needs on one side.
        case missingOperand
        /// `name:` names no field of the index.
        case unknownField
        /// `NEAR(…)` without items, or with a distance that is not a whole number in range.
        case invalidNear
        /// A prefix or a word with typo tolerance matches more terms than a query may use.
        case tooManyExpansions
        /// A phrase or `NEAR` on an index that keeps no positions.
        case positionsNotKept
    }

    /// What kind of problem it is.
    package var code: Code
    /// A sentence saying what is wrong.
    package var message: String
    /// The column, from 1, in characters of the query text.
    package var column: Int
    /// The byte offset, from 0, in the query text's UTF-8.
    package var offset: Int

    /// An error at `offset` (bytes) of `query`, whose column is computed from the text.
    package init(_ code: Code, _ message: String, offset: Int, in query: String) {
        self.code = code
        self.message = message
        self.offset = offset
        // The characters that end at or before the offset, plus one.
        var column = 1
        var end = 0
        for character in query {
            end += character.utf8.count
            if end > offset { break }
            column += 1
        }
        self.column = column
    }

    package var description: String { "full-text query, column \(column): \(message)" }

    /// The error as Strata reports it: `.invalidQuery`, naming the column (and the field the
    /// query was given for, when one is named).
    package func strataError(entity: String? = nil, field: String? = nil) -> StrataError {
        StrataError(.invalidQuery, description, entity: entity, field: field, cause: self)
    }
}
