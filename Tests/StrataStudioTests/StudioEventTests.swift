import Foundation
import Hummingbird
import Strata
import StrataStudio
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct StudioEventTests {
    /// A plain TCP client that reads what the server streams, with a time limit per read.
    final class Connection {
        let socket: Int32
        var received = ""

        init(port: Int) throws {
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw StudioError(.internalServerError, "test", "connect failed: \(errno)") }
            var limit = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(socket) }

        func send(_ text: String) { _ = text.withCString { Glibc.send(socket, $0, strlen($0), 0) } }

        /// Reads until `received` contains `text` `count` times; false when a read times out.
        func read(until text: String, count: Int = 1) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while received.components(separatedBy: text).count - 1 < count {
                let n = recv(socket, &buffer, buffer.count, 0)
                guard n > 0 else { return false }
                received += String(decoding: buffer[..<n], as: UTF8.self)
            }
            return true
        }
    }

    @Test func theEventStreamFollowsCommits() async throws {
        let fixture = try StudioFixture(books: 3)
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let application = fixture.studio.application(port: 0) { port in portSink.yield(port) }
        let server = Task { try await application.run() }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let connection = try Connection(port: port)
        connection.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer test-token\r\n\r\n")
        #expect(connection.read(until: "\"Book\":3"))
        #expect(connection.received.contains("text/event-stream"))
        #expect(connection.received.contains("Content-Security-Policy"))
        try fixture.delete("Book", 1)
        #expect(connection.read(until: "\"Book\":2"))
        #expect(connection.read(until: "event: commit", count: 2))
    }
}
