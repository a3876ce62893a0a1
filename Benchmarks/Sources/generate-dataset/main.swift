// generate-dataset --count N --seed S [--output FILE]
//
// Writes N deterministic users (ids 1...N) as one JSON array: to FILE, or to standard output.
// The same count and seed always give byte-identical output.
import Dataset
import Foundation

struct Options {
    var count = 1_000
    var seed: UInt64 = 42
    var output: String?
}

func usage() -> Never {
    let text = """
        usage: generate-dataset --count N --seed S [--output FILE]
          --count N      number of users, ids 1...N (default 1000)
          --seed S       PRNG seed, an unsigned 64-bit integer (default 42)
          --output FILE  write to FILE instead of standard output

        """
    FileHandle.standardError.write(Data(text.utf8))
    exit(2)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("generate-dataset: \(message)\n".utf8))
    exit(2)
}

func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var rest = arguments[...]
    func value(for flag: String) -> String {
        guard let v = rest.popFirst() else { fail("\(flag) needs a value") }
        return v
    }
    while let argument = rest.popFirst() {
        switch argument {
        case "--count", "-n":
            guard let n = Int(value(for: argument)), n >= 0 else { fail("--count must be a non-negative integer") }
            options.count = n
        case "--seed", "-s":
            guard let s = UInt64(value(for: argument)) else { fail("--seed must be an unsigned 64-bit integer") }
            options.seed = s
        case "--output", "-o":
            options.output = value(for: argument)
        case "--help", "-h":
            usage()
        default:
            fail("unknown argument '\(argument)' (try --help)")
        }
    }
    return options
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
let handle: FileHandle
if let path = options.output {
    guard FileManager.default.createFile(atPath: path, contents: nil),
        let file = FileHandle(forWritingAtPath: path)
    else { fail("cannot create \(path)") }
    handle = file
} else {
    handle = .standardOutput
}

do {
    var writer = UserJSONWriter(output: handle)
    for user in UserGenerator(count: options.count, seed: options.seed) {
        try writer.write(user)
    }
    try writer.finish()
    if options.output != nil { try handle.close() }
} catch {
    fail("\(error)")
}
