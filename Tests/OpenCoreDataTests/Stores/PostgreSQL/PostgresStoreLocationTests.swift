import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataPostgres

/// Reading the URL a PostgreSQL store is added with.
@Suite("PostgreSQL store URLs")
struct PostgresStoreLocationTests {
    private func location(_ string: String) throws -> PostgresStoreLocation {
        try PostgresStoreLocation(url: try #require(URL(string: string)))
    }

    @Test func aTCPURLGivesEveryPart() throws {
        let found = try location("postgres://shop%40app:p%2Fss@db.example.com:6543/orders?schema=tenant_7&sslmode=require")
        #expect(found.endpoint == .tcp(host: "db.example.com", port: 6543))
        #expect(found.username == "shop@app")
        #expect(found.password == "p/ss")
        #expect(found.database == "orders")
        #expect(found.schema == "tenant_7")
        #expect(found.tlsMode == .require)
    }

    @Test func defaultsAreLibpqs() throws {
        let found = try location("postgresql://me@localhost/orders")
        #expect(found.endpoint == .tcp(host: "localhost", port: 5432))
        #expect(found.password == nil)
        #expect(found.schema == "public")
        #expect(found.tlsMode == .prefer)
    }

    @Test func aSocketFolderNamesTheSocketFile() throws {
        let found = try location("postgres://me@/orders?host=/var/run/postgresql")
        #expect(found.endpoint == .unixSocket(path: "/var/run/postgresql/.s.PGSQL.5432"))
        #expect(found.tlsMode == .disable)
        let other = try location("postgres://me@:5433/orders?host=/tmp/pg")
        #expect(other.endpoint == .unixSocket(path: "/tmp/pg/.s.PGSQL.5433"))
    }

    @Test(arguments: [
        ("mysql://me@host/db", "scheme"),
        ("postgres://me@host", "one database"),
        ("postgres://me@host/a/b", "one database"),
        ("postgres://me@/db", "socket folder"),
        ("postgres://me@host/db?schema=1bad", "schema '1bad'"),
        ("postgres://me@host/db?schema=bad-name", "schema 'bad-name'"),
        ("postgres://me@host/db?sslmode=verify", "sslmode"),
        ("postgres://me@/db?host=/tmp&sslmode=require", "Unix socket can't use TLS"),
        ("postgres://me@host/db?colour=blue", "'colour' is not an option"),
        ("postgres://me@host/db?schema=a&schema=b", "given twice"),
    ])
    func aBadURLFailsSayingWhatIsWrong(url: String, reason: String) throws {
        let error = #expect(throws: NSError.self) { try location(url) }
        #expect(error?.code == NSPersistentStoreOpenError)
        #expect(error?.localizedDescription.contains(reason) == true, "\(error?.localizedDescription ?? "")")
    }

    @Test func messagesNeverShowThePassword() throws {
        let error = #expect(throws: NSError.self) { try location("postgres://me:secret@host/db?sslmode=nope") }
        #expect(error?.localizedDescription.contains("secret") == false)
        #expect(error?.localizedDescription.contains("***") == true)
    }
}
