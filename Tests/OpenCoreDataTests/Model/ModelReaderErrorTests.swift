import Testing
@testable import OpenCoreData

/// Malformed model files fail with errors that name the file and the element.
@Suite struct ModelReaderErrorTests {
    private func load(_ xml: String) throws -> NSManagedObjectModel {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        return try NSManagedObjectModel.load(contentsOf: try ModelSamples.writeVersion(xml, named: "Broken", in: directory))
    }

    private func error(_ xml: String) -> ManagedObjectModelError? {
        do {
            _ = try load(xml)
            return nil
        } catch {
            return error as? ManagedObjectModelError
        }
    }

    private func model(_ entities: String) -> String {
        "<?xml version=\"1.0\"?><model>\(entities)</model>"
    }

    @Test func notXML() throws {
        let failure = try #require(error("this is not XML <"))
        #expect(failure.kind == .malformedXML)
        #expect(failure.file?.lastPathComponent == "contents")
        #expect(failure.description.contains("Broken.xcdatamodel/contents"))
        #expect(failure.message.contains("not well-formed XML") && failure.message.contains("line 1"))
        let truncated = try #require(error("<?xml version=\"1.0\"?>\n<model>\n<entity name=\"A\">"))
        #expect(truncated.kind == .malformedXML)
    }

    @Test func wrongRootElement() throws {
        let failure = try #require(error("<?xml version=\"1.0\"?><plist/>"))
        #expect(failure.kind == .malformedXML && failure.element == "plist")
    }

    @Test func missingDestinationEntity() throws {
        let failure = try #require(error(model("""
            <entity name="Car"><relationship name="owner" maxCount="1" destinationEntity="Person"/></entity>
            """)))
        #expect(failure.kind == .missingReference)
        #expect(failure.element == "relationship 'owner' of entity 'Car'")
        #expect(failure.message.contains("'Person'"))
        #expect(failure.file?.lastPathComponent == "contents")
    }

    @Test func missingInverse() throws {
        let failure = try #require(error(model("""
            <entity name="Car"><relationship name="owner" maxCount="1" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/></entity>
            <entity name="Person"><attribute name="name" attributeType="String"/></entity>
            """)))
        #expect(failure.kind == .missingReference)
        #expect(failure.element == "relationship 'owner' of entity 'Car'")
        #expect(failure.message.contains("'cars'"))
    }

    @Test func missingParentConfigurationMemberAndTemplateEntity() throws {
        #expect(error(model(#"<entity name="A" parentEntity="Nope"/>"#))?.element == "entity 'A'")
        #expect(error(model(#"<entity name="A"/><configuration name="C"><memberEntity name="B"/></configuration>"#))?.element
                == "configuration 'C'")
        #expect(error(model(#"<entity name="A"/><fetchRequest name="F" entity="B"/>"#))?.element == "fetch request 'F'")
        #expect(error(model(#"<entity name="A"><fetchedProperty name="f"><fetchRequest name="x" entity="B"/></fetchedProperty></entity>"#))?
                .element == "fetched property 'f' of entity 'A'")
    }

    @Test func badValues() throws {
        let type = try #require(error(model(#"<entity name="A"><attribute name="x" attributeType="Integer 128"/></entity>"#)))
        #expect(type.kind == .invalidValue && type.element == "attribute 'x' of entity 'A'")
        let predicate = try #require(error(model(#"<entity name="A"/><fetchRequest name="F" entity="A" predicateString="x =="/>"#)))
        #expect(predicate.kind == .invalidValue && predicate.element == "fetch request 'F'")
        let rule = try #require(error(model(#"<entity name="A"><relationship name="r" destinationEntity="A" deletionRule="Explode"/></entity>"#)))
        #expect(rule.kind == .invalidValue)
    }

    /// A fetch request template whose predicate is a chain too long to walk safely is refused
    /// like any malformed predicate (and one within the limit prints back), never a crash.
    @Test func deepFetchRequestTemplatesAreRefused() throws {
        let chain = Array(repeating: "1", count: 20_000).joined(separator: " + ")
        let deep = try #require(error(model(#"<entity name="A"/><fetchRequest name="F" entity="A" predicateString="x == \#(chain)"/>"#)))
        #expect(deep.kind == .invalidValue && deep.element == "fetch request 'F'")
        #expect(deep.message.contains("levels deep"))
    }

    @Test func overridingAnInheritedPropertyIsRefused() throws {
        let failure = try #require(error(model("""
            <entity name="Car"><attribute name="model" attributeType="String"/></entity>
            <entity name="SportCar" parentEntity="Car"><attribute name="model" attributeType="String"/></entity>
            """)))
        #expect(failure.kind == .propertyOverride)
        #expect(failure.message.contains("'SportCar'") && failure.message.contains("'Car'"))
    }

    @Test func badCurrentVersion() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let package = directory.appendingPathComponent("M.xcdatamodeld")
        _ = try ModelSamples.writeVersion(model(#"<entity name="A"/>"#), named: "M", in: package)
        _ = try ModelSamples.writeVersion(model(#"<entity name="B"/>"#), named: "M2", in: package)
        let marker = package.appendingPathComponent(".xccurrentversion")

        #expect { try NSManagedObjectModel.load(contentsOf: package) } throws: {
            ($0 as? ManagedObjectModelError)?.kind == .badCurrentVersion
        }
        try Data("not a plist".utf8).write(to: marker)
        #expect { try NSManagedObjectModel.load(contentsOf: package) } throws: {
            ($0 as? ManagedObjectModelError)?.kind == .badCurrentVersion && ($0 as? ManagedObjectModelError)?.file == marker
        }
        let plist = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "M3.xcdatamodel"], format: .xml, options: 0)
        try plist.write(to: marker)
        #expect { try NSManagedObjectModel.load(contentsOf: package) } throws: {
            ($0 as? ManagedObjectModelError)?.message.contains("'M3.xcdatamodel'") == true
        }
        #expect(NSManagedObjectModel(contentsOf: package) == nil)
        let good = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "M2.xcdatamodel"], format: .xml, options: 0)
        try good.write(to: marker)
        #expect(try NSManagedObjectModel.load(contentsOf: package).entities.map(\.name) == ["B"])
    }

    @Test func missingAndUnsupportedPaths() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect { try NSManagedObjectModel.load(contentsOf: directory.appendingPathComponent("none.xcdatamodeld")) } throws: {
            ($0 as? ManagedObjectModelError)?.kind == .unreadableFile
        }
        #expect { try NSManagedObjectModel.load(contentsOf: directory) } throws: {
            ($0 as? ManagedObjectModelError)?.kind == .unsupportedFormat
        }
    }
}
