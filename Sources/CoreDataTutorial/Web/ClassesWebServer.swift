import Foundation
import Hummingbird
import Logging

/// The classes-and-students window served as a web page (`coredata-tutorial web`): GET `/`
/// shows the page; each form posts one ``ClassesWindow/Action`` (objects named by their IDs'
/// URIs) and is answered with a redirect to `/` (303), so that reloading the page never
/// repeats an action; a form the page does not send is answered 400.
public struct ClassesWebServer: Sendable {
    let window: ClassesWindow

    public init(window: ClassesWindow) {
        self.window = window
    }

    /// The server's application on `host`:`port` (port 0 picks a free port), logging at
    /// `logLevel`; `onServerRunning` hears the port it listens on.
    public func application(host: String = "127.0.0.1", port: Int, logLevel: Logger.Level = .warning,
                            onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router()
        let window = self.window
        router.get("/") { _, _ -> Response in
            Self.html(ClassesPage.html(await window.state()))
        }
        let actions: [(String, @Sendable (Form) -> ClassesWindow.Action?)] = [
            ("/classes/select", { form in form.objectURL.map(ClassesWindow.Action.selectClass) }),
            ("/classes/add", { form in .addClass(name: form.name ?? "") }),
            ("/classes/remove", { form in form.objectURL.map(ClassesWindow.Action.removeClass) }),
            ("/students/add", { form in form.objectURL.map { .addStudent(name: form.name ?? "", toClass: $0) } }),
            ("/students/remove", { form in form.objectURL.map(ClassesWindow.Action.removeStudent) }),
            ("/monitor", { form in form.objectURL.map(ClassesWindow.Action.makeMonitor) }),
        ]
        for (path, action) in actions {
            router.post(RouterPath(path)) { request, context -> Response in
                let body = try await request.body.collect(upTo: 64 * 1024)
                guard let form = try? URLEncodedFormDecoder().decode(Form.self, from: String(buffer: body)),
                      let action = action(form) else {
                    return Response(status: .badRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                                    body: .init(byteBuffer: ByteBuffer(string: "\(path): the form is not one this page sends\n")))
                }
                do {
                    try await window.apply(action)
                } catch {
                    context.logger.error("\(path): \(error)")
                    return Response(status: .unprocessableContent, headers: [.contentType: "text/plain; charset=utf-8"],
                                    body: .init(byteBuffer: ByteBuffer(string: "The change was not saved: \(error)\n")))
                }
                return .redirect(to: "/", type: .normal)
            }
        }
        var logger = Logger(label: "coredata-tutorial.web")
        logger.logLevel = logLevel
        return Application(router: router, configuration: .init(address: .hostname(host, port: port)),
                           onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
                           logger: logger)
    }

    /// A form's fields (every form has at most a name and an object, an object ID's URI).
    struct Form: Decodable, Sendable {
        var name: String?
        var object: String?

        var objectURL: URL? { object.flatMap { URL(string: $0) } }
    }

    static func html(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
