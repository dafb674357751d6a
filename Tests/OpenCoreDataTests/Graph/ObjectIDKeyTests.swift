import Foundation
import Testing
@testable import OpenCoreData

/// Object IDs as values (``ObjectIDKey``): equal exactly when the IDs are `isEqual`, hashed
/// consistently, and what the registry's batch API and the fetch path key objects by.
@Suite struct ObjectIDKeyTests {
    /// A bare store with `identifier` (no coordinator needed to make IDs).
    private func store(_ identifier: String) -> NSPersistentStore {
        let store = NSPersistentStore(type: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        store.identifier = identifier
        return store
    }

    @Test func equalPermanentIDsFromDifferentInstancesHaveEqualKeys() {
        let storeID = "key-tests-\(UUID().uuidString)"
        let (storeA, storeB) = (store(storeID), store(storeID))
        let (personA, personB) = (GraphTestModel.entity("Person"), GraphTestModel.entity("Person"))
        let a = NSManagedObjectID(entity: personA, store: storeA, primaryKey: 7)
        let b = NSManagedObjectID(entity: personB, store: storeB, primaryKey: 7)
        #expect(a !== b && a.isEqual(b) && b.isEqual(a))
        #expect(a.key == b.key && a.key.hashValue == b.key.hashValue && a.hash == b.hash)
        #expect(Set([a.key, b.key]).count == 1)
        #expect(a.key.primaryKey == 7 && !a.key.isTemporary)
    }

    /// `precedes` orders temporary IDs as they were made (their text doesn't: the counter's low
    /// byte comes first), after permanent ones, which go by primary key.
    @Test func keysPrecedeInTheOrderTheirIDsWereMade() {
        let person = GraphTestModel.entity("Person")
        let animal = GraphTestModel.entity("Animal")
        // 600 IDs cross the counter's byte boundaries, and two entities share one counter.
        let temporary = (0..<600).map { NSManagedObjectID(temporaryFor: $0.isMultiple(of: 3) ? animal : person) }
        var generator = SystemRandomNumberGenerator()
        let shuffled = temporary.shuffled(using: &generator)
        #expect(shuffled.sorted { $0.key.precedes($1.key) }.map(ObjectIdentifier.init) == temporary.map(ObjectIdentifier.init))
        let byText = temporary.sorted { $0.uriRepresentation().absoluteString < $1.uriRepresentation().absoluteString }
        #expect(byText.map(ObjectIdentifier.init) != temporary.map(ObjectIdentifier.init), "the text is no guide")

        let storeID = "key-tests-\(UUID().uuidString)"
        let permanent = [2, 10, 300].map { NSManagedObjectID(entity: person, store: store(storeID), primaryKey: $0) }
        #expect(permanent[0].key.precedes(permanent[1].key) && permanent[1].key.precedes(permanent[2].key))
        #expect(!permanent[2].key.precedes(permanent[1].key) && !permanent[1].key.precedes(permanent[1].key))
        #expect(permanent[2].key.precedes(temporary[0].key) && !temporary[0].key.precedes(permanent[0].key))
    }

    @Test func keysDifferWhenTheStoreTheEntityNameOrThePrimaryKeyDiffers() {
        let storeID = "key-tests-\(UUID().uuidString)"
        let person = GraphTestModel.entity("Person")
        let base = NSManagedObjectID(entity: person, store: store(storeID), primaryKey: 7)
        let others = [
            NSManagedObjectID(entity: person, store: store(storeID + "-other"), primaryKey: 7),
            NSManagedObjectID(entity: GraphTestModel.entity("Animal"), store: store(storeID), primaryKey: 7),
            NSManagedObjectID(entity: person, store: store(storeID), primaryKey: 8),
        ]
        for other in others {
            #expect(!base.isEqual(other) && base.key != other.key)
        }
    }

    @Test func temporaryKeysAreUniqueAndNeverEqualPermanentOnes() throws {
        let person = GraphTestModel.entity("Person")
        let first = NSManagedObjectID(temporaryFor: person)
        let second = NSManagedObjectID(temporaryFor: person)
        #expect(first.isTemporaryID && first.key.isTemporary && first.primaryKey == nil && first.key.primaryKey == nil)
        #expect(!first.isEqual(second) && first.key != second.key)
        #expect(first.isEqual(first) && first.key == first.key)
        // The UUID comes back out of the key, as the URI shows it.
        let uuid = first.key.temporaryUUID.uuidString
        #expect(first.uriRepresentation().absoluteString == "x-coredata:///Person/t\(uuid)")
        // IDs hold their store weakly: keep it alive while checking.
        let permanentStore = store("key-tests-\(UUID().uuidString)")
        let permanent = NSManagedObjectID(entity: person, store: permanentStore, primaryKey: 1)
        #expect(!first.isEqual(permanent) && first.key != permanent.key)
        withExtendedLifetime(permanentStore) {
            #expect(permanent.persistentStore === permanentStore && first.persistentStore == nil)
        }
    }

    /// Over a mix of IDs, keys are equal exactly when the IDs are, and equal IDs hash alike.
    @Test func keyEqualityAndHashingMatchIsEqual() {
        let storeID = "key-tests-\(UUID().uuidString)"
        let stores = [store(storeID), store(storeID), store(storeID + "-b")]
        let entities = [GraphTestModel.entity("Person"), GraphTestModel.entity("Person"), GraphTestModel.entity("Book")]
        var ids: [NSManagedObjectID] = []
        for store in stores {
            for entity in entities {
                for pk: Int64 in [1, 2] { ids.append(NSManagedObjectID(entity: entity, store: store, primaryKey: pk)) }
            }
        }
        ids += entities.map { NSManagedObjectID(temporaryFor: $0) }
        for a in ids {
            for b in ids {
                #expect(a.isEqual(b) == (a.key == b.key))
                if a.isEqual(b) { #expect(a.hash == b.hash && a.hashValue == b.hashValue && a.key.hashValue == b.key.hashValue) }
            }
        }
        #expect(Set(ids).count == Set(ids.map(\.key)).count)
    }

    @Test func storeTokensAreSharedWhileHeldAndForgottenAfter() {
        let identifier = "key-tests-\(UUID().uuidString)"
        let first = ObjectIDTokens.retainStore(identifier)
        #expect(ObjectIDTokens.retainStore(identifier) == first)
        #expect(ObjectIDTokens.retainStore(identifier + "-b") != first)
        ObjectIDTokens.releaseStore(identifier + "-b")
        ObjectIDTokens.releaseStore(identifier)
        #expect(ObjectIDTokens.retainStore(identifier) == first)
        ObjectIDTokens.releaseStore(identifier)
        ObjectIDTokens.releaseStore(identifier)
        // Forgotten: the identifier gets a new number.
        let renewed = ObjectIDTokens.retainStore(identifier)
        #expect(renewed != first)
        ObjectIDTokens.releaseStore(identifier)
    }

    @Test func renamingAnEditableEntityRenewsItsNameToken() {
        let entity = GraphTestModel.entity("Before")
        let before = entity.objectIDNameToken
        entity.name = "After"
        #expect(entity.objectIDNameToken != before)
        #expect(entity.objectIDNameToken == GraphTestModel.entity("After").objectIDNameToken)
    }

    /// An editable entity renamed after its first object keeps its name's number: the
    /// registry finds its objects by their IDs' keys, which read the number each time.
    @Test func renamingAnEntityWithObjectsKeepsItsNameToken() {
        let entity = GraphTestModel.entity("BeforeObjects")
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.performAndWait {
            let object = NSManagedObject(entity: entity, insertInto: context)
            let (before, key) = (entity.objectIDNameToken, object.objectID.key)
            entity.name = "AfterObjects"
            #expect(entity.objectIDNameToken == before && object.objectID.key == key)
            #expect(context.registeredObject(for: object.objectID) === object)
            #expect(context.object(with: object.objectID) === object)
        }
    }

    /// An entity of a frozen model keeps its name's number even when moved into a new,
    /// editable model and renamed: the IDs its coordinator's stores made of it (which, made
    /// while reading rows, fix nothing themselves) keep finding their objects.
    @Test func renamingAnEntityOfAFrozenModelKeepsItsNameToken() {
        let entity = GraphTestModel.entity("FrozenBefore")
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let before = entity.objectIDNameToken
        let moved = NSManagedObjectModel()
        moved.entities = [entity]
        entity.name = "FrozenAfter"
        #expect(entity.objectIDNameToken == before)
        withExtendedLifetime(coordinator) {}
    }

    // MARK: The registry's batch API

    /// Objects freed leave the registry, and once `keepFreedIDs()` was called their IDs come
    /// back once from `takeFreedIDs()`, round after round (the list starts again empty, with
    /// room, after each call). Before that call, freed objects only leave the registry.
    @Test func registryHandsBackEachFreedIDOnce() {
        let person = GraphTestModel.entity("Person")
        let registry = ObjectRegistry()
        do {
            var objects = (0..<2).map { _ in NSManagedObject(entity: person, insertInto: nil) }
            var isNew = objects.map { _ in true }
            registry.register(&objects, isNew: &isNew)
            for object in objects { registry.removeFreed(object, id: object.objectID) }
            #expect(registry.count == 0)
            #expect(registry.takeFreedIDs().isEmpty, "no freed IDs are listed before keepFreedIDs()")
        }
        registry.keepFreedIDs()
        for round in 0..<3 {
            var objects = (0..<(round + 2)).map { _ in NSManagedObject(entity: person, insertInto: nil) }
            var isNew = objects.map { _ in true }
            registry.register(&objects, isNew: &isNew)
            let ids = objects.map(\.objectID)
            #expect(registry.count == ids.count)
            for (object, id) in zip(objects, ids) { registry.removeFreed(object, id: id) }
            #expect(registry.count == 0)
            #expect(registry.takeFreedIDs().map(\.key) == ids.map(\.key))
            #expect(registry.takeFreedIDs().isEmpty)
        }
    }

    /// `removalCount` moves when a live object is unregistered (removed, reassigned to another
    /// ID, or all of them at once), not when a removal finds another object or a freed object
    /// leaves: what a prefetch compares to tell whether the objects it made are still registered.
    @Test func registryCountsTheRemovalsOfLiveObjects() {
        let person = GraphTestModel.entity("Person")
        let registry = ObjectRegistry()
        var objects = (0..<4).map { _ in NSManagedObject(entity: person, insertInto: nil) }
        var isNew = objects.map { _ in true }
        registry.register(&objects, isNew: &isNew)
        let other = NSManagedObject(entity: person, insertInto: nil)
        var count = registry.removalCount
        registry.removeFreed(objects[0], id: objects[0].objectID)
        registry.remove(other, id: objects[1].objectID)
        #expect(registry.removalCount == count, "a freed object, and a removal that found another object")
        registry.remove(objects[1], id: objects[1].objectID)
        #expect(registry.removalCount == count + 1)
        count += 1
        registry.reassign([objects[2]], to: [NSManagedObjectID(temporaryFor: person)])
        #expect(registry.removalCount == count + 1)
        count += 1
        registry[objects[3].objectID] = nil
        #expect(registry.removalCount == count + 1)
        count += 1
        registry.removeAll()
        #expect(registry.removalCount == count + 1)
        withExtendedLifetime(objects) {}
    }

    @Test func registryBatchLookupAndRegistration() {
        let person = GraphTestModel.entity("Person")
        let a = NSManagedObject(entity: person, insertInto: nil)
        let b = NSManagedObject(entity: person, insertInto: nil)
        let unregistered = NSManagedObject(entity: person, insertInto: nil)
        let twinOfA = NSManagedObject(entity: person, insertInto: nil)
        twinOfA.objectID = a.objectID
        let registry = ObjectRegistry()
        withExtendedLifetime([a, b, unregistered, twinOfA]) {
            // New objects are registered; a later one with the ID of a live one gets that one
            // in its place, and is no longer counted new. Objects not marked new are left alone.
            var registered = [a, b, twinOfA, unregistered]
            var isNew = [true, true, true, false]
            registry.register(&registered, isNew: &isNew)
            #expect(registered.count == 4 && registered[0] === a && registered[1] === b && registered[2] === a && registered[3] === unregistered)
            #expect(isNew == [true, true, false, false])
            // A displaced object whose only reference was the array is replaced too. (One of a
            // context frees itself through the registry's lock: `fetchedObjectsAreUniqued…`
            // covers that path, through a fetch listing an ID twice.)
            var onlyInArray = [NSManagedObject(entity: person, insertInto: nil)]
            onlyInArray[0].objectID = b.objectID
            var onlyInArrayIsNew = [true]
            registry.register(&onlyInArray, isNew: &onlyInArrayIsNew)
            #expect(onlyInArray[0] === b && onlyInArrayIsNew == [false])
            #expect(registry.count == 2 && registry[a.objectID] === a)
            let found = registry.objects(for: [b.objectID, unregistered.objectID, a.objectID])
            #expect(found.count == 3 && found[0] === b && found[1] == nil && found[2] === a)
            #expect(registry.unregistered([a.objectID, unregistered.objectID]).map(\.key) == [unregistered.objectID.key])
            registry.remove(a, id: a.objectID)
            registry.remove(b, id: b.objectID)
            #expect(registry.count == 0)
        }
    }

    // MARK: The fetch path

    @Test(arguments: StoreTypesUnderTest.all)
    func fetchedObjectsAreUniquedThroughTheBatchPath(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        try fixture.addStore()
        try fixture.insertStandardData()
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = fixture.coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let ids = try context.fetch(NSFetchRequest<NSManagedObjectID>(entityName: "Employee").resultingIDs())
        let known = context.object(with: ids[0])
        let first = try context.fetch(request)
        #expect(first.count == ids.count && first.contains { $0 === known })
        let second = try context.fetch(request)
        #expect(zip(first, second).allSatisfy { $0 === $1 })
        for object in first { #expect(context.registeredObject(for: object.objectID) === object) }

        // In a fresh context, an ID listed twice gives one fault; a known one is reused; the
        // new faults are registered and fire.
        let fresh = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        fresh.persistentStoreCoordinator = fixture.coordinator
        let freshKnown = fresh.object(with: ids[0])
        let objects = fresh.objects(with: [ids[1], ids[1], ids[0], ids[2]])
        #expect(objects.count == 4 && objects[0] === objects[1] && objects[2] === freshKnown && objects[3] !== objects[0])
        #expect(fresh.registeredObject(for: ids[1]) === objects[0] && fresh.registeredObject(for: ids[2]) === objects[3])
        #expect(objects[0].isFault && objects[3].isFault)
        #expect(objects.allSatisfy { $0.value(forKey: "name") is String })
        #expect(objects.map(\.objectID) == [ids[1], ids[1], ids[0], ids[2]])
    }
}

/// The context keyed by ID values: IDs re-keyed when they become permanent, equal IDs made
/// apart (another coordinator, a URI, a store) finding the same object, cached row and
/// refreshed-fault mark.
extension ObjectIDKeyTests {
    private func makeContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func obtainingPermanentIDsRekeysTheRegistry(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        let store = try fixture.addStore()
        let context = makeContext(fixture.coordinator)
        let ann = NSManagedObject(entity: fixture.entity("Employee"), insertInto: context)
        ann.setValue("Ann", forKey: "name")
        let temporary = ann.objectID
        #expect(context.registeredObject(for: temporary) === ann)

        try context.obtainPermanentIDs(for: [ann])
        let permanent = ann.objectID
        #expect(!permanent.isTemporaryID && !permanent.isEqual(temporary) && permanent.key != temporary.key)
        #expect(context.registeredObject(for: temporary) == nil)
        #expect(context.registeredObject(for: permanent) === ann)
        // An equal ID made apart (another instance) finds the same object.
        let twin = NSManagedObjectID(entity: fixture.entity("Employee"), store: store, primaryKey: try #require(permanent.primaryKey))
        #expect(twin !== permanent && twin.isEqual(permanent) && twin.key == permanent.key && twin.hash == permanent.hash)
        #expect(context.object(with: twin) === ann && context.registeredObject(for: twin) === ann)

        // Saving keeps the permanent ID and the registration.
        try context.save()
        #expect(ann.objectID.isEqual(permanent) && context.registeredObject(for: twin) === ann)
        #expect(try context.existingObject(with: twin) === ann)
        #expect(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).first === ann)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func savedObjectsAreRegisteredUnderTheirPermanentIDs(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        try fixture.addStore()
        let context = makeContext(fixture.coordinator)
        let names = ["Ann", "Bob", "Cid"]
        let objects = names.map { name in
            let object = NSManagedObject(entity: fixture.entity("Employee"), insertInto: context)
            object.setValue(name, forKey: "name")
            return object
        }
        let temporaries = objects.map(\.objectID)
        try context.save()
        for (object, temporary) in zip(objects, temporaries) {
            #expect(!object.objectID.isTemporaryID && object.objectID.key != temporary.key)
            #expect(context.registeredObject(for: temporary) == nil)
            #expect(context.registeredObject(for: object.objectID) === object)
            // The ID read back from its URI is another instance with the same key.
            let fromURI = try #require(fixture.coordinator.managedObjectID(forURIRepresentation: object.objectID.uriRepresentation()))
            #expect(fromURI !== object.objectID && fromURI.key == object.objectID.key)
            #expect(context.object(with: fromURI) === object)
        }
        #expect(Set(objects.map(\.objectID.key)).count == names.count)

        // Another context fetches its own objects, whose IDs equal the first context's; looking
        // up the first context's IDs there gives those objects.
        let other = makeContext(fixture.coordinator)
        let fetched = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
        #expect(fetched.count == names.count)
        for object in objects {
            let twin = try #require(fetched.first { $0.objectID.isEqual(object.objectID) })
            #expect(twin !== object && twin.objectID.hash == object.objectID.hash)
            #expect(other.object(with: object.objectID) === twin)
            #expect(twin.value(forKey: "name") as? String == object.value(forKey: "name") as? String)
        }
    }

    /// A second coordinator on the same SQLite file makes IDs equal to the first's; merging a
    /// change reported with them marks the first context's fault as refreshed (looked up by
    /// key), so it reads the file instead of the store's stale cached row.
    @Test func idsOfAnotherCoordinatorFindTheFaultToRefresh() throws {
        let fixture = try SQLiteStatementFixture()
        let request = fixture.request("Employee")
        request.predicate = NSPredicate(format: "name == 'Ann'")
        let reader = fixture.context()
        let ann = try #require(try reader.fetch(request).first)
        #expect(ann.value(forKey: "salary") as? Int64 == 100)
        let annID = ann.objectID

        let url = try #require(fixture.store.url)
        let otherCoordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.coordinator.managedObjectModel)
        try otherCoordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let writer = makeContext(otherCoordinator)
        let annInWriter = try #require(try writer.fetch(request).first)
        let foreignID = annInWriter.objectID
        #expect(foreignID !== annID && foreignID.isEqual(annID) && foreignID.key == annID.key && foreignID.hash == annID.hash)
        #expect(foreignID.persistentStore !== annID.persistentStore)
        #expect(reader.object(with: foreignID) === ann)
        annInWriter.setValue(Int64(900), forKey: "salary")
        try writer.save()

        // Without the merge, a fault fires from the first store's cached row.
        let unmerged = fixture.context()
        #expect(unmerged.object(with: annID).value(forKey: "salary") as? Int64 == 100)

        let merged = fixture.context()
        let fault = merged.object(with: annID)
        #expect(fault.isFault)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectIDsKey: [foreignID]], into: [merged])
        #expect(merged.refreshedFaults.contains(annID.key))
        let (salary, statements) = fixture.selects { fault.value(forKey: "salary") as? Int64 }
        #expect(salary == 900 && statements.count == 1)
        #expect(merged.refreshedFaults.isEmpty)
    }

    /// Fetches Ann, then marks her refreshed (refreshing her, or merging a save that updated
    /// her while she is a fault) and lets her go.
    @inline(never)
    private func refreshAnnAndDropHer(in context: NSManagedObjectContext, fixture: SQLiteStatementFixture, merging: Bool) throws -> NSManagedObjectID {
        let request = fixture.request("Employee")
        request.predicate = NSPredicate(format: "name == 'Ann'")
        let ann = try #require(try context.fetch(request).first)
        if merging {
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectIDsKey: [ann.objectID]], into: [context])
        } else {
            #expect(ann.value(forKey: "name") as? String == "Ann")
            context.refresh(ann, mergeChanges: false)
        }
        // The change notification's lists hold her until they are posted.
        context.processPendingChanges()
        #expect(context.refreshedFaults.contains(ann.objectID.key))
        return ann.objectID
    }

    /// A freed object's refresh mark goes with it, whether a refresh or a merged save made it
    /// (the context's first mark: nothing was cached under IDs before it), so a new object of
    /// its ID fires from the store as any other fault does.
    @Test(arguments: [false, true])
    func freedObjectsDropTheirRefreshMarks(merging: Bool) throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let annID = try refreshAnnAndDropHer(in: context, fixture: fixture, merging: merging)
        #expect(context.registeredObject(for: annID) == nil)
        // The next lookup notices the freed object.
        let ann = context.object(with: annID)
        #expect(context.refreshedFaults.isEmpty && ann.isFault)
        #expect(ann.value(forKey: "name") as? String == "Ann")
    }

    /// The Employee IDs (without subentities, so batch faulting takes them all), by name.
    private func employeeIDs(_ context: NSManagedObjectContext) throws -> [NSManagedObjectID] {
        let request = NSFetchRequest<NSManagedObjectID>(entityName: "Employee").resultingIDs()
        request.includesSubentities = false
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request)
    }

    /// Firing one fault batch-loads the others into the context's row cache, keyed by value:
    /// equal IDs made apart find those rows, and firing them runs no SQL.
    @Test func batchFaultedRowsAreFoundByEqualIDs() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let ids = try employeeIDs(context)
        #expect(ids.count == 4)
        let faults = ids.map { context.object(with: $0) }
        #expect(faults.allSatisfy { $0.isFault })
        let (first, firing) = fixture.selects { faults[0].value(forKey: "name") as? String }
        #expect(first == "Ann" && firing.count == 1)
        #expect(context.rowCache.count == 3)

        var twins: [NSManagedObjectID] = []
        for id in ids.dropFirst() {
            twins.append(NSManagedObjectID(entity: id.entity, store: fixture.store, primaryKey: try #require(id.primaryKey)))
        }
        #expect(twins.allSatisfy { context.rowCache[$0.key] != nil })
        #expect(zip(twins, faults.dropFirst()).allSatisfy { context.registeredObject(for: $0) === $1 })
        let (names, rest) = try fixture.selects {
            try twins.map { try context.existingObject(with: $0) }.compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["Cid", "Dee", "Eve"] && rest.isEmpty)
        #expect(context.rowCache.isEmpty && !faults.contains { $0.isFault })
    }

    /// Fires the first of the Employee faults (caching the others' rows) and lets them all go.
    @inline(never)
    private func fireOneAndDropAll(_ ids: [NSManagedObjectID], in context: NSManagedObjectContext) {
        let faults = ids.map { context.object(with: $0) }
        #expect(faults[0].value(forKey: "name") as? String == "Ann")
        #expect(context.rowCache.count == ids.count - 1)
    }

    /// Freed faults leave the registry, and the context drops their cached rows by key.
    @Test func freedFaultsDropTheirCachedRows() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let ids = try employeeIDs(context)
        fireOneAndDropAll(ids, in: context)
        #expect(ids.allSatisfy { context.registeredObject(for: $0) == nil })
        // The next lookup notices the freed objects.
        let cid = context.object(with: ids[1])
        #expect(context.rowCache.isEmpty && cid.isFault)
        #expect(cid.value(forKey: "name") as? String == "Cid")
    }
}

private extension NSFetchRequest where ResultType == NSManagedObjectID {
    /// The request, set to return object IDs.
    func resultingIDs() -> Self {
        resultType = .managedObjectIDResultType
        return self
    }
}
