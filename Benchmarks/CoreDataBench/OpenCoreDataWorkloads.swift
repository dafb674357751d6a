import Foundation
import OpenCoreData

/// The workloads through OpenCoreData: a coordinator with the SQLite store and a context, used
/// the way an application uses Core Data (key-value access on `NSManagedObject`).
enum OpenCoreDataWorkloads {
    static func open(_ url: URL, model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return context
    }

    static func int(_ object: NSManagedObject, _ key: String) -> Int64 {
        (object.value(forKey: key) as? Int64) ?? 0
    }

    static func w1Insert(_ url: URL, model: NSManagedObjectModel, count: Int, _ watch: inout Stopwatch) throws {
        let context = try open(url, model: model)
        watch.start()
        try w1InsertTimed(context, count: count)
        watch.stop()
    }

    /// W1's timed part. Not inlined, so that `scripts/bench-callgrind.sh` can count its
    /// instructions alone (`valgrind --toggle-collect`).
    @inline(never) static func w1InsertTimed(_ context: NSManagedObjectContext, count: Int) throws {
        let keys = BenchModel.itemKeys
        let total = Int64(count)
        try context.performAndWait {
            for pk in 1...total {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                for k in 0..<10 { item.setValue(BenchValues.item(pk, k, count: total), forKey: keys[k]) }
            }
            try context.save()
        }
    }

    /// W10: one parent and `children` children, each linked through its to-one
    /// (`child.parent = parent`, as an import does), one save; then the parent deleted, which
    /// cascades to the children, one save. Returns what ``RawWorkloads/w10LinkAndCascade(_:children:_:)``
    /// returns. With `undo`, the context has an undo manager (W11), as a macOS context has by
    /// default: every change registers its inverse. With `eventPerLink`, the context processes
    /// pending changes after each link (W12), as an import's find-or-create fetch per record
    /// does, or a `perform` block per record: every link is its event's first change of the
    /// parent's children.
    static func w10LinkAndCascade(_ url: URL, model: NSManagedObjectModel, children: Int, undo: Bool = false,
                                  eventPerLink: Bool = false, _ watch: inout Stopwatch) throws -> Int64 {
        let context = try open(url, model: model)
        if undo { context.undoManager = UndoManager() }
        let check = try RawDatabase(path: url.path)
        watch.start()
        let parent = try context.performAndWait {
            let parent = NSEntityDescription.insertNewObject(forEntityName: "Parent", into: context)
            parent.setValue(Int64(0), forKey: "index")
            for pk in 1...Int64(children) {
                let child = NSEntityDescription.insertNewObject(forEntityName: "Child", into: context)
                child.setValue(BenchValues.childValue(pk), forKey: "value")
                child.setValue(parent, forKey: "parent")
                if eventPerLink { context.processPendingChanges() }
            }
            try context.save()
            return parent
        }
        watch.stop()
        let linked = try check.integer(RawWorkloads.w10Linked)
        watch.start()
        try context.performAndWait {
            context.delete(parent)
            try context.save()
        }
        watch.stop()
        return linked &* 1_000_003 &+ (try check.integer(RawWorkloads.w10Left))
    }

    /// W9: W1's rows written by one `NSBatchInsertRequest`. The row dictionaries are the
    /// request's input, built before the clock starts (raw SQLite's values need no building).
    static func w9BatchInsert(_ url: URL, model: NSManagedObjectModel, count: Int, _ watch: inout Stopwatch) throws {
        let context = try open(url, model: model)
        let keys = BenchModel.itemKeys
        let total = Int64(count)
        let rows: [[String: Any]] = (1...total).map { pk in
            var row: [String: Any] = [:]
            for k in 0..<10 { row[keys[k]] = BenchValues.item(pk, k, count: total) }
            return row
        }
        watch.start()
        try w9BatchInsertTimed(context, rows: rows)
        watch.stop()
    }

    /// W9's timed part, not inlined (see ``w1InsertTimed(_:count:)``).
    @inline(never) static func w9BatchInsertTimed(_ context: NSManagedObjectContext, rows: [[String: Any]]) throws {
        let request = NSBatchInsertRequest(entityName: "Item", objects: rows)
        request.resultType = .count
        let result = try context.performAndWait { try context.execute(request) as? NSBatchInsertResult }
        guard result?.result as? Int == rows.count else { throw BenchError("W9 inserted \(String(describing: result?.result)) rows") }
    }

    static func w2FetchAll(_ url: URL, model: NSManagedObjectModel, _ watch: inout Stopwatch) throws -> Int64 {
        let context = try open(url, model: model)
        watch.start()
        let sum = try w2FetchAllTimed(context)
        watch.stop()
        return sum
    }

    /// W2's timed part, not inlined (see ``w1InsertTimed(_:count:)``).
    @inline(never) static func w2FetchAllTimed(_ context: NSManagedObjectContext) throws -> Int64 {
        let keys = BenchModel.itemKeys
        return try context.performAndWait {
            var sum: Int64 = 0
            for item in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) {
                for key in keys { sum &+= int(item, key) }
            }
            return sum
        }
    }

    static func w3Query(_ url: URL, model: NSManagedObjectModel, rows: Int, queries: Int, _ watch: inout Stopwatch) throws -> Int64 {
        let context = try open(url, model: model)
        watch.start()
        defer { watch.stop() }
        return try w3QueryTimed(context, rows: rows, queries: queries)
    }

    /// W3's timed part, for every store (see ``w1InsertTimed(_:count:)``).
    @inline(never) static func w3QueryTimed(_ context: NSManagedObjectContext, rows: Int, queries: Int) throws -> Int64 {
        let keys = BenchModel.itemKeys
        return try context.performAndWait {
            var sum: Int64 = 0
            for query in 0..<queries {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                let lower = RawWorkloads.w3Lower(query, rows: rows, queries: queries)
                request.predicate = NSPredicate(format: "a0 >= %@ AND a2 < %@", argumentArray: [NSNumber(value: lower), NSNumber(value: 50)])
                request.sortDescriptors = [NSSortDescriptor(key: "a0", ascending: true)]
                request.fetchLimit = 100
                for item in try context.fetch(request) {
                    for key in keys { sum &+= int(item, key) }
                }
            }
            return sum
        }
    }

    static func w4Prefetch(_ url: URL, model: NSManagedObjectModel, _ watch: inout Stopwatch) throws -> Int64 {
        let context = try open(url, model: model)
        watch.start()
        let sum = try w4PrefetchTimed(context)
        watch.stop()
        return sum
    }

    /// W4's timed part, not inlined (see ``w1InsertTimed(_:count:)``).
    @inline(never) static func w4PrefetchTimed(_ context: NSManagedObjectContext) throws -> Int64 {
        try context.performAndWait {
            var sum: Int64 = 0
            let request = NSFetchRequest<NSManagedObject>(entityName: "Parent")
            request.relationshipKeyPathsForPrefetching = ["children"]
            for parent in try context.fetch(request) {
                let index = int(parent, "index")
                for child in parent.value(forKey: "children") as? Set<NSManagedObject> ?? [] {
                    sum &+= int(child, "value") &+ index
                }
            }
            return sum
        }
    }

    static func w5Walk(_ url: URL, model: NSManagedObjectModel, batchSize: Int, _ watch: inout Stopwatch) throws -> Int64 {
        let context = try open(url, model: model)
        watch.start()
        let sum = try w5WalkTimed(context, batchSize: batchSize)
        watch.stop()
        return sum
    }

    /// W5's timed part, not inlined (see ``w1InsertTimed(_:count:)``).
    @inline(never) static func w5WalkTimed(_ context: NSManagedObjectContext, batchSize: Int) throws -> Int64 {
        try context.performAndWait {
            var sum: Int64 = 0
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.fetchBatchSize = batchSize
            for item in try context.fetch(request) { sum &+= int(item, "a0") }
            return sum
        }
    }

    static func w6Update(_ url: URL, model: NSManagedObjectModel, count: Int, token: Int64, _ watch: inout Stopwatch) throws {
        let context = try open(url, model: model)
        watch.start()
        try w6UpdateTimed(context, count: count, token: token)
        watch.stop()
    }

    /// W6's timed part, for every store: sets `a1` of the items with `a0 < count` to `token`, one save.
    @inline(never) static func w6UpdateTimed(_ context: NSManagedObjectContext, count: Int, token: Int64) throws {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "a0 < %@", argumentArray: [NSNumber(value: count)])
            for item in try context.fetch(request) { item.setValue(token, forKey: "a1") }
            try context.save()
        }
    }

    /// Two private-queue contexts of one coordinator on two threads, each running
    /// `w7Transactions` transactions: fetch 10 items by a range of the indexed `a0` (disjoint
    /// between the threads, see ``RawWorkloads/w7Lower(thread:transaction:sizes:)``), add 1 to
    /// their `a5`, save.
    static func w7Concurrent(_ url: URL, model: NSManagedObjectModel, sizes: Sizes, _ watch: inout Stopwatch) throws {
        try w7ConcurrentTimed(try open(url, model: model).persistentStoreCoordinator, sizes: sizes, &watch)
    }

    /// W7's timed part over `coordinator`'s store, for every store.
    static func w7ConcurrentTimed(_ coordinator: NSPersistentStoreCoordinator?, sizes: Sizes, _ watch: inout Stopwatch) throws {
        try timedOnThreads(sizes.w7Threads, &watch, setup: { _ in
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.undoManager = nil
            return context
        }) { thread, context in
            let span = Int64(sizes.w7ItemsPerTransaction)
            for transaction in 0..<sizes.w7Transactions {
                let lower = RawWorkloads.w7Lower(thread: thread, transaction: transaction, sizes: sizes)
                try context.performAndWait {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                    request.predicate = NSPredicate(format: "a0 >= %@ AND a0 < %@", argumentArray: [NSNumber(value: lower), NSNumber(value: lower + span)])
                    for item in try context.fetch(request) { item.setValue(int(item, "a5") + 1, forKey: "a5") }
                    try context.save()
                }
            }
        }
    }
}
