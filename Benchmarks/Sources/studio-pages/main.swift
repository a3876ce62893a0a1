// studio-pages: how long `strata studio` takes to answer a page of its records grid.
//
// usage: studio-pages STORE [REPEATS]
//
// STORE is a store made by `strata demo --records 1000000 --store STORE` (its User entity, indexes on
// lastName [cd], luckyNumber, createdAt, tags). The studio is served in this process on 127.0.0.1 and
// asked over loopback, one request at a time, with a plain HTTP/1.1 client on a kept-alive socket, so
// each time is the server's answer plus a loopback round trip: the first page by key, a page deep in
// the key order (after=N/2), the first page sorted by luckyNumber and by lastName, a page deep in each
// sort, and a descending one. Prints median, p95 and max per page kind, in milliseconds.
import Foundation
import Strata
import StrataStudio
#if canImport(Glibc)
import Glibc
#endif

/// One kept-alive HTTP/1.1 connection to the studio.
final class Client {
    let socket: Int32
    let port: Int
    let token: String

    init(port: Int, token: String) {
        self.port = port
        self.token = token
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(connected == 0, "connect: \(errno)")
    }

    /// The body of GET `path`, and the seconds from sending to the last byte.
    func get(_ path: String) -> (body: String, seconds: Double) {
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n\r\n"
        let start = DispatchTime.now().uptimeNanoseconds
        _ = request.withCString { send(socket, $0, strlen($0), 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var expected: Int?
        var headerEnd = 0
        while expected.map({ received.count < headerEnd + $0 }) ?? true {
            let n = recv(socket, &buffer, buffer.count, 0)
            precondition(n > 0, "recv: \(errno)")
            received += buffer[..<n]
            if expected == nil, let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                headerEnd = end.upperBound
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let line = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }!
                expected = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))!
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (String(decoding: received[headerEnd...], as: UTF8.self), seconds)
    }
}

/// Writes a line at once (unbuffered), so a failure later leaves the lines before it.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: studio-pages STORE [REPEATS]\n".utf8))
    exit(2)
}
let repeats = arguments.count > 2 ? Int(arguments[2]) ?? 50 : 50
let store = try Store(path: arguments[1], configuration: { var c = Store.Configuration(); c.readOnly = true; c.createIfMissing = false; return c }())
let total = try store.read { tx in try tx.count(entity: "User") }
let studio = Studio(store: store, options: StudioOptions())
let (ports, sink) = AsyncStream<Int>.makeStream()
let application = studio.application(port: 0) { port in sink.yield(port) }
let server = Task { try await application.run() }
var port = 0
for await bound in ports {
    port = bound
    break
}
let client = Client(port: port, token: studio.options.token)

/// The `next` of a page's body.
func next(_ body: String) -> String {
    let object = try! JSONSerialization.jsonObject(with: Data(body.utf8)) as! [String: Any]
    return object["next"] as! String
}
let middle = String(total / 2)
let deepLucky = next(client.get("/api/entities/User/records?limit=50&sort=luckyNumber&after=\(middle)").body)
let pages: [(String, String)] = [
    ("first page by key", "/api/entities/User/records?limit=50"),
    ("page after key \(middle)", "/api/entities/User/records?limit=50&after=\(middle)"),
    ("first page by luckyNumber", "/api/entities/User/records?limit=50&sort=luckyNumber"),
    ("page by luckyNumber after \(deepLucky)", "/api/entities/User/records?limit=50&sort=luckyNumber&after=\(deepLucky)"),
    ("first page by lastName [cd]", "/api/entities/User/records?limit=50&sort=lastName"),
    ("page by lastName after \(middle)", "/api/entities/User/records?limit=50&sort=lastName&after=\(middle)"),
    ("page by createdAt desc after \(middle)", "/api/entities/User/records?limit=50&sort=createdAt&desc=1&after=\(middle)"),
]
say("studio-pages: \(total.formatted()) User records, pages of 50, \(repeats) requests each (after 3 unmeasured)")
say("page | median ms | p95 ms | max ms")
say("--- | ---: | ---: | ---:")
for (name, path) in pages {
    for _ in 0..<3 { _ = client.get(path) }
    let times = (0..<repeats).map { _ in client.get(path).seconds * 1000 }.sorted()
    let first = client.get(path).body
    guard first.contains("\"records\":[{") else {
        FileHandle.standardError.write(Data("studio-pages: \(name) answered \(first.prefix(300))\n".utf8))
        exit(1)
    }
    let figures = [times[times.count / 2], times[Int(Double(times.count) * 0.95)], times.last!].map { String(format: "%.2f", $0) }
    say("\(name) | " + figures.joined(separator: " | "))
}
server.cancel()
