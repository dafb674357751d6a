import Foundation
import OpenCoreData
import PostgresNIO

/// Where a PostgreSQL store lives, read from the URL the store is added with:
/// `postgres://user:password@host:port/database?schema=NAME`.
///
/// - `postgresql://` is accepted too, as libpq accepts it.
/// - The port defaults to 5432, the schema to `public`, the user to the current user.
/// - User and password are percent-decoded.
/// - A Unix socket is named as libpq names it: an empty host and the socket's folder in `host=`
///   (`postgres://me@/shop?host=/var/run/postgresql`); the socket is `<folder>/.s.PGSQL.<port>`.
/// - `sslmode=disable`, `prefer` (the default over TCP, as in libpq) or `require`, with the
///   system's trust roots. A Unix socket never uses TLS.
///
/// A URL that breaks these rules fails with `NSPersistentStoreOpenError` (134080) naming what is
/// wrong; the password is never part of a message.
public struct PostgresStoreLocation: Sendable, Equatable {
    /// How the client reaches the server.
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// The socket file's path.
        case unixSocket(path: String)
    }

    /// TLS over TCP, as libpq's `sslmode`.
    public enum TLSMode: String, Sendable, Equatable {
        case disable, prefer, require
    }

    public var endpoint: Endpoint
    public var username: String
    public var password: String?
    public var database: String
    /// The PostgreSQL schema that holds the store's tables.
    public var schema: String
    public var tlsMode: TLSMode

    /// Reads `url`; see the type's summary for the forms.
    public init(url: URL) throws {
        func failure(_ reason: String) -> NSError {
            NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOpenError, userInfo: [
                NSLocalizedDescriptionKey: "The PostgreSQL store URL \(Self.redacted(url)) is not usable: \(reason).",
                NSURLErrorKey: Self.redacted(url),
            ])
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme) else {
            throw failure("the scheme must be postgres:// or postgresql://")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard query[item.name] == nil else { throw failure("'\(item.name)' is given twice") }
            query[item.name] = item.value ?? ""
        }
        let known: Set<String> = ["schema", "host", "sslmode"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw failure("'\(unknown)' is not an option (the options are \(known.sorted().joined(separator: ", ")))")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw failure("the port \(port) is out of range") }
        let host = components.percentEncodedHost.flatMap { $0.removingPercentEncoding } ?? ""
        if host.isEmpty {
            guard let folder = query["host"], folder.hasPrefix("/") else {
                throw failure("give a host, or a Unix socket folder in host=/path")
            }
            endpoint = .unixSocket(path: (folder as NSString).appendingPathComponent(".s.PGSQL.\(port)"))
        } else {
            if query["host"] != nil { throw failure("host= names a socket folder, but the URL has a host") }
            endpoint = .tcp(host: host, port: port)
        }
        username = components.percentEncodedUser.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessInfo.processInfo.environment["USER"] ?? NSUserName()
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty, !path.contains("/") else { throw failure("the path must name one database") }
        database = path
        schema = query["schema"] ?? "public"
        guard Self.isIdentifier(schema) else {
            throw failure("the schema '\(schema)' must be 1 to 63 letters, digits or underscores, not starting with a digit")
        }
        switch query["sslmode"] {
        case nil:
            if case .tcp = endpoint { tlsMode = .prefer } else { tlsMode = .disable }
        case let mode?:
            guard let parsed = TLSMode(rawValue: mode) else { throw failure("sslmode must be disable, prefer or require, not '\(mode)'") }
            if case .unixSocket = endpoint, parsed != .disable { throw failure("a Unix socket can't use TLS (sslmode=\(mode))") }
            tlsMode = parsed
        }
    }

    /// postgres-nio's client configuration for this location.
    ///
    /// Its connections search the store's schema first (`search_path`), so that statements
    /// from the SQL compiler name tables without the schema.
    public var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch endpoint {
        case .unixSocket(let path):
            configuration = PostgresClient.Configuration(unixSocketPath: path, username: username, password: password, database: database)
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS = switch tlsMode {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
            configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.additionalStartupParameters = [("search_path", "\"\(schema)\"")]
        return configuration
    }

    /// postgres-nio's configuration of one connection to this location (no pool).
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        switch endpoint {
        case .unixSocket(let path):
            return PostgresConnection.Configuration(unixSocketPath: path, username: username, password: password, database: database)
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS = switch tlsMode {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
    }

    /// `url` without its password, for messages.
    static func redacted(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else { return url }
        components.password = "***"
        return components.url ?? url
    }

    /// Whether `name` is a plain PostgreSQL identifier (no quoting needed to keep its case).
    static func isIdentifier(_ name: String) -> Bool {
        guard (1...63).contains(name.utf8.count), let first = name.unicodeScalars.first,
              first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }
}
