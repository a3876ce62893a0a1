import Foundation
import Hummingbird
import Logging
import Strata
import Synchronization

/// `strata studio`: a local web inspector of one store. A JSON API (described by
/// ``StudioOpenAPI/document``), one page that uses nothing else, and a server-sent-events stream
/// of commits, every request guarded by ``StudioGuard``.
///
/// ```swift
/// let studio = Studio(store: store, options: StudioOptions(writable: false))
/// let app = studio.application(port: 0) { port in print("http://127.0.0.1:\(port)/?token=\(studio.options.token)") }
/// try await app.runService()
/// ```
public final class Studio: Sendable {
    /// The store served.
    public let store: Store
    /// How it is served.
    public let options: StudioOptions
    /// The port the server listens on, once it does (the Host header must name it).
    let boundPort = Mutex<Int?>(nil)

    /// A studio of `store`. The store should be opened read-only unless `options.writable`, with
    /// the tool's query time limit (``Store/Configuration/queryTimeout``).
    public init(store: Store, options: StudioOptions) {
        self.store = store
        self.options = options
    }

    /// Every route the studio serves: its method, its path (captures as `{name}`), and whether it
    /// writes. The router is built from this list alone, and the OpenAPI document names each.
    public var routes: [StudioRoute] { makeRouter().routes }

    /// The router with the guard and every route, for a server or for tests.
    public func router() -> Router<BasicRequestContext> { makeRouter().router }

    /// The port requests must name in their Host header, when known (set by ``application(port:onRunning:)``
    /// or by a test).
    public var port: Int? {
        get { boundPort.withLock { $0 } }
        set { boundPort.withLock { $0 = newValue } }
    }

    /// An application serving the studio on 127.0.0.1 only, at `port` (0: a free one); `onRunning`
    /// is told the port it listens on.
    public func application(port: Int, logger: Logger? = nil,
                            onRunning: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        var quiet = Logger(label: "strata-studio")
        quiet.logLevel = .warning
        return Application(
            router: router(),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { [self] channel in
                let bound = channel.localAddress?.port ?? port
                self.boundPort.withLock { $0 = bound }
                await onRunning(bound)
            },
            logger: logger ?? quiet
        )
    }

    func makeRouter() -> StudioRouter {
        let router = StudioRouter(studio: self)
        router.router.add(middleware: StudioGuard(studio: self))
        addPageRoutes(router)
        addEntityRoutes(router)
        addRecordRoutes(router)
        addQueryRoutes(router)
        addStoreRoutes(router)
        addEventRoutes(router)
        addWriteRoutes(router)
        return router
    }
}

/// One route of the studio (``Studio/routes``).
public struct StudioRoute: Sendable, Hashable, CustomStringConvertible {
    /// `GET`, `PUT`, `POST` or `DELETE`.
    public var method: String
    /// The path, captures as `{name}` (as OpenAPI writes them).
    public var path: String
    /// Whether the route writes to the store (refused by a read-only studio).
    public var writes: Bool

    /// `METHOD /path`, as the OpenAPI document's operations are compared with the routes.
    public var description: String { "\(method) \(path)" }
}

/// Registers routes on a Hummingbird router and keeps the list of them.
final class StudioRouter: @unchecked Sendable {
    let router = Router(context: BasicRequestContext.self)
    private(set) var routes: [StudioRoute] = []
    unowned let studio: Studio

    init(studio: Studio) { self.studio = studio }

    /// Adds `handler` for `method` and `path`; a write route is refused by a read-only studio
    /// before `handler` runs. Any error the handler throws is answered as a ``StudioError``.
    func add(_ method: HTTPRequest.Method, _ path: String, writes: Bool = false,
             _ handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response) {
        routes.append(StudioRoute(method: method.rawValue, path: path, writes: writes))
        let writable = studio.options.writable
        router.on(RouterPath(stringLiteral: path), method: method) { request, context -> Response in
            if writes && !writable {
                throw StudioError(.forbidden, "readOnly", "this studio is read-only (start it with --write to change the store)")
            }
            do { return try await handler(request, context) } catch { throw StudioError.answering(error) }
        }
    }
}
