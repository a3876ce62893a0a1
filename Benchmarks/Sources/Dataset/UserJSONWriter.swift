import Foundation

/// Writes users as one JSON array to a file handle, a buffer at a time, so memory stays flat
/// however many users pass through.
///
/// ```swift
/// var writer = UserJSONWriter(output: .standardOutput)
/// for user in UserGenerator(count: 1_000_000, seed: 42) { try writer.write(user) }
/// try writer.finish()
/// ```
///
/// The output is a pure function of the users: no locale, no time zone, no dictionary ordering.
/// Keys come in declaration order; one user per line; strings are escaped per RFC 8259.
public struct UserJSONWriter {
    private let output: FileHandle
    private let flushThreshold: Int
    private var buffer: [UInt8] = []
    private var wroteAny = false
    private var finished = false

    /// - Parameter flushThreshold: bytes buffered before each write to `output`.
    public init(output: FileHandle, flushThreshold: Int = 1 << 20) {
        self.output = output
        self.flushThreshold = flushThreshold
        buffer.reserveCapacity(flushThreshold + 4096)
        buffer.append(UInt8(ascii: "["))
    }

    public mutating func write(_ user: GeneratedUser) throws {
        precondition(!finished, "write(_:) after finish()")
        buffer.append(contentsOf: wroteAny ? Array(",\n".utf8) : [UInt8(ascii: "\n")])
        wroteAny = true
        Self.append(user, to: &buffer)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Closes the array and writes out what is still buffered. Call exactly once.
    public mutating func finish() throws {
        precondition(!finished, "finish() called twice")
        finished = true
        buffer.append(contentsOf: Array((wroteAny ? "\n]\n" : "]\n").utf8))
        try flush()
    }

    private mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try output.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Appends one user as a compact JSON object.
    public static func append(_ user: GeneratedUser, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"id":"#.utf8)
        out.append(contentsOf: String(user.id).utf8)
        field("first_name", out: &out); string(user.firstName, to: &out)
        field("last_name", out: &out); string(user.lastName, to: &out)
        field("email", out: &out); string(user.email, to: &out)
        field("lucky_number", out: &out)
        out.append(contentsOf: (user.luckyNumber.map { String($0) } ?? "null").utf8)
        field("city", out: &out); string(user.city, to: &out)
        field("score", out: &out)
        // Swift prints the shortest digits that round-trip, the same on every platform.
        out.append(contentsOf: user.score.description.utf8)
        field("active", out: &out)
        out.append(contentsOf: (user.active ? "true" : "false").utf8)
        field("tags", out: &out)
        out.append(UInt8(ascii: "["))
        for (i, tag) in user.tags.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            string(tag, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        field("created_at", out: &out); string(iso8601(user.createdAt), to: &out)
        field("updated_at", out: &out); string(iso8601(user.updatedAt), to: &out)
        out.append(UInt8(ascii: "}"))
    }

    private static func field(_ name: String, out: inout [UInt8]) {
        out.append(contentsOf: #",""#.utf8)
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: #"":"#.utf8)
    }

    private static func string(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` for the whole second at or before `date`, computed by hand
    /// (Hinnant's civil-from-days) so that no formatter, locale or time zone can change it.
    public static func iso8601(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            + "\(pad(secondOfDay / 3_600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }
}
