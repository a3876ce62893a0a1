import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata changelog`: turn a store's change log on or off, or show it.
struct ChangeLogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changelog",
        abstract: "Show, enable or disable a store's change log (what `strata changes` and replicas read).",
        discussion: """
            With no option, prints whether the store keeps a log, its retention, the commits it holds and the \
            registered readers. --enable starts logging every commit that changes records (in the commit's own \
            transaction) with the retention given by --keep-commits N (default 100000), --keep-seconds S or \
            --until-acknowledged; --disable stops and deletes the log.
            """
    )

    @Argument(help: "The store directory.") var store: String
    @Flag(help: "Start logging (or change the retention).") var enable = false
    @Flag(help: "Stop logging and delete the log.") var disable = false
    @Option(parsing: .unconditional, help: "Keep the last N commits.") var keepCommits: Int?
    @Option(parsing: .unconditional, help: "Keep the commits of the last S seconds.") var keepSeconds: Double?
    @Flag(help: "Keep every commit until each registered reader has acknowledged it.") var untilAcknowledged = false

    func validate() throws {
        guard !(enable && disable) else { throw ValidationError("--enable and --disable exclude each other") }
        let retentions = (keepCommits != nil ? 1 : 0) + (keepSeconds != nil ? 1 : 0) + (untilAcknowledged ? 1 : 0)
        guard retentions <= 1 else { throw ValidationError("give one of --keep-commits, --keep-seconds and --until-acknowledged") }
        guard retentions == 0 || enable else { throw ValidationError("a retention goes with --enable") }
        if let keepCommits, keepCommits < 1 { throw ValidationError("--keep-commits must be at least 1 (it is \(keepCommits))") }
        if let keepSeconds, !(keepSeconds > 0 && keepSeconds.isFinite) {
            throw ValidationError("--keep-seconds must be a positive, finite number of seconds (it is \(keepSeconds))")
        }
    }

    func run() throws {
        // Showing the log only reads: a store this user may only read shows it too.
        let store = try enable || disable ? Store.existing(self.store) : Store.reading(self.store)
        if enable {
            let retention: ChangeLogRetention = keepSeconds.map { .seconds($0) } ?? (untilAcknowledged ? .acknowledged : .commits(keepCommits ?? 100_000))
            try store.enableChangeLog(retention: retention)
        } else if disable {
            try store.disableChangeLog()
        }
        let (retention, range) = try store.read { tx in (try tx.changeLogRetention(), try tx.changeLogRange()) }
        let replica = try store.replicaPosition()
        var lines: [String] = []
        if let retention {
            lines.append("change log: on, keeping \(retention)")
            lines.append(range.map { "commits: \($0.lowerBound) through \($0.upperBound)" } ?? "commits: none yet")
            for (reader, sequence) in try store.changeReaders().sorted(by: { $0.key < $1.key }) {
                lines.append("reader \(reader): acknowledged through \(sequence)")
            }
        } else {
            lines.append("change log: off")
        }
        if let replica { lines.append("replica: applied its primary's commits through \(replica)") }
        Terminal.write(lines.joined(separator: "\n") + "\n")
    }
}

/// `strata changes`: the change log as JSON lines.
struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Print the store's logged changes after a commit, one JSON line per change; --follow waits for more.",
        discussion: """
            Each line has sequence, time, position, changes (the commit's count: its last line has position == changes), \
            entity, operation (insert, update, delete, deleteAll, schema), key, record (the record as JSON, null for \
            deletes), storedKey and stored (base64 of the stored key and bytes, what a replica applies) and origin (the \
            store's identity and its log's epoch, which a replica checks). \
            `strata changes SRC --follow | ssh host strata replicate - REPLICA` keeps a replica on another machine.
            """
    )

    @Argument(help: "The store directory.") var store: String
    @Option(parsing: .unconditional, help: "Print the commits after this sequence (0: from the first the log holds).") var after: UInt64 = 0
    @Flag(help: "After the logged commits, wait for new ones and print them as they commit (until interrupted).") var follow = false
    @Option(help: "Only changes of this entity (a commit's position and changes then count its changes of every entity).") var entity: String?
    @Option(help: "jsonl (one JSON object a line, the default) or cbor (the same objects as a CBOR sequence).") var format: String = "jsonl"
    @Flag(help: "Name record fields by their JSON keys, the import's mapping reversed.") var jsonKeys = false
    @OptionGroup var access: ReadOnlyFlag

    func validate() throws {
        guard format == "jsonl" || format == "cbor" else { throw ValidationError("--format takes jsonl or cbor") }
    }

    func run() throws {
        let store = try Store.reading(self.store)
        if try store.read({ tx in try tx.changeLogRetention() }) == nil {
            throw CommandFailure(message: "the store at \(self.store) keeps no change log; `strata changelog \(self.store) --enable` starts one "
                + "(the commits before it are not logged)")
        }
        var position = after
        while true {
            // One read transaction a page: the commits, rendered with the entities' fields of the same snapshot.
            let (last, bytes, snapshot) = try store.read { tx -> (UInt64?, [UInt8], Int) in
                let commits = try tx.loggedCommits(after: position, limit: 256)
                var bytes: [UInt8] = []
                for commit in commits {
                    let kept = entity.map { name in commit.changes.filter { $0.entity == name } } ?? commit.changes
                    guard !kept.isEmpty else { continue }
                    let shown = LoggedCommit(sequence: commit.sequence, time: commit.time, changes: kept, origin: commit.origin)
                    if format == "cbor" {
                        try ChangeFeedLines.appendCBOR(shown, from: tx, jsonKeys: jsonKeys, to: &bytes)
                    } else {
                        try ChangeFeedLines.append(shown, from: tx, jsonKeys: jsonKeys, to: &bytes)
                    }
                }
                return (commits.last?.sequence, bytes, tx.snapshotID)
            }
            if let last {
                StandardOutput.shared.append { $0.append(contentsOf: bytes) }
                position = last
                if follow { StandardOutput.shared.flush() }
                continue
            }
            guard follow else { return }
            StandardOutput.shared.flush()
            store.waitForCommit(after: snapshot)
        }
    }
}

/// `strata replicate`: apply a primary's change log to a replica.
struct ReplicateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicate",
        abstract: "Apply a store's change log (SOURCE a store, or - for `strata changes` output, JSON lines or CBOR, on standard input) to REPLICA.",
        discussion: """
            REPLICA becomes a replica (programs cannot write to it) at the first run, starting after the last commit its \
            own log holds (a backup of the source) or from the source's first commit; with a source store and a REPLICA \
            that is missing or an empty directory, it is seeded with a consistent copy of the source first. Each commit \
            is applied whole in one transaction with the replica's position, so a killed run resumes without gaps or \
            duplicates. A replica follows one store (its identity) and one run of its change log (its epoch): another \
            source, a log restarted since, or a source whose history no longer holds the commits applied (restored from \
            an older backup) is refused, naming what differs. A damaged or invalid line stops the run with its line \
            number; the replica stays at its last whole commit.
            """
    )

    @Argument(help: "The source store, or - for JSON lines of `strata changes` on standard input.") var source: String
    @Argument(help: "The replica store (with a source store: seeded with a copy of it when missing or empty).") var replica: String
    @Flag(help: "With a source store: after catching up, wait for new commits and apply them (until interrupted).") var follow = false

    func run() throws {
        let seeds = source != "-" && Self.isMissingOrEmpty(self.replica)
        var replica = seeds ? nil : try Store(path: self.replica, configuration: .command())
        let start = try replica?.replicaPosition()
        var applied = 0
        let position: UInt64
        if let replica, source == "-" {
            position = try applyStandardInput(to: replica, applied: &applied)
        } else {
            let source = try Store.reading(self.source)
            // A snapshot taken before `replicate`, whose last read (finding nothing new) is at it or later.
            var snapshot = try source.read { tx in tx.snapshotID }
            if replica == nil { replica = try Store.seedReplica(of: source, at: self.replica, configuration: .command()) }
            guard let replica else { return }
            var current = try replica.replicate(from: source)
            while follow {
                source.waitForCommit(after: snapshot)
                snapshot = try source.read { tx in tx.snapshotID }
                current = try replica.replicate(from: source)
            }
            position = current
        }
        Terminal.error("replica \(self.replica) at commit \(position) (\(seeds ? "seeded from a copy of \(source)" : "was " + (start.map(String.init) ?? "not a replica")))"
                       + (source == "-" ? ", \(applied) commits read" : ""))
    }

    /// The longest line (or CBOR item) of a feed on standard input: one change, a record and
    /// its key, which LMDB and the import's limits keep far below this.
    static let maximumItemLength = 256 << 20

    /// Whether `path` names nothing or an empty directory: where `replicate` seeds a new replica.
    static func isMissingOrEmpty(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return true }
        return isDirectory.boolValue && ((try? FileManager.default.contentsOfDirectory(atPath: path).isEmpty) ?? false)
    }

    /// Applies the commits on standard input (JSON lines, or the CBOR form: told by the first
    /// byte, after a byte-order mark if there is one) as each one's last change arrives.
    private func applyStandardInput(to replica: Store, applied: inout Int) throws -> UInt64 {
        var reader = ChangeFeedLines.Reader()
        var position = try replica.replicaPosition() ?? 0
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var isCBOR: Bool?
        var atStart = true
        // Where the search for the next newline resumes, and the size at which an incomplete CBOR
        // item is looked at again: a long line or item is scanned a bounded number of times, not
        // once per chunk, so reading it costs time linear in its length.
        var scanned = 0
        var retryCBORAt = 0
        func apply(_ commit: LoggedCommit?) throws {
            guard let commit else { return }
            do { position = try replica.applyChanges([commit]) } catch var error as StrataError {
                error.message = "change feed line \(reader.lineNumber - 1), the last of commit \(commit.sequence): \(error.message); the replica stays at commit \(position)"
                throw error
            }
            applied += 1
        }
        /// Takes the whole lines (or CBOR items) at the start of `pending`; at the end, the rest too.
        func takeItems(atEnd: Bool) throws {
            // A byte-order mark before the first line (as some editors and Windows tools write)
            // is not part of the feed.
            if atStart, pending.count >= 3 || atEnd {
                if pending.starts(with: [0xEF, 0xBB, 0xBF]) { pending.removeFirst(3) }
                atStart = false
            }
            if isCBOR == nil, !atStart, let first = pending.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) {
                isCBOR = first != UInt8(ascii: "{")
            }
            guard let isCBOR else { return }
            var start = 0
            if isCBOR {
                guard atEnd || pending.count >= min(retryCBORAt, Self.maximumItemLength + 1) else { return }
                while let end = ChangeFeedLines.cborItemEnd(in: pending, from: start) {
                    try apply(reader.read(cborItem: Array(pending[start..<end])))
                    start = end
                }
                if atEnd, start < pending.count {
                    throw CommandFailure(message: "the feed ends inside a CBOR item after item \(reader.lineNumber - 1); the replica stays at commit \(position)")
                }
                retryCBORAt = 2 * (pending.count - start)
            } else {
                while let newline = pending[max(start, scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                    if newline > start { try apply(reader.read(line: pending[start..<newline])) }
                    start = newline + 1
                }
                if atEnd, start < pending.count {
                    try apply(reader.read(line: pending[start...]))
                    start = pending.count
                }
                scanned = pending.count - start
            }
            if pending.count - start > Self.maximumItemLength {
                throw CommandFailure(message: "line \(reader.lineNumber) of the feed is longer than \(Self.maximumItemLength >> 20) MiB, "
                    + "the longest a change may be; the replica stays at commit \(position)")
            }
            pending.removeFirst(start)
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandFailure(message: "reading standard input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            pending.append(contentsOf: chunk[0..<count])
            try takeItems(atEnd: false)
        }
        try takeItems(atEnd: true)
        if reader.isInsideCommit {
            throw CommandFailure(message: "the feed ends inside a commit at line \(reader.lineNumber - 1); the replica stays at commit \(position)")
        }
        return position
    }
}
