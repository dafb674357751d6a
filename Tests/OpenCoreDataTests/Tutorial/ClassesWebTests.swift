@testable import CoreDataTutorial
import Foundation
import Testing
@testable import OpenCoreData

/// The seed's classes-and-students window as a web page: the controllers behind it, and the
/// page driven in a real headless browser.
@Suite("Tutorial: the classes web page") struct ClassesWebTests {
    @Test func theWindowsActionsKeepTheSeedsRules() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Classes.sqlite")
        let window = try ClassesWindow(storeURL: url, storeType: .sqlite)
        try await window.apply(.addClass(name: "二班"))
        try await window.apply(.addClass(name: ""))
        var state = await window.state()
        #expect(state.classes == ["XX班", "二班"], "a class named as it is added is sorted")
        #expect(state.selectedClass == 0, "the new class is selected")
        let second = state.classIDs[1]
        try await window.apply(.selectClass(second))
        try await window.apply(.addStudent(name: "Wei", toClass: second))
        try await window.apply(.addStudent(name: "Ann", toClass: second))
        state = await window.state()
        try await window.apply(.makeMonitor(state.studentIDs[1]))
        state = await window.state()
        #expect(state.students == ["Ann", "Wei"] && state.monitor == "Wei")

        // Removing the monitor's student clears the monitor (the seed's rule).
        let wei = state.studentIDs[1]
        try await window.apply(.removeStudent(wei))
        state = await window.state()
        #expect(state.students == ["Ann"] && state.monitor == nil)
        // An object that is gone does nothing (a page that is out of date).
        try await window.apply(.removeStudent(wei))
        try await window.apply(.makeMonitor(wei))
        #expect(await window.state().students == ["Ann"])
        try await window.apply(.selectClass(state.classIDs[0]))
        #expect(await window.state().students == [])

        // Everything was saved: a second window over the same store shows it.
        let reopened = try ClassesWindow(storeURL: url, storeType: .sqlite)
        try await reopened.apply(.selectClass(second))
        let again = await reopened.state()
        #expect(again.classes == ["XX班", "二班"] && again.students == ["Ann"] && again.monitor == nil)

        try await reopened.apply(.removeClass(second))
        #expect(await reopened.state().classes == ["XX班"])
    }

    @Test func thePageEscapesNames() {
        let html = ClassesPage.html(.init(version: 0, classes: ["<b>&\"'"], classIDs: [URL(string: "x-coredata://A/B/p1")!], selectedClass: 0,
                                          students: [], monitor: nil))
        #expect(html.contains("&lt;b&gt;&amp;&quot;&#39;"))
        #expect(!html.contains("<b>&"))
    }

    @Test(.enabled(if: WebDriver.isInstalled, "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"))
    func aHeadlessBrowserAddsClassesStudentsAndAMonitor() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Classes.sqlite")

        let browser = try await WebDriver.start()
        do {
            try await withServer(storeURL: url) { page in
                try await browser.open(page)
                // Each action's page says how many actions the window has applied: waiting for
                // it waits for the page of the action.
                var version = 0
                func act(_ selector: String) async throws {
                    try await browser.click(selector)
                    version += 1
                    _ = try await browser.element("body[data-version='\(version)']")
                }
                try await browser.type("一班", into: "#class-name")
                try await act("#add-class-button")
                #expect(try await browser.texts("#classes button") == ["一班"])
                #expect(try await browser.text("#selected-class") == "一班")

                for name in ["Wei", "Ann", "Bo"] {
                    try await browser.type(name, into: "#student-name")
                    try await act("#add-student-button")
                }
                #expect(try await browser.texts(".student-name") == ["Ann", "Bo", "Wei"])
                try await act("#monitor-2")
                #expect(try await browser.text("#monitor") == "Wei")

                // Removing the monitor's student clears the monitor.
                try await act("#remove-student-2")
                #expect(try await browser.texts(".student-name") == ["Ann", "Bo"])
                #expect(try await browser.text("#monitor") == "none")

                try await browser.refresh()
                _ = try await browser.element("body[data-version='\(version)']")
                #expect(try await browser.texts(".student-name") == ["Ann", "Bo"])
                #expect(try await browser.text("#monitor") == "none")
                try await act("#monitor-0")
            }
            // A new server over the same store shows what was saved.
            try await withServer(storeURL: url) { page in
                try await browser.open(page)
                #expect(try await browser.texts("#classes button") == ["一班"])
                #expect(try await browser.texts(".student-name") == ["Ann", "Bo"])
                #expect(try await browser.text("#monitor") == "Ann")
            }
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// Runs the web server over `storeURL` on a free port while `body` runs with its address.
    private func withServer(storeURL: URL, _ body: (URL) async throws -> Void) async throws {
        let window = try ClassesWindow(storeURL: storeURL, storeType: .sqlite)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = ClassesWebServer(window: window).application(port: 0, logLevel: .critical) { port in continuation.yield(port) }
        let server = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw WebDriver.Failure(description: "the server did not start") }
        do {
            try await body(URL(string: "http://127.0.0.1:\(port)/")!)
        } catch {
            server.cancel()
            _ = try? await server.value
            throw error
        }
        server.cancel()
        _ = try? await server.value
    }
}
