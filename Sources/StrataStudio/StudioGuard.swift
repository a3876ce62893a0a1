import Foundation
import Hummingbird

/// What every request to a studio passes before its route runs, and what every answer carries:
///
/// - the Host (the request's authority, and any `Host` header) names 127.0.0.1 or localhost, and
///   the studio's port when it names one: a page of another site whose name was pointed at
///   127.0.0.1 (DNS rebinding) is refused with 403 `badHost`;
/// - the access token, as `?token=` (then kept in the `strata-studio` cookie, HttpOnly and
///   SameSite=Strict), that cookie, or `Authorization: Bearer TOKEN`: without it, 401 `unauthorized`;
/// - a request that may write (any method but GET and HEAD) whose `Origin` is not the studio's
///   own, or that a browser marks `Sec-Fetch-Site: cross-site`, is refused with 403 `badOrigin`;
/// - every answer carries a Content-Security-Policy that allows scripts, styles, images and
///   connections from the studio itself only and no inline script, `X-Content-Type-Options: nosniff`,
///   `Referrer-Policy: no-referrer` and `X-Frame-Options: DENY`.
struct StudioGuard: RouterMiddleware {
    typealias Context = BasicRequestContext
    let studio: Studio

    /// The name of the cookie that keeps the token.
    static let cookie = "strata-studio"
    /// The Content-Security-Policy of every answer.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        var tokenFromQuery = false
        do {
            try checkHost(request)
            tokenFromQuery = try checkToken(request)
            try checkOrigin(request)
            response = try await next(request, context)
        } catch {
            response = try StudioError.answering(error).response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.init("X-Content-Type-Options")!] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        response.headers[.init("X-Frame-Options")!] = "DENY"
        if tokenFromQuery {
            response.headers[.setCookie] = "\(Self.cookie)=\(studio.options.token); Path=/; HttpOnly; SameSite=Strict"
        }
        return response
    }

    /// Throws 403 `badHost` unless every name the request gives for the server is 127.0.0.1 or
    /// localhost, at the studio's port when it names one.
    func checkHost(_ request: Request) throws {
        var names = request.headers[values: .init("Host")!]
        if let authority = request.head.authority { names.append(authority) }
        guard !names.isEmpty else { throw StudioError(.forbidden, "badHost", "the request names no host") }
        for name in names where !allowed(authority: name) {
            throw StudioError(.forbidden, "badHost", "the studio answers only to 127.0.0.1 and localhost at its port, not to '\(name.prefix(100))'")
        }
    }

    /// Whether `authority` (`host[:port]`) is 127.0.0.1 or localhost at the studio's port.
    func allowed(authority: String) -> Bool {
        var host = Substring(authority)
        var port: Substring?
        if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard host == "127.0.0.1" || host.lowercased() == "localhost" else { return false }
        guard let port else { return true }
        guard let number = Int(port) else { return false }
        return studio.port.map { $0 == number } ?? true
    }

    /// Returns whether the token came as `?token=` (to be kept in the cookie); throws 401
    /// `unauthorized` when the request carries no right token.
    func checkToken(_ request: Request) throws -> Bool {
        let expected = studio.options.token
        if let given = request.uri.queryParameters["token"], Self.same(String(given), expected) { return true }
        if let cookie = request.cookies[Self.cookie], Self.same(cookie.value, expected) { return false }
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
           Self.same(String(authorization.dropFirst(7)), expected) { return false }
        throw StudioError(.unauthorized, "unauthorized", "this studio needs its access token: open the URL `strata studio` printed")
    }

    /// Throws 403 `badOrigin` for a request that may write and comes from another site.
    func checkOrigin(_ request: Request) throws {
        guard request.method != .get && request.method != .head else { return }
        if request.headers[.init("Sec-Fetch-Site")!] == "cross-site" {
            throw StudioError(.forbidden, "badOrigin", "a request from another site may not write")
        }
        guard let origin = request.headers[.init("Origin")!] else { return }
        let prefix = "http://"
        guard origin.hasPrefix(prefix), allowed(authority: String(origin.dropFirst(prefix.count))) else {
            throw StudioError(.forbidden, "badOrigin", "a request from '\(origin.prefix(100))' may not write; only the studio's own page may")
        }
    }

    /// Compares two tokens in time that depends on their lengths only.
    static func same(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
