import Foundation
@testable import OpenCoreDataPostgres

/// A throwaway PostgreSQL cluster for this test process: `initdb` into a temporary folder, then
/// `postgres` listening only on a Unix socket in that folder (no TCP port to collide with),
/// started once, on first use, and stopped with the folder removed when the process exits.
///
/// The binaries come from Debian's `/usr/lib/postgresql/<version>/bin` (the newest version), or
/// else from `PATH`. `initdb` refuses to run as root, so as root (CI) the cluster runs as the
/// `postgres` user Debian's package creates (`runuser -u postgres --`). Authentication is
/// `trust` on the socket, which only this folder's owner can reach.
///
/// When PostgreSQL is not installed, ``unavailableReason`` says so and how to install it, and
/// the suites that need a server are skipped with that one line.
final class PostgresTestServer: Sendable {
    /// The superuser `initdb` creates.
    static let user = "postgres"
    /// The port, which only names the socket file here.
    static let port = 54329

    let directory: URL
    let binaries: URL
    let runAs: String?

    /// The socket folder; connect with ``url(database:schema:)``.
    var socketFolder: String { directory.appendingPathComponent("socket").path }

    /// The server shared by every test of the process, or why there is none.
    static let shared: Result<PostgresTestServer, ServerUnavailable> = {
        do {
            let server = try PostgresTestServer()
            atexit { PostgresTestServer.stopShared() }
            return .success(server)
        } catch let error as ServerUnavailable {
            return .failure(error)
        } catch {
            return .failure(ServerUnavailable(description: "PostgreSQL could not be started: \(error)"))
        }
    }()

    /// Why the PostgreSQL tests are skipped; nil when a server runs.
    static var unavailableReason: String? {
        if case .failure(let reason) = shared { return reason.description }
        return nil
    }

    /// The shared server; throws the reason there is none.
    static func server() throws -> PostgresTestServer {
        try shared.get()
    }

    struct ServerUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    private init() throws {
        guard let binaries = Self.findBinaries() else {
            throw ServerUnavailable(description: "PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or PATH): "
                + "PostgreSQL tests skipped. Install it with `apt-get install postgresql`.")
        }
        self.binaries = binaries
        let isRoot = getuid() == 0
        runAs = isRoot ? Self.user : nil
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-postgres-\(UUID().uuidString)")
        let socket = directory.appendingPathComponent("socket")
        try FileManager.default.createDirectory(at: socket, withIntermediateDirectories: true)
        if isRoot {
            try Self.run("/bin/chown", ["-R", "\(Self.user):\(Self.user)", directory.path], as: nil)
        }
        let data = directory.appendingPathComponent("data").path
        try Self.run(binaries.appendingPathComponent("initdb").path,
                     ["-D", data, "-U", Self.user, "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"], as: runAs)
        let options = "-k \(socket.path) -c listen_addresses= -p \(Self.port) -c fsync=off -c max_connections=300"
        let pgCtl = binaries.appendingPathComponent("pg_ctl").path
        try Self.run(pgCtl, ["-D", data, "-o", options, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "60", "start"], as: runAs)
        try startWatchdog(pgCtl: pgCtl, data: data)
    }

    /// A shell that stops the server and removes its folder once this process is gone, also
    /// when it crashes or is killed and `atexit` never runs (it looks once a second).
    private func startWatchdog(pgCtl: String, data: String) throws {
        let script = "while [ -d /proc/\(getpid()) ]; do sleep 1; done; '\(pgCtl)' -D '\(data)' -m immediate stop; rm -rf '\(directory.path)'"
        _ = try Self.spawn(Self.command("/bin/sh", ["-c", script], as: runAs), output: nil)
    }

    /// A URL for `database` on this server, with `schema` as the store's schema.
    func url(database: String = "postgres", schema: String = "public") -> URL {
        URL(string: "postgres://\(Self.user)@:\(Self.port)/\(database)?host=\(socketFolder)&schema=\(schema)")!
    }

    /// Stops the shared server and removes its folder (at exit).
    static func stopShared() {
        guard case .success(let server) = shared else { return }
        let data = server.directory.appendingPathComponent("data").path
        _ = try? run(server.binaries.appendingPathComponent("pg_ctl").path, ["-D", data, "-m", "immediate", "-w", "stop"], as: server.runAs)
        try? FileManager.default.removeItem(at: server.directory)
    }

    /// The newest `/usr/lib/postgresql/<version>/bin`, else the folder of `initdb` on `PATH`.
    private static func findBinaries() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .compactMap { name in Int(name).map { ($0, name) } }.sorted { $0.0 > $1.0 }
        for (_, name) in versions {
            let bin = root.appendingPathComponent(name).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let bin = URL(fileURLWithPath: String(folder))
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path),
               FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("pg_ctl").path) { return bin }
        }
        return nil
    }

    /// Runs `tool` (as `user` through `runuser` when given) and waits; throws with its output
    /// when it fails. Spawned with `posix_spawn` and reaped with `waitpid`: Foundation's
    /// `Process.waitUntilExit` can miss the exit of a tool that leaves a daemon behind (`pg_ctl
    /// start`).
    @discardableResult
    private static func run(_ tool: String, _ arguments: [String], as user: String?) throws -> String {
        let log = NSTemporaryDirectory() + "ocd-postgres-tool-\(UUID().uuidString).log"
        defer { unlink(log) }
        let pid = try spawn(command(tool, arguments, as: user), output: log)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw ServerUnavailable(description: "\((tool as NSString).lastPathComponent) failed (status \(status)): \(text)")
        }
        return text
    }

    /// `tool` with `arguments`, through `runuser -u user --` when `user` is given.
    fileprivate static func command(_ tool: String, _ arguments: [String], as user: String?) -> [String] {
        user.map { ["/usr/sbin/runuser", "-u", $0, "--", tool] + arguments } ?? [tool] + arguments
    }

    /// Starts `argv` with standard input from /dev/null and its output appended to `output`
    /// (or /dev/null); returns its process ID.
    fileprivate static func spawn(_ argv: [String], output: String?) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard result == 0 else {
            throw ServerUnavailable(description: "\(argv[0]) could not be started: \(String(cString: strerror(result)))")
        }
        return pid
    }
}
