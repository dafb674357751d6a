import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small W3C WebDriver client driving a headless Chromium through chromedriver, for the
/// tutorial's web page test. Started with ``start()``; ``quit()`` ends the browser and the
/// driver.
final class WebDriver: @unchecked Sendable {
    /// Debian's packages (`apt-get install chromium chromium-driver`).
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: chromium) && FileManager.default.isExecutableFile(atPath: chromedriver)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let driver: Process
    private let base: URL
    private var session = ""
    private static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    private init(driver: Process, port: Int) {
        self.driver = driver
        base = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts chromedriver on a free port (it says which on its output) and a headless browser.
    static func start() async throws -> WebDriver {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromedriver)
        process.arguments = ["--port=0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Reads the driver's output until it names its port (or ends).
        let port: Int? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var text = ""
                while true {
                    let data = output.fileHandleForReading.availableData
                    if data.isEmpty { continuation.resume(returning: nil); return }
                    text += String(decoding: data, as: UTF8.self)
                    if let range = text.range(of: "started successfully on port "),
                       let end = text[range.upperBound...].firstIndex(where: { !$0.isNumber }) {
                        continuation.resume(returning: Int(text[range.upperBound..<end]))
                        return
                    }
                }
            }
        }
        guard let port else {
            process.terminate()
            throw Failure(description: "chromedriver did not start")
        }
        let webDriver = WebDriver(driver: process, port: port)
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": ["binary": chromium,
                                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]],
        ]]]
        do {
            let value = try await webDriver.call("POST", "/session", capabilities)
            guard let id = (value as? [String: Any])?["sessionId"] as? String else {
                throw Failure(description: "no session in \(String(describing: value))")
            }
            webDriver.session = id
            // Finding an element waits for it up to 20 s (a page still loading after a click).
            _ = try await webDriver.call("POST", "/session/\(id)/timeouts", ["implicit": 20_000])
        } catch {
            process.terminate()
            throw error
        }
        return webDriver
    }

    /// Ends the browser session and the driver.
    func quit() async {
        if !session.isEmpty { _ = try? await call("DELETE", "/session/\(session)") }
        let driver = self.driver
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                kill(driver.processIdentifier, SIGKILL)
                driver.waitUntilExit()
                continuation.resume()
            }
        }
    }

    func open(_ url: URL) async throws {
        _ = try await call("POST", "/session/\(session)/url", ["url": url.absoluteString])
    }

    func refresh() async throws {
        _ = try await call("POST", "/session/\(session)/refresh", [:])
    }

    /// The element matching the CSS `selector`.
    func element(_ selector: String) async throws -> String {
        let value = try await call("POST", "/session/\(session)/element", ["using": "css selector", "value": selector])
        guard let id = (value as? [String: Any])?[Self.elementKey] as? String else {
            throw Failure(description: "no element \(selector)")
        }
        return id
    }

    /// The texts of the elements matching `selector`, in document order.
    func texts(_ selector: String) async throws -> [String] {
        let value = try await call("POST", "/session/\(session)/elements", ["using": "css selector", "value": selector])
        var texts: [String] = []
        for element in value as? [[String: Any]] ?? [] {
            guard let id = element[Self.elementKey] as? String else { continue }
            texts.append(try await call("GET", "/session/\(session)/element/\(id)/text") as? String ?? "")
        }
        return texts
    }

    func text(_ selector: String) async throws -> String {
        try await call("GET", "/session/\(session)/element/\(try await element(selector))/text") as? String ?? ""
    }

    func type(_ text: String, into selector: String) async throws {
        _ = try await call("POST", "/session/\(session)/element/\(try await element(selector))/value", ["text": text])
    }

    /// Clicks the element; a form button's page load is waited for by the driver.
    func click(_ selector: String) async throws {
        _ = try await call("POST", "/session/\(session)/element/\(try await element(selector))/click", [:])
    }

    /// One WebDriver command; its `value`, or a thrown error with the driver's message.
    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let port = base.port ?? 0
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.http(method, path, body: payload, port: port) })
            }
        }
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let value = json?["value"]
        if let failure = value as? [String: Any], let error = failure["error"] as? String {
            throw Failure(description: "\(method) \(path): \(error): \(failure["message"] as? String ?? "")")
        }
        return value is NSNull ? nil : value
    }

    /// One HTTP/1.1 request to 127.0.0.1:`port` over a socket, returning the response body.
    ///
    /// Not `URLSession`: Foundation's on Linux refuses chromedriver's headers, which have no
    /// space after the colon ("Content-Length:249").
    private static func http(_ method: String, _ path: String, body: Data, port: Int) throws -> Data {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "can't connect to chromedriver on port \(port)") }
        var request = Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n".utf8)
        request += Data("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        request += body
        try request.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let count = send(fd, buffer.baseAddress! + sent, buffer.count - sent, 0)
                guard count > 0 else { throw Failure(description: "send() failed") }
                sent += count
            }
        }
        // Reads the head, then as many bytes as Content-Length says (chromedriver keeps the
        // connection open), or up to the end of the stream without one.
        var response = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        var expected: Int?
        var bodyStart: Int?
        while bodyStart == nil || expected.map({ response.count < bodyStart! + $0 }) ?? true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: chunk[0..<count])
            if bodyStart == nil, let split = response.range(of: Data("\r\n\r\n".utf8)) {
                bodyStart = split.upperBound
                let head = String(decoding: response[..<split.lowerBound], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) {
                    expected = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                }
            }
        }
        guard let bodyStart else { throw Failure(description: "\(method) \(path): no HTTP response") }
        let content = response[bodyStart...]
        return Data(expected.map { content.prefix($0) } ?? content)
        #else
        throw Failure(description: "the WebDriver test runs on Linux")
        #endif
    }
}
