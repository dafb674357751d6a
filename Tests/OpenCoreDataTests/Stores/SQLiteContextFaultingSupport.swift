import Foundation
import Testing
@testable import OpenCoreData

/// A SQLite store with the company model's standard data, contexts on its coordinator, and a
/// count of the statements the store runs (through its SQL debug log's observers).
final class SQLiteStatementFixture {
    let company = CompanyFixture(storeType: NSSQLiteStoreType)
    let store: SQLiteStore
    let counter = SQLStatementCounter()

    /// The options the store was added with (besides the debug log's level).
    let storeOptions: [AnyHashable: Any]

    init(standardData: Bool = true, options: [AnyHashable: Any] = [:]) throws {
        storeOptions = options
        let added = try company.addStore(options: options.merging([SQLDebugLog.levelOption: 0]) { $1 })
        guard let store = added as? SQLiteStore else { throw CocoaError(.featureUnsupported) }
        self.store = store
        if standardData { try company.insertStandardData() }
        forgetCachedRows()
        store.sqlLog.addObserver { [counter] in counter.add($0) }
    }

    var coordinator: NSPersistentStoreCoordinator { company.coordinator }

    /// Empties the store's row cache, as after reopening the file (saves fill it).
    func forgetCachedRows() { store.rowCache.removeAll() }

    func context() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = company.coordinator
        return context
    }

    /// The SELECT statements run so far.
    var selects: [String] { counter.all.map(\.sql).filter { $0.hasPrefix("SELECT") } }

    /// The SELECT statements `body` runs.
    func selects<T>(during body: () throws -> T) rethrows -> (result: T, statements: [String]) {
        let before = selects.count
        let result = try body()
        return (result, Array(selects.dropFirst(before)))
    }

    /// Another coordinator on the store's file, opened with the same options, sets `key` of the
    /// employee named `name` to `value`: a write this store's row cache does not see.
    func changeElsewhere(_ name: String, setting key: String, to value: Any) throws {
        let url = try #require(store.url)
        let other = NSPersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
        try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: storeOptions)
        let writer = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        writer.persistentStoreCoordinator = other
        let byName = request("Employee")
        byName.predicate = NSPredicate(format: "name == %@", name)
        let employee = try #require(try writer.fetch(byName).first)
        employee.setValue(value, forKey: key)
        try writer.save()
    }

    func request(_ entityName: String, sortedBy key: String? = "name") -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        if let key { request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)] }
        return request
    }
}
