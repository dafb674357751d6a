import Foundation
import Testing
@testable import OpenCoreData

/// To-many relationships of several objects on every store: changed in one save (the SQL
/// stores write each relationship's rows for all the objects together, PostgreSQL in one
/// statement per relationship) and prefetched together, every object gets exactly its own
/// destinations, in order when the relationship is ordered.
@Suite struct ToManyWriteTests {
    private func open(_ storeType: String, _ model: NSManagedObjectModel, in directory: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil,
                                           at: StoreTypesUnderTest.location(storeType, directory.appendingPathComponent("ToMany.\(storeType.lowercased())")),
                                           options: nil)
        return CatalogScenario.newContext(on: coordinator)
    }

    /// What `context`'s store holds, read by a new context: each source's destinations by name
    /// (in order for an ordered relationship).
    private func stored(_ entity: String, _ relationship: String, _ key: String, on context: NSManagedObjectContext) throws -> [String: [String]] {
        let fresh = CatalogScenario.newContext(on: try #require(context.persistentStoreCoordinator))
        return try fresh.performAndWait {
            var result: [String: [String]] = [:]
            for object in try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) {
                let value = object.value(forKey: relationship)
                let destinations = (value as? NSOrderedSet)?.array as? [NSManagedObject]
                    ?? ((value as? Set<NSManagedObject>).map { Array($0) } ?? [])
                let names = destinations.compactMap { $0.value(forKey: key) as? String }
                result[object.value(forKey: "name") as? String ?? "?"] = value is NSOrderedSet ? names : names.sorted()
            }
            return result
        }
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func relationshipsWithoutAnInverseOfSeveralObjectsInOneSave(_ storeType: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = try open(storeType, SQLiteNamingSupport.inverselessModel(), in: directory)
        try context.performAndWait {
            func insert(_ entity: String, _ key: String, _ value: String) -> NSManagedObject {
                SQLiteNamingSupport.insert(entity, [key: value], into: context)
            }
            let m = (1...4).map { insert("Modifier", "name", "m\($0)") }
            let t = (1...4).map { insert("Track", "title", "t\($0)") }
            let r1 = insert("Recipe", "name", "r1"), r2 = insert("Recipe", "name", "r2")
            let p1 = insert("Playlist", "name", "p1"), p2 = insert("Playlist", "name", "p2")
            r1.setValue(Set([m[0], m[1]]), forKey: "modifiers")
            r2.setValue(Set([m[2]]), forKey: "modifiers")
            p1.setValue(NSOrderedSet(array: [t[0], t[1], t[2]]), forKey: "tracks")
            p2.setValue(NSOrderedSet(array: [t[3]]), forKey: "tracks")
            try context.save()

            // One save moves destinations between sources, reorders and empties.
            r1.setValue(Set([m[0]]), forKey: "modifiers")
            r2.setValue(Set([m[1], m[2], m[3]]), forKey: "modifiers")
            p1.setValue(NSOrderedSet(array: [t[2], t[0]]), forKey: "tracks")
            p2.setValue(NSOrderedSet(array: [t[3], t[1]]), forKey: "tracks")
            try context.save()
        }
        #expect(try stored("Recipe", "modifiers", "name", on: context) == ["r1": ["m1"], "r2": ["m2", "m3", "m4"]])
        #expect(try stored("Playlist", "tracks", "title", on: context) == ["p1": ["t3", "t1"], "p2": ["t4", "t2"]])

        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Playlist")
            request.predicate = NSPredicate(format: "name == 'p1'")
            try #require(try context.fetch(request).first).setValue(NSOrderedSet(), forKey: "tracks")
            try context.save()
        }
        #expect(try stored("Playlist", "tracks", "title", on: context) == ["p1": [], "p2": ["t4", "t2"]])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func manyToManyOfSeveralObjectsOnBothSidesInOneSave(_ storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let posts = (1...3).map { s.insert("Post", ["title": "p\($0)"]) }
        let tags = (1...3).map { s.insert("Tag", ["name": "t\($0)"]) }
        s.context.performAndWait {
            posts[0].setValue(Set([tags[0], tags[1]]), forKey: "tags")
            posts[1].setValue(Set([tags[1]]), forKey: "tags")
        }
        try s.save()
        s.context.performAndWait {
            posts[0].setValue(Set([tags[2]]), forKey: "tags")
            posts[2].setValue(Set([tags[0], tags[1], tags[2]]), forKey: "tags")
            tags[1].mutableSetValue(forKey: "posts").remove(posts[1])
        }
        try s.save()
        let fresh = CatalogScenario.newContext(on: s.coordinator)
        let stored = try fresh.performAndWait {
            try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).reduce(into: [String: [String]]()) { result, tag in
                result[tag.value(forKey: "name") as? String ?? "?"] = ((tag.value(forKey: "posts") as? Set<NSManagedObject>) ?? [])
                    .compactMap { $0.value(forKey: "title") as? String }.sorted()
            }
        }
        #expect(stored == ["t1": ["p3"], "t2": ["p3"], "t3": ["p1", "p3"]])
    }

    /// Prefetching reads every source's destinations in one statement per relationship: an
    /// ordered relationship's in their order, an unordered one's (which the PostgreSQL store
    /// reads unsorted) complete.
    @Test(arguments: StoreTypesUnderTest.all)
    func prefetchedRelationshipsKeepTheirOrderAndMembers(_ storeType: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = try open(storeType, SQLiteNamingSupport.inverselessModel(), in: directory)
        try context.performAndWait {
            let t = (0..<12).map { SQLiteNamingSupport.insert("Track", ["title": "t\($0)"], into: context) }
            let m = (0..<12).map { SQLiteNamingSupport.insert("Modifier", ["name": "m\($0)"], into: context) }
            for index in 0..<3 {
                let playlist = SQLiteNamingSupport.insert("Playlist", ["name": "p\(index)"], into: context)
                // Positions against key order: the last inserted track first.
                playlist.setValue(NSOrderedSet(array: t[(index * 4)..<(index * 4 + 4)].reversed()), forKey: "tracks")
                let recipe = SQLiteNamingSupport.insert("Recipe", ["name": "r\(index)"], into: context)
                recipe.setValue(Set(m[(index * 4)..<(index * 4 + 4)]), forKey: "modifiers")
            }
            try context.save()
        }
        let fresh = CatalogScenario.newContext(on: try #require(context.persistentStoreCoordinator))
        try fresh.performAndWait {
            let playlists = NSFetchRequest<NSManagedObject>(entityName: "Playlist")
            playlists.relationshipKeyPathsForPrefetching = ["tracks"]
            var tracks: [String: [String]] = [:]
            for playlist in try fresh.fetch(playlists) {
                #expect(!playlist.hasFault(forRelationshipNamed: "tracks"), "prefetched")
                let list = ((playlist.value(forKey: "tracks") as? NSOrderedSet)?.array as? [NSManagedObject]) ?? []
                tracks[playlist.value(forKey: "name") as? String ?? "?"] = list.compactMap { $0.value(forKey: "title") as? String }
            }
            #expect(tracks == ["p0": ["t3", "t2", "t1", "t0"], "p1": ["t7", "t6", "t5", "t4"], "p2": ["t11", "t10", "t9", "t8"]])

            let recipes = NSFetchRequest<NSManagedObject>(entityName: "Recipe")
            recipes.relationshipKeyPathsForPrefetching = ["modifiers"]
            var modifiers: [String: [String]] = [:]
            for recipe in try fresh.fetch(recipes) {
                #expect(!recipe.hasFault(forRelationshipNamed: "modifiers"), "prefetched")
                modifiers[recipe.value(forKey: "name") as? String ?? "?"] = SQLiteNamingSupport.names(recipe, "modifiers")
            }
            #expect(modifiers == ["r0": ["m0", "m1", "m2", "m3"], "r1": ["m4", "m5", "m6", "m7"], "r2": ["m10", "m11", "m8", "m9"]])
        }
    }
}

