import Foundation
import Testing
@testable import OpenCoreData

/// The XML store against hand-written files in Apple's form (DESIGN decision 6), its errors,
/// read-only stores and two coordinators on one file.
@Suite struct XMLStoreTests {
    /// A file as Apple's Core Data writes it, for the company model (`CompanyModel`).
    static let appleSample = """
    <?xml version="1.0" standalone="yes"?>
    <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

    <database>
        <databaseInfo>
            <version>134481920</version>
            <UUID>343C8D7F-A000-42C4-8463-43FA1E5EF3FB</UUID>
            <nextObjectID>105</nextObjectID>
            <metadata>
                <plist version="1.0">
                    <dict>
                        <key>NSStoreType</key>
                        <string>XML</string>
                        <key>Owner</key>
                        <string>sample</string>
                    </dict>
                </plist>
            </metadata>
        </databaseInfo>
        <object type="EMPLOYEE" id="z102">
            <attribute name="name" type="string">Ann &amp; Co</attribute>
            <attribute name="salary" type="int64">100</attribute>
            <attribute name="hired" type="date">445103622.25000000000000000000</attribute>
            <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104"></relationship>
        </object>
        <object type="MANAGER" id="z103">
            <attribute name="name" type="string">Bob</attribute>
            <attribute name="salary" type="int64">200</attribute>
            <attribute name="level" type="int16">2</attribute>
            <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104"></relationship>
        </object>
        <object type="DEPARTMENT" id="z104">
            <attribute name="name" type="string">Sales</attribute>
            <attribute name="budget" type="double">1000.5</attribute>
            <relationship name="employees" type="0/0" destination="EMPLOYEE" idrefs="z103 z102"></relationship>
        </object>
        <object type="PROJECT" id="z105">
            <attribute name="title" type="string">Launch</attribute>
            <relationship name="lead" type="1/1" destination="EMPLOYEE"></relationship>
        </object>
    </database>
    """

    /// What this store writes for the sample after raising the budget: Apple's header, the
    /// database info in Apple's order, objects in id order, attributes then relationships by
    /// name, lowercased names, uppercased entities, no `idrefs` on an empty relationship.
    static let expectedObjects = """
        <object type="EMPLOYEE" id="z102">
            <attribute name="hired" type="date">445103622.25000000000000000000</attribute>
            <attribute name="name" type="string">Ann &amp; Co</attribute>
            <attribute name="salary" type="int64">100</attribute>
            <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104"></relationship>
        </object>
        <object type="MANAGER" id="z103">
            <attribute name="level" type="int16">2</attribute>
            <attribute name="name" type="string">Bob</attribute>
            <attribute name="salary" type="int64">200</attribute>
            <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104"></relationship>
        </object>
        <object type="DEPARTMENT" id="z104">
            <attribute name="budget" type="double">2000.25</attribute>
            <attribute name="name" type="string">Sales</attribute>
            <relationship name="employees" type="0/0" destination="EMPLOYEE" idrefs="z103 z102"></relationship>
        </object>
        <object type="PROJECT" id="z105">
            <attribute name="title" type="string">Launch</attribute>
            <relationship name="lead" type="1/1" destination="EMPLOYEE"></relationship>
        </object>
    </database>

    """

    /// A temporary directory holding `text` as `Store.xml`.
    private func file(_ text: String) throws -> (directory: URL, url: URL) {
        let directory = try Fixtures.temporaryDirectory()
        let url = directory.appendingPathComponent("Store.xml")
        try Data(text.utf8).write(to: url)
        return (directory, url)
    }

    private func fetch(_ coordinator: NSPersistentStoreCoordinator, _ entity: String, _ format: String? = nil) throws -> [ObjectSnapshot] {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        guard case .snapshots(let rows) = try coordinator.executeFetch(request) else { return [] }
        return rows
    }

    @Test func readsAppleFormatWithCaseInsensitiveNames() throws {
        let (directory, url) = try file(Self.appleSample)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let store = try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)
        #expect(store.identifier == "343C8D7F-A000-42C4-8463-43FA1E5EF3FB")
        #expect(coordinator.metadata(for: store)["Owner"] as? String == "sample")
        let employees = try fetch(coordinator, "Employee")
        #expect(employees.map { $0.values["name"] as? String } == ["Ann & Co", "Bob"])
        #expect(employees[0].values["hired"] as? Date == Date(timeIntervalSinceReferenceDate: 445103622.25))
        #expect(employees[1].objectID.entity.name == "Manager")
        #expect(employees[1].values["level"] as? Int16 == 2)
        #expect(employees[0].objectID.uriRepresentation().absoluteString == "x-coredata://343C8D7F-A000-42C4-8463-43FA1E5EF3FB/Employee/p102")
        #expect(try fetch(coordinator, "Employee", "department.name == 'Sales' AND department.budget > 1000").count == 2)
        let sales = try #require(try fetch(coordinator, "Department").first)
        #expect(sales.toMany["employees"]?.map(\.primaryKey) == [103, 102])
        let project = try #require(try fetch(coordinator, "Project").first)
        #expect(project.values["lead"] == nil)
        let next = try store.newObjectIDs(for: CompanyModel.make().entitiesByName["Project"]!, count: 1)
        #expect(next.first?.primaryKey == 106, "new ids follow nextObjectID, unique in the whole file")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSXMLStoreType, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == "343C8D7F-A000-42C4-8463-43FA1E5EF3FB")
        #expect(metadata[NSStoreTypeKey] as? String == NSXMLStoreType)
    }

    @Test func writesApplesStructureAndElementOrder() throws {
        let (directory, url) = try file(Self.appleSample)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)
        var sales = try #require(try fetch(coordinator, "Department").first)
        sales.values["budget"] = 2000.25
        try coordinator.save(StoreSaveChanges(updated: [sales]))

        let written = try String(contentsOf: url, encoding: .utf8)
        #expect(written.hasPrefix("""
        <?xml version="1.0"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

        <database>
            <databaseInfo>
                <version>134481920</version>
                <UUID>343C8D7F-A000-42C4-8463-43FA1E5EF3FB</UUID>
                <nextObjectID>105</nextObjectID>
                <metadata><plist version="1.0">
        """))
        #expect(written.hasSuffix("    </databaseInfo>\n" + Self.expectedObjects), "objects:\n\(written)")
        let root = try XMLStoreDocument.parse(Data(written.utf8))
        let info = try #require(root.child("databaseInfo"))
        #expect(info.children.map(\.name) == ["version", "UUID", "nextObjectID", "metadata"])
        let plist = try #require(info.child("metadata")?.children.first)
        #expect(plist.name == "plist" && plist[attribute: "version"] == "1.0")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSXMLStoreType, at: url)
        #expect(metadata["Owner"] as? String == "sample", "the user's metadata is kept")
        #expect(metadata[NSStoreModelVersionHashesKey] == nil || metadata[NSStoreModelVersionHashesKey] is [String: Any])
    }

    @Test func newStoreWritesModelHashesAndIDsFromOneCounter() throws {
        let fixture = CompanyFixture(storeType: NSXMLStoreType)
        let store = try fixture.addStore()
        try fixture.insertStandardData()
        let url = try #require(store.url)
        let root = try XMLStoreDocument.parse(Data(contentsOf: url))
        let ids = root.children.filter { $0.name == "object" }.compactMap { $0[attribute: "id"] }
        #expect(ids.count == 8)
        #expect(Set(ids).count == 8, "ids are unique across entities")
        #expect(ids.first == "z102", "the first object is z102, as Apple numbers them")
        #expect(root.child("databaseInfo")?.child("nextObjectID")?.text == "109")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSXMLStoreType, at: url)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.keys.sorted() == ["Department", "Employee", "Manager", "Project"])
        #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
    }

    /// Bad files: each throws Core Data's error naming the file, when added and when asked for
    /// metadata, and never traps.
    @Test(arguments: [
        ("truncated", String(appleSample.prefix(appleSample.count / 2)), NSFileReadCorruptFileError),
        ("unclosed tags", "<?xml version=\"1.0\"?>\n<database><databaseInfo><version>134481920</version>", NSFileReadCorruptFileError),
        ("bad value", appleSample.replacingOccurrences(of: ">100<", with: ">one hundred<"), NSFileReadCorruptFileError),
        ("unknown entity", appleSample.replacingOccurrences(of: "\"PROJECT\"", with: "\"PLANET\""), NSFileReadCorruptFileError),
        ("dangling idref", appleSample.replacingOccurrences(of: "idrefs=\"z103 z102\"", with: "idrefs=\"z103 z999\""), NSFileReadCorruptFileError),
        ("bad id", appleSample.replacingOccurrences(of: "id=\"z105\"", with: "id=\"105\""), NSFileReadCorruptFileError),
        ("bad metadata", appleSample.replacingOccurrences(of: "<string>sample</string>", with: "<strin>sample</string>"), NSFileReadCorruptFileError),
        ("newer version", appleSample.replacingOccurrences(of: "134481920", with: "134481921"), NSPersistentStoreInvalidTypeError),
        ("SQLite file", "SQLite format 3\0\u{1}\u{2}", NSPersistentStoreInvalidTypeError),
        ("property list", "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>", NSPersistentStoreInvalidTypeError),
        ("other store type", appleSample.replacingOccurrences(of: "<string>XML</string>", with: "<string>Binary</string>"), NSPersistentStoreInvalidTypeError),
        ("text", "hello, world", NSPersistentStoreInvalidTypeError),
        ("empty", "", NSFileReadCorruptFileError),
    ])
    func badFilesThrowCoreDataErrors(_ name: String, _ text: String, _ code: Int) throws {
        let (directory, url) = try file(text)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let error = try #require(throws: NSError.self, "\(name)") {
            try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)
        }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == code, "\(name): \(error)")
        #expect(error.localizedDescription.contains(url.path) || (error.userInfo[NSURLErrorKey] as? URL) == url, "\(name) names the file")
        #expect(coordinator.persistentStores.isEmpty)
        if code == NSFileReadCorruptFileError {
            #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
        }
    }

    @Test func storeOfAnotherModelVersionIsIncompatibleNotCorrupt() throws {
        let fixture = CompanyFixture(storeType: NSXMLStoreType)
        let store = try fixture.addStore()
        try fixture.insertStandardData()
        try fixture.insert("Employee", ["name": "Zed", "hired": Date(timeIntervalSinceReferenceDate: 5)])
        let changed = CompanyModel.make()
        changed.entitiesByName["Employee"]!.properties.removeAll { $0.name == "hired" }
        let date = NSAttributeDescription()
        date.name = "started"
        date.attributeType = .dateAttributeType
        changed.entitiesByName["Employee"]!.properties.append(date)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: changed)
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: store.url)
        }
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
    }

    @Test func readOnlyStoreRefusesToSave() throws {
        let (directory, url) = try file(Self.appleSample)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let store = try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url,
                                                       options: [NSReadOnlyPersistentStoreOption: true])
        #expect(store.isReadOnly)
        var sales = try #require(try fetch(coordinator, "Department").first)
        sales.values["budget"] = 1.0
        let error = try #require(throws: NSError.self) { try coordinator.save(StoreSaveChanges(updated: [sales])) }
        #expect(error.code == NSPersistentStoreSaveError)
        #expect(try String(contentsOf: url, encoding: .utf8) == Self.appleSample, "the file is untouched")
    }

    @Test func secondCoordinatorsSaveFailsWithMergeError() throws {
        let (directory, url) = try file(Self.appleSample)
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = CompanyModel.make()
        let first = NSPersistentStoreCoordinator(managedObjectModel: model)
        let second = NSPersistentStoreCoordinator(managedObjectModel: model)
        try first.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)
        try second.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)

        var fromFirst = try #require(try fetch(first, "Department").first)
        fromFirst.values["name"] = "First"
        try first.save(StoreSaveChanges(updated: [fromFirst]))
        var fromSecond = try #require(try fetch(second, "Department").first)
        fromSecond.values["name"] = "Second"
        let error = try #require(throws: NSError.self) { try second.save(StoreSaveChanges(updated: [fromSecond])) }
        #expect(error.code == NSManagedObjectMergeError)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)

        let reader = NSPersistentStoreCoordinator(managedObjectModel: model)
        try reader.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)
        #expect(try fetch(reader, "Department").map { $0.values["name"] as? String } == ["First"], "the first save is kept")
        var again = try #require(try fetch(first, "Department").first)
        again.values["name"] = "First again"
        try first.save(StoreSaveChanges(updated: [again]))
    }

    @Test func transformablesUseTheirNamedTransformer() throws {
        final class Reversing: ValueTransformer, @unchecked Sendable {
            override func transformedValue(_ value: Any?) -> Any? { (value as? String).map { Data(String($0.reversed()).utf8) } }
            override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).map { String(String(decoding: $0, as: UTF8.self).reversed()) } }
        }
        let name = "XMLStoreTestsReversing"
        ValueTransformer.setValueTransformer(Reversing(), forName: NSValueTransformerName(rawValue: name))
        defer { ValueTransformer.setValueTransformer(nil, forName: NSValueTransformerName(rawValue: name)) }
        let attribute = NSAttributeDescription()
        attribute.name = "secret"
        attribute.attributeType = .transformableAttributeType
        attribute.valueTransformerName = name
        let text = try XMLStoreValueCoding.text(of: "abc", for: attribute)
        #expect(Data(base64Encoded: text) == Data("cba".utf8))
        #expect(try XMLStoreValueCoding.value(of: text, for: attribute, resolveID: { _ in nil }) as? String == "abc")
        attribute.valueTransformerName = nil
        let plain = try XMLStoreValueCoding.text(of: ["k": 1], for: attribute)
        #expect((try XMLStoreValueCoding.value(of: plain, for: attribute, resolveID: { _ in nil }) as? [String: Any])?["k"] as? Int == 1,
                "the default transformer writes a property list")
        attribute.valueTransformerName = "NSSecureUnarchiveFromData"
        let secure = try XMLStoreValueCoding.text(of: ["a", "b"], for: attribute)
        #expect((try XMLStoreValueCoding.value(of: secure, for: attribute, resolveID: { _ in nil }) as? [Any])?.count == 2,
                "Apple's built-in transformer names use the default encoding")
    }
}

/// The XML store under a managed object context: objects saved in one process-like session
/// are there, with their relationships, after reopening the file with a new coordinator.
@Suite struct XMLStoreContextTests {
    @Test func contextSavesPersistAcrossCoordinators() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Company.xml")
        let model = CompanyModel.make()
        func context() throws -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try context.persistentStoreCoordinator?.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)
            return context
        }
        let writer = try context()
        let sales = NSEntityDescription.insertNewObject(forEntityName: "Department", into: writer)
        sales.setValue("Sales", forKey: "name")
        for (name, salary) in [("Ann", Int64(100)), ("Bob", Int64(200))] {
            let employee = NSEntityDescription.insertNewObject(forEntityName: name == "Bob" ? "Manager" : "Employee", into: writer)
            employee.setValue(name, forKey: "name")
            employee.setValue(salary, forKey: "salary")
            employee.setValue(Date(timeIntervalSinceReferenceDate: 1.000000125), forKey: "hired")
            employee.setValue(sales, forKey: "department")
        }
        try writer.save()
        let writerIDs = Set(try writer.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).map { $0.objectID.uriRepresentation() })

        let reader = try context()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let employees = try reader.fetch(request)
        #expect(employees.map { $0.value(forKey: "name") as? String } == ["Ann", "Bob"])
        #expect(Set(employees.map { $0.objectID.uriRepresentation() }) == writerIDs, "IDs survive reopening")
        #expect(employees.map { ($0.value(forKey: "department") as? NSManagedObject)?.value(forKey: "name") as? String } == ["Sales", "Sales"])
        #expect(employees[1].entity.name == "Manager")
        #expect(employees[0].value(forKey: "hired") as? Date == Date(timeIntervalSinceReferenceDate: 1.000000125))
        let department = try #require(employees[0].value(forKey: "department") as? NSManagedObject)
        #expect((department.value(forKey: "employees") as? Set<NSManagedObject>)?.count == 2)
    }
}
