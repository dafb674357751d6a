import Foundation
import Testing
@testable import OpenCoreData

/// Adding, finding and removing stores; the store-type registry; URIs; metadata.
@Suite struct CoordinatorStoreTests {
    @Test func initFreezesTheModel() {
        let model = CompanyModel.make()
        #expect(model.isEditable)
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        #expect(!model.isEditable)
    }

    @Test func addAndRemoveStores() throws {
        let fixture = CompanyFixture()
        let first = try fixture.addStore()
        let second = try fixture.addStore()
        #expect(fixture.coordinator.persistentStores.map(ObjectIdentifier.init) == [first, second].map(ObjectIdentifier.init))
        #expect(first.type == NSInMemoryStoreType)
        #expect(first is InMemoryStore)
        #expect(first.persistentStoreCoordinator === fixture.coordinator)
        #expect(first.configurationName == NSPersistentStore.defaultConfigurationName)
        #expect(first.identifier != second.identifier)
        try fixture.coordinator.remove(first)
        #expect(fixture.coordinator.persistentStores.count == 1)
        #expect(first.persistentStoreCoordinator == nil)
        let error = try #require(throws: NSError.self) { try fixture.coordinator.remove(first) }
        #expect(error.code == NSPersistentStoreOperationError)
    }

    @Test func unknownStoreTypeIs134000() throws {
        let fixture = CompanyFixture()
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.addPersistentStore(ofType: "Nonsense", configurationName: nil, at: nil)
        }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSPersistentStoreInvalidTypeError)
        #expect(error.localizedDescription.contains("Nonsense"))
        #expect(fixture.coordinator.persistentStores.isEmpty)
    }

    @Test func unknownConfigurationThrows() throws {
        let fixture = CompanyFixture()
        let error = try #require(throws: NSError.self) { try fixture.addStore(configuration: "Nowhere") }
        #expect(error.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(error.localizedDescription.contains("Nowhere"))
    }

    @Test func sameURLTwiceThrows() throws {
        let type = "FileBacked-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(CoordinatorStoreFileTests.FileBackedStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        let fixture = CompanyFixture()
        let url = URL(fileURLWithPath: "/tmp/opencoredata-memory-\(UUID().uuidString)")
        let store = try fixture.coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        #expect(fixture.coordinator.persistentStore(for: url) === store)
        #expect(fixture.coordinator.url(for: store) == url)
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        }
        #expect(error.code == NSPersistentStoreOperationError)
        let moved = URL(fileURLWithPath: "/tmp/opencoredata-moved-\(UUID().uuidString)")
        #expect(fixture.coordinator.setURL(moved, for: store))
        #expect(fixture.coordinator.persistentStore(for: moved) === store)
        #expect(fixture.coordinator.persistentStore(for: url) == nil)
    }

    @Test func readOnlyOptionAcceptsBoolAndNumber() throws {
        let fixture = CompanyFixture()
        #expect(try fixture.addStore(options: [NSReadOnlyPersistentStoreOption: true]).isReadOnly)
        #expect(try fixture.addStore(options: [NSReadOnlyPersistentStoreOption: NSNumber(value: true)]).isReadOnly)
        #expect(try !fixture.addStore().isReadOnly)
    }

    @Test func registryRegistersAndUnregisters() throws {
        final class CustomStore: InMemoryStore, @unchecked Sendable {}
        let type = "Custom-\(UUID().uuidString)"
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[NSInMemoryStoreType] != nil)
        NSPersistentStoreCoordinator.registerStoreClass(CustomStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[type] == CustomStore.self)
        let fixture = CompanyFixture()
        let store = try fixture.coordinator.addPersistentStore(ofType: type, configurationName: nil, at: nil)
        #expect(store is CustomStore)
        #expect(store.type == type)
        #expect(store.metadata[NSStoreTypeKey] as? String == type)
        NSPersistentStoreCoordinator.registerStoreClass(nil, type: type)
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[type] == nil)
    }

    @Test func addingAndRemovingPostsStoresDidChange() throws {
        let fixture = CompanyFixture()
        nonisolated(unsafe) var added: [NSPersistentStore] = []
        nonisolated(unsafe) var removed: [NSPersistentStore] = []
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreCoordinatorStoresDidChange, object: fixture.coordinator, queue: nil) { note in
            added += note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore] ?? []
            removed += note.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore] ?? []
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let store = try fixture.addStore()
        try fixture.coordinator.remove(store)
        #expect(added.count == 1 && added[0] === store)
        #expect(removed.count == 1 && removed[0] === store)
    }

    @Test func urisRoundTrip() throws {
        let fixture = CompanyFixture()
        let store = try fixture.addStore()
        let ann = try fixture.insert("Employee", ["name": "Ann", "salary": Int64(1)])
        let uri = ann.objectID.uriRepresentation()
        #expect(uri.absoluteString == "x-coredata://\(store.identifier!)/Employee/p\(ann.objectID.primaryKey!)")
        let back = try #require(fixture.coordinator.managedObjectID(forURIRepresentation: uri))
        #expect(back == ann.objectID)
        #expect(back.persistentStore === store)
        #expect(try fixture.coordinator.snapshots(for: [back])[back]?.values["name"] as? String == "Ann")
    }

    @Test(arguments: [
        "x-coredata:///Employee/t6B2C1D3E-0000-0000-0000-000000000000",
        "x-coredata://00000000-0000-0000-0000-000000000000/Employee/p1",
        "x-coredata://STORE/Nobody/p1",
        "x-coredata://STORE/Employee/q1",
        "https://example.com/Employee/p1",
    ])
    func urisThatNameNothingGiveNil(_ text: String) throws {
        let fixture = CompanyFixture()
        let store = try fixture.addStore()
        let url = URL(string: text.replacingOccurrences(of: "STORE", with: store.identifier))!
        #expect(fixture.coordinator.managedObjectID(forURIRepresentation: url) == nil)
    }

    @Test func metadataHasTypeUUIDHashesAndUserKeys() throws {
        let fixture = CompanyFixture()
        let store = try fixture.addStore(configuration: "Staff")
        let metadata = fixture.coordinator.metadata(for: store)
        #expect(metadata[NSStoreTypeKey] as? String == NSInMemoryStoreType)
        #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
        let hashes = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
        #expect(Set(hashes.keys) == ["Department", "Employee", "Manager"])
        #expect(hashes["Employee"] == fixture.entity("Employee").versionHash)
        #expect(fixture.model.isConfiguration(withName: "Staff", compatibleWithStoreMetadata: metadata))
        #expect(metadata[NSStoreModelVersionIdentifiersKey] is [String])

        fixture.coordinator.setMetadata(["Owner": "me", NSStoreUUIDKey: "forged"], for: store)
        let updated = fixture.coordinator.metadata(for: store)
        #expect(updated["Owner"] as? String == "me")
        #expect(updated[NSStoreUUIDKey] as? String == store.identifier, "type and UUID keep the store's values")
        #expect(updated[NSStoreTypeKey] as? String == NSInMemoryStoreType)
        #expect((store as? AtomicStore)?.currentContents.metadata["Owner"] as? String == "me")
    }

    @Test func metadataForPersistentStoreOfType() throws {
        let url = URL(fileURLWithPath: "/tmp/none-\(UUID().uuidString)")
        let unknown = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: "Nonsense", at: url)
        }
        #expect(unknown.code == NSPersistentStoreInvalidTypeError)
        let memory = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSInMemoryStoreType, at: url)
        }
        #expect(memory.code == NSPersistentStoreInvalidTypeError)
    }

    @Test func lockingAndPerform() throws {
        let fixture = CompanyFixture()
        fixture.coordinator.lock()
        #expect(fixture.coordinator.tryLock(), "the lock is recursive for its owner")
        fixture.coordinator.unlock()
        fixture.coordinator.unlock()
        var ran = false
        fixture.coordinator.performAndWait { ran = true }
        #expect(ran)
        let count = try fixture.coordinator.performAndWait { () throws -> Int in
            try fixture.addStore()
            return fixture.coordinator.persistentStores.count
        }
        #expect(count == 1)
    }
}

/// Replacing and destroying store files.
@Suite struct CoordinatorStoreFileTests {
    /// A file "store" type for the file operations: the in-memory store under another name.
    final class FileBackedStore: InMemoryStore, @unchecked Sendable {}

    @Test func replaceCopiesTheStoreFiles() throws {
        let type = "FileBacked-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(FileBackedStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source.db"), destination = directory.appendingPathComponent("destination.db")
        try Data("new".utf8).write(to: source)
        try Data("new-wal".utf8).write(to: URL(fileURLWithPath: source.path + "-wal"))
        try Data("old".utf8).write(to: destination)
        try Data("old-shm".utf8).write(to: URL(fileURLWithPath: destination.path + "-shm"))
        let fixture = CompanyFixture()
        try fixture.coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, ofType: type)
        #expect(try Data(contentsOf: destination) == Data("new".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination.path + "-wal")) == Data("new-wal".utf8))
        #expect(!FileManager.default.fileExists(atPath: destination.path + "-shm"))
        #expect(FileManager.default.fileExists(atPath: source.path), "the source stays")

        try fixture.coordinator.addPersistentStore(ofType: type, configurationName: nil, at: destination)
        let inUse = try #require(throws: NSError.self) {
            try fixture.coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, ofType: type)
        }
        #expect(inUse.code == NSPersistentStoreOperationError)
        let unknown = try #require(throws: NSError.self) {
            try fixture.coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, ofType: "Nonsense")
        }
        #expect(unknown.code == NSPersistentStoreInvalidTypeError)
    }
}
