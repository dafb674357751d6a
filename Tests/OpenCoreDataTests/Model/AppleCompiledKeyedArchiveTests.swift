import Testing
@testable import OpenCoreData

/// The generic NSKeyedArchiver decoder, on Apple-written `.mom` files and on hand-made archives.
@Suite struct AppleCompiledKeyedArchiveTests {
    static var v2Mom: URL { Fixtures.sampleModel3Momd.appendingPathComponent("SampleModel3_v2.mom") }

    @Test func decodesAnAppleCompiledModel() throws {
        let archive = try KeyedArchive(contentsOf: Self.v2Mom)
        let root = try archive.topNode()
        #expect(root.className == "NSManagedObjectModel")
        #expect(root.classNames == ["NSManagedObjectModel", "NSObject"])
        #expect(root["NSFetchRequestTemplates"] == nil)  // $null reads as absent
        #expect(root["NSVersionIdentifiers"]?.elements?.compactMap(\.string) == ["2"])

        let entities = try #require(root["NSEntities"]?.stringKeyedEntries)
        #expect(entities.map(\.key) == ["Pet", "User"])
        let pet = entities[0].value
        #expect(pet.className == "NSEntityDescription")
        #expect(pet["NSEntityName"]?.string == "Pet")
        #expect(pet["NSSuperentity"] == nil)
        // A cycle: the entity points back at the model by reference.
        #expect(pet["NSManagedObjectModel"]?.index == root.index)

        let properties = try #require(pet["NSProperties"]?.stringKeyedEntries)
        let owner = try #require(properties.first { $0.key == "owner" }?.value)
        #expect(owner.className == "NSRelationshipDescription")
        #expect(owner["NSIsOptional"]?.bool == true)
        #expect(owner["NSMaxCount"]?.integer == 1)
        #expect(owner["NSDeleteRule"]?.integer == 1)
        #expect(owner["NSDestinationEntity"]?["NSEntityName"]?.string == "User")
        // Shared objects keep their identity: the destination is the model's User entity.
        #expect(owner["NSDestinationEntity"]?.index == entities[1].value.index)

        let name = try #require(properties.first { $0.key == "name" }?.value)
        #expect(name["NSAttributeType"]?.integer == 700)
        #expect(name["_P"]?.integer == 241)
        #expect(name["NSIsOptional"] == nil)
    }

    @Test func readsBooleansNumbersAndDefaults() throws {
        let url = Fixtures.sampleModelMomd.appendingPathComponent("SampleModel.mom")
        let root = try KeyedArchive(contentsOf: url).topNode()
        let car = try #require(root["NSEntities"]?.stringKeyedEntries?.first { $0.key == "Car" }?.value)
        let speed = try #require(car["NSProperties"]?.stringKeyedEntries?.first { $0.key == "currentDrivingSpeed" }?.value)
        #expect(speed["NSIsTransient"]?.bool == true)
        #expect(speed["NSDefaultValue"]?.integer == 0)
        #expect(speed["NSAttributeType"]?.integer == 300)
        let tuples = try #require(car["NSUniqueTuples"]?.elements)
        #expect(tuples.map { $0.elements?.compactMap(\.string) ?? [] } == [["numberPlate"]])
    }

    @Test func decodesAnXMLArchiveWithCFUIDDictionaries() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
          <key>$archiver</key><string>NSKeyedArchiver</string>
          <key>$version</key><integer>100000</integer>
          <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
          <key>$objects</key><array>
            <string>$null</string>
            <dict>
              <key>$class</key><dict><key>CF$UID</key><integer>3</integer></dict>
              <key>NS.objects</key><array><dict><key>CF$UID</key><integer>2</integer></dict></array>
            </dict>
            <string>hello</string>
            <dict><key>$classname</key><string>SomeUnknownClass</string>
              <key>$classes</key><array><string>SomeUnknownClass</string><string>NSObject</string></array></dict>
          </array>
        </dict></plist>
        """
        let root = try KeyedArchive(data: Data(xml.utf8)).topNode()
        #expect(root.className == "SomeUnknownClass")
        #expect(root.elements?.compactMap(\.string) == ["hello"])
    }

    @Test func malformedInputNamesTheFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = directory.appendingPathComponent("broken.mom")
        try Data("this is not a plist".utf8).write(to: garbage)
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedArchive(contentsOf: garbage) }
        #expect(error.file == garbage)
        #expect(error.description.contains("broken.mom"))

        let plainPlist = directory.appendingPathComponent("plain.mom")
        try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0).write(to: plainPlist)
        let notArchive = try #require(throws: KeyedArchiveError.self) { try KeyedArchive(contentsOf: plainPlist) }
        guard case .notAKeyedArchive = notArchive.reason else {
            Issue.record("expected notAKeyedArchive, got \(notArchive.reason)")
            return
        }

        let missing = directory.appendingPathComponent("missing.mom")
        let unreadable = try #require(throws: KeyedArchiveError.self) { try KeyedArchive(contentsOf: missing) }
        #expect(unreadable.description.contains("missing.mom"))
    }

    @Test func outOfRangeReferencesAreRejected() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
          <key>$archiver</key><string>NSKeyedArchiver</string>
          <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>7</integer></dict></dict>
          <key>$objects</key><array><string>$null</string></array>
        </dict></plist>
        """
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedArchive(data: Data(xml.utf8)) }
        #expect(error.reason == .badReference(7, count: 1))
    }
}
