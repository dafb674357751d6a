import Foundation
import OpenCoreData

/// The benchmark's `Item` entity as a typed subclass, the way an application declares it
/// (`@NSManaged` on Apple platforms, `@Managed` here).
final class BenchItem: NSManagedObject {
    @Managed var a0: Int64
    @Managed var a1: Int64
    @Managed var a2: Int64
    @Managed var a3: Int64
    @Managed var a4: Int64
    @Managed var a5: Int64
    @Managed var a6: Int64
    @Managed var a7: Int64
    @Managed var a8: Int64
    @Managed var a9: Int64

    var attributeSum: Int64 { a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9 }
}

/// W8, "Core Data's own test": the shapes of GRDB's published comparison with Core Data (insert
/// 50,000 records of 10 integers in one save; fetch 200,000 and read every attribute), set up
/// with `NSPersistentContainer` and read and written through `BenchItem`'s typed properties
/// instead of key-value coding. Its goal is to cost no more than W1 and W2's key-value access.
enum TypedWorkloads {
    /// ``BenchModel/make()`` with `Item` objects made as ``BenchItem`` (the same schema, so the
    /// same store files).
    static func makeModel() -> NSManagedObjectModel {
        let model = BenchModel.make()
        model.register(BenchItem.self, forEntityName: "Item")
        return model
    }

    /// A container whose only store is the SQLite file `url`, loaded, and a background context
    /// of it. The container is returned too, to keep it for as long as the context is used.
    static func open(_ url: URL, model: NSManagedObjectModel) throws -> (NSPersistentContainer, NSManagedObjectContext) {
        let container = NSPersistentContainer(name: "CoreDataBench", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in
            if let error { failure = error }
        }
        if let failure { throw failure }
        return (container, container.newBackgroundContext())
    }

    static func w8Insert(_ url: URL, model: NSManagedObjectModel, count: Int, _ watch: inout Stopwatch) throws {
        let (container, context) = try open(url, model: model)
        watch.start()
        try w8InsertTimed(context, count: count)
        watch.stop()
        withExtendedLifetime(container) {}
    }

    /// W8a's timed part, not inlined (see ``OpenCoreDataWorkloads/w1InsertTimed(_:count:)``).
    @inline(never) static func w8InsertTimed(_ context: NSManagedObjectContext, count: Int) throws {
        let total = Int64(count)
        try context.performAndWait {
            for pk in 1...total {
                let item = BenchItem(context: context)
                item.a0 = BenchValues.item(pk, 0, count: total)
                item.a1 = BenchValues.item(pk, 1, count: total)
                item.a2 = BenchValues.item(pk, 2, count: total)
                item.a3 = BenchValues.item(pk, 3, count: total)
                item.a4 = BenchValues.item(pk, 4, count: total)
                item.a5 = BenchValues.item(pk, 5, count: total)
                item.a6 = BenchValues.item(pk, 6, count: total)
                item.a7 = BenchValues.item(pk, 7, count: total)
                item.a8 = BenchValues.item(pk, 8, count: total)
                item.a9 = BenchValues.item(pk, 9, count: total)
            }
            try context.save()
        }
    }

    static func w8Fetch(_ url: URL, model: NSManagedObjectModel, _ watch: inout Stopwatch) throws -> Int64 {
        let (container, context) = try open(url, model: model)
        watch.start()
        let sum = try w8FetchTimed(context)
        watch.stop()
        withExtendedLifetime(container) {}
        return sum
    }

    /// W8b's timed part, not inlined (see ``OpenCoreDataWorkloads/w1InsertTimed(_:count:)``).
    @inline(never) static func w8FetchTimed(_ context: NSManagedObjectContext) throws -> Int64 {
        try context.performAndWait {
            var sum: Int64 = 0
            for item in try context.fetch(NSFetchRequest<BenchItem>(entityName: "Item")) {
                sum &+= item.attributeSum
            }
            return sum
        }
    }
}
