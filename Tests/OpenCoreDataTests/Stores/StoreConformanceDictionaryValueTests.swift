import Foundation
import Testing
@testable import OpenCoreData

extension StoreConformanceTests {
    /// A dictionary result holds the values the objects hold, for every attribute type a
    /// dictionary fetch can select (all but object-ID attributes), in every store (SQLite reads them through its one value
    /// table, ``SQLiteValueCoding``), with the same Swift types: decimals kept as REAL (1.1) or
    /// as text (more digits than REAL holds), the integer widths, Float, dates, UUIDs and URLs.
    @Test(arguments: StoreTypesUnderTest.all.filter { $0 != PlistTestStore.storeType })
    func dictionaryResultsHoldTheObjectsValues(storeType: String) throws {
        let model = AllTypesModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = StoreTypesUnderTest.location(storeType, directory.appendingPathComponent("Dictionary.\(storeType.lowercased())"))
        let store = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let sample = model.entitiesByName["Sample"]!
        let ids = try coordinator.permanentObjectIDs(for: [(sample, store), (sample, store)])
        let precise = AllTypesModel.values
        var approximate = precise
        approximate["decimal"] = Decimal(string: "1.1")!
        approximate["int16"] = Int16(7)
        try coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: ids[0], values: precise),
                                                         ObjectSnapshot(objectID: ids[1], values: approximate)]))
        let names = AllTypesModel.attributeTypes.map(\.0).filter { $0 != "reference" }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Sample")
        request.entity = sample
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = names
        request.sortDescriptors = [NSSortDescriptor(key: "int16", ascending: true)]
        guard case .dictionaries(let rows) = try coordinator.executeFetch(request) else { Issue.record("no dictionaries"); return }
        #expect(rows.count == 2)
        for (row, written) in zip(rows, [precise, approximate]) {
            for name in names {
                #expect(ValueComparison.isEqual(row[name], written[name], options: []), "\(storeType) \(name): \(row[name] ?? "nil")")
                if name != "transformable" {
                    #expect(type(of: row[name]!) == type(of: written[name]!), "\(storeType) \(name) type")
                }
            }
        }
        #expect(rows.last?["decimal"] as? Decimal == Decimal(string: "1.1")!)
        #expect((rows.first?["transformable"] as? [Any])?.compactMap { $0 as? String } == ["one", "two"],
                "\(storeType): transformable values come back through their encoding")
        if storeType == NSSQLiteStoreType {
            // Selected, never compared: grouping or sorting by a transformable is refused by name.
            request.propertiesToFetch = ["transformable"]
            request.returnsDistinctResults = true
            let distinct = try #require(throws: (any Error).self) { try coordinator.executeFetch(request) }
            #expect("\(distinct)".contains("'transformable'"), "\(distinct)")
            request.returnsDistinctResults = false
            request.sortDescriptors = [NSSortDescriptor(key: "transformable", ascending: true)]
            let sorted = try #require(throws: (any Error).self) { try coordinator.executeFetch(request) }
            #expect("\(sorted)".contains("transformable"), "\(sorted)")
        }
    }
}
