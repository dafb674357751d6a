import ArgumentParser
import Foundation
import Hummingbird

/// `coredata-tutorial web [--port 8080]`: the classes-and-students window as a web page over
/// the `classes` example's store (in `--directory`), until interrupted.
public struct WebCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Serve the classes-and-students window as a web page (stop with Ctrl-C)."
    )

    @OptionGroup public var store: StoreOptions

    @Option(help: "The port to listen on (on 127.0.0.1; 0 picks a free one).")
    public var port: Int = 8080

    @Option(help: "The address to listen on.")
    public var host: String = "127.0.0.1"

    public init() {}

    public func run() async throws {
        let url = store.storeType.fileName(base: ClassesTutorial.storeName).map { store.directoryURL.appendingPathComponent($0) }
        let window: ClassesWindow
        do {
            window = try ClassesWindow(storeURL: url, storeType: store.storeType)
        } catch {
            FileHandle.standardError.write(Data("coredata-tutorial: can't open the store: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let host = self.host
        let app = ClassesWebServer(window: window).application(host: host, port: port) { port in
            FileHandle.standardOutput.write(Data("Serving the classes and students at http://\(host):\(port)/ (Ctrl-C stops)\n".utf8))
        }
        try await app.runService()
    }
}
