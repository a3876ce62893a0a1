import StrataToolSupport

/// A table as the tool prints it, built a cell at a time: left-aligned columns separated by two
/// spaces, with a rule under the header, measured by display width (``String/displayWidth``);
/// every control character escaped (line breaks and tabs too, which would break the columns);
/// cells wider than ``maximumCellWidth`` cut with `…`. The cells' text is kept in one byte
/// buffer, as the widths need every row before the first line can be written.
struct TableText {
    /// The widest a cell is printed, in columns; longer values end in `…`.
    static let maximumCellWidth = 60

    private var header: [(text: String, width: Int)]
    /// Every cell's text, one after the other.
    private var text: [UInt8] = []
    /// Where each cell ends in `text`, and its width, row after row.
    private var cells: [(end: Int, width: Int)] = []
    private var widths: [Int]

    init(header: [String]) {
        self.header = header.map { Self.prepared($0, clipping: false) }
        widths = self.header.map(\.width)
    }

    /// The number of rows added.
    var rowCount: Int { header.isEmpty ? 0 : cells.count / header.count }

    /// Adds the next cell, as UTF-8 (a row's cells in column order, then the next row's).
    mutating func append(_ utf8: ArraySlice<UInt8>) {
        if utf8.count <= Self.maximumCellWidth, utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            text.append(contentsOf: utf8)   // printable ASCII: a column a byte
            add(width: utf8.count)
        } else {
            append(String(decoding: utf8, as: UTF8.self))
        }
    }

    /// Adds the next cell.
    mutating func append(_ cell: String) {
        let (prepared, width) = Self.prepared(cell, clipping: true)
        text.append(contentsOf: prepared.utf8)
        add(width: width)
    }

    private mutating func add(width: Int) {
        let column = cells.count % widths.count
        if width > widths[column] { widths[column] = width }
        cells.append((text.count, width))
    }

    /// The table's lines.
    func rendered() -> [UInt8] {
        // The header and the rule: two lines, written a cell at a time.
        var head: [UInt8] = []
        func line(_ count: Int, _ cell: (Int) -> (text: ArraySlice<UInt8>, width: Int)) {
            // Padding only between values: a line ends with its last non-empty value, whole.
            let last = (0..<count).last { !cell($0).text.isEmpty } ?? 0
            for column in 0...last where count > 0 {
                let (text, width) = cell(column)
                head.append(contentsOf: text)
                if column < last { head.append(contentsOf: repeatElement(UInt8(ascii: " "), count: widths[column] - width + 2)) }
            }
            head.append(UInt8(ascii: "\n"))
        }
        line(header.count) { (ArraySlice(header[$0].text.utf8), header[$0].width) }
        line(widths.count) { (ArraySlice(repeatElement(UInt8(ascii: "-"), count: widths[$0])), widths[$0]) }
        // The rows, by the same rule, copied from the cells' buffer into one of their lines' size at most.
        let columns = widths.count
        let lineBound = widths.reduce(0) { $0 + $1 + 2 } + 1
        return [UInt8](unsafeUninitializedCapacity: head.count + text.count + rowCount * lineBound) { output, initialized in
            let out = output.baseAddress!
            head.withUnsafeBufferPointer { out.initialize(from: $0.baseAddress!, count: $0.count) }
            var position = head.count
            text.withUnsafeBufferPointer { text in
                cells.withUnsafeBufferPointer { cells in
                    for row in 0..<rowCount {
                        let first = row * columns
                        func start(_ index: Int) -> Int { index == 0 ? 0 : cells[index - 1].end }
                        var last = 0
                        for column in (0..<columns).reversed() where cells[first + column].end > start(first + column) {
                            last = column
                            break
                        }
                        for column in 0...last {
                            let index = first + column, begin = start(index)
                            let length = cells[index].end - begin
                            if length > 0 { (out + position).initialize(from: text.baseAddress! + begin, count: length) }
                            position += length
                            if column < last {
                                let padding = widths[column] - cells[index].width + 2
                                (out + position).initialize(repeating: UInt8(ascii: " "), count: padding)
                                position += padding
                            }
                        }
                        out[position] = UInt8(ascii: "\n")
                        position += 1
                    }
                }
            }
            initialized = position
        }
    }

    /// A cell as a table prints it, with its display width: printable ASCII as it is, other
    /// text with control characters escaped, measured by display width, and cut to
    /// ``maximumCellWidth`` when `clipping`.
    private static func prepared(_ text: String, clipping: Bool) -> (text: String, width: Int) {
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }), !clipping || utf8.count <= maximumCellWidth {
            return (text, utf8.count)
        }
        let escaped = text.escapingControlCharacters()
        let width = escaped.displayWidth     // measured once: most cells need no cut
        guard clipping, width > maximumCellWidth else { return (escaped, width) }
        let cell = escaped.clipped(toColumns: maximumCellWidth)
        return (cell, cell.displayWidth)
    }
}
