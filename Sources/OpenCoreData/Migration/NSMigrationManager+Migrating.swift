import Foundation

/// Running a migration: the stores, the three stages, the save and the progress.
extension NSMigrationManager {
    /// Migrates the store of `sourceType` at `sourceURL` to a store of `destinationType` at
    /// `destinationURL` with `mapping`: the typed form of
    /// ``migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)``.
    public func migrateStore(from sourceURL: URL, type sourceType: NSPersistentStore.StoreType,
                             options sourceOptions: [AnyHashable: Any]? = nil, mapping: NSMappingModel,
                             to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
                             options destinationOptions: [AnyHashable: Any]? = nil) throws {
        try migrateStore(from: sourceURL, sourceType: sourceType.rawValue, options: sourceOptions, with: mapping,
                         toDestinationURL: destinationURL, destinationType: destinationType.rawValue,
                         destinationOptions: destinationOptions)
    }

    /// The body of ``migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)``.
    func runMigration(from sourceURL: URL, sourceType: String, options sourceOptions: [AnyHashable: Any]?,
                      mapping: NSMappingModel?, to destinationURL: URL, destinationType: String,
                      options destinationOptions: [AnyHashable: Any]?) throws {
        for (type, url) in [(sourceType, sourceURL), (destinationType, destinationURL)]
        where StoreTypeRegistry.shared.storeClass(for: type) == nil {
            throw PersistentStoreErrors.unknownStoreType(type, url: url)
        }
        guard let mapping else {
            throw MigrationErrors.make(NSMigrationMissingMappingModelError,
                                       "No mapping model was given to migrate the store at \(sourceURL.path).",
                                       userInfo: [NSURLErrorKey: sourceURL])
        }
        reset()
        mappingModel = mapping
        progress = Progress(totalUnitCount: Self.progressUnits)
        if let parent = parentProgress {
            parent.addChild(progress, withPendingUnitCount: parent.totalUnitCount - parent.completedUnitCount)
        }

        var readOnlyOptions = sourceOptions ?? [:]
        readOnlyOptions[NSReadOnlyPersistentStoreOption] = true
        let sourceCoordinator = try coordinator(of: sourceContext)
        let sourceStore: NSPersistentStore
        do {
            sourceStore = try sourceCoordinator.addPersistentStore(ofType: sourceType, configurationName: nil, at: sourceURL,
                                                                   options: readOnlyOptions)
        } catch {
            throw MigrationErrors.make(NSMigrationManagerSourceStoreError,
                                       "Can't open the source store at \(sourceURL.path) with the source model: \((error as NSError).localizedDescription)",
                                       userInfo: [NSURLErrorKey: sourceURL], underlying: error)
        }
        defer { try? sourceCoordinator.remove(sourceStore) }

        let files = try MigrationDestination(url: destinationURL, storeType: destinationType, sourceURL: sourceURL)
        let destinationCoordinator = try coordinator(of: destinationContext)
        var destinationStore: NSPersistentStore?
        do {
            do {
                destinationStore = try destinationCoordinator.addStore(
                    ofType: destinationType, configurationName: nil, at: files.workingURL, options: destinationOptions,
                    identifier: files.addsToExistingStore ? nil : sourceStore.identifier)
            } catch {
                throw MigrationErrors.make(NSMigrationManagerDestinationStoreError,
                                           "Can't create the destination store at \(destinationURL.path): \((error as NSError).localizedDescription)",
                                           userInfo: [NSURLErrorKey: destinationURL], underlying: error)
            }
            try performMappings(mapping.entityMappings ?? [])
            try saveDestination()
            try checkCancelled()
            if files.replacesOnCommit, let store = destinationStore {
                try destinationCoordinator.remove(store)
                destinationStore = nil
                try files.commit()
            }
        } catch {
            destinationContext.reset()
            if let store = destinationStore { try? destinationCoordinator.remove(store) }
            files.discard()
            throw cancellation ?? error
        }
        currentEntityMapping = NSEntityMapping()
        report(1)
    }

    static let progressUnits: Int64 = 10_000

    func coordinator(of context: NSManagedObjectContext) throws -> NSPersistentStoreCoordinator {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw MigrationErrors.make(NSMigrationError, "The migration manager's context has no coordinator.")
        }
        return coordinator
    }

    /// Sets ``migrationProgress`` and ``progress`` to `fraction` (never backwards).
    func report(_ fraction: Double) {
        let value = Float(min(max(fraction, 0), 1))
        guard value >= migrationProgress else { return }
        migrationProgress = value
        progress.completedUnitCount = Int64((Double(value) * Double(Self.progressUnits)).rounded())
    }

    /// Throws the error given to ``cancelMigrationWithError(_:)``, if any.
    func checkCancelled() throws {
        if let cancellation { throw cancellation }
    }

    // MARK: The three stages

    /// Creates the destination instances of every mapping, then their relationships, then
    /// validates them (Apple's stages), calling each mapping's policy.
    func performMappings(_ mappings: [NSEntityMapping]) throws {
        for mapping in mappings where mapping.mappingType == .undefinedEntityMappingType {
            throw MigrationErrors.make(NSMigrationError,
                                       "The entity mapping '\(mapping.name ?? "?")' has an undefined mapping type; set it to add, remove, copy, transform or custom.",
                                       userInfo: ["entityMapping": mapping.name ?? ""])
        }
        let policies = try mappings.map { try MigrationPolicyClasses.policy(for: $0) }
        let count = Double(max(mappings.count, 1))
        // Stage 1: instances (45 %).
        for (index, (mapping, policy)) in zip(mappings, policies).enumerated() {
            currentEntityMapping = mapping
            try step(mapping, "begin(_:with:)") { try policy.begin(mapping, with: self) }
            let creates = [.copyEntityMappingType, .transformEntityMappingType, .customEntityMappingType].contains(mapping.mappingType)
            let sources = creates ? try sourceInstances(of: mapping, policy: policy) : []
            for (position, source) in sources.enumerated() {
                try checkCancelled()
                try step(mapping, "createDestinationInstances(forSource:in:manager:)") {
                    try policy.createDestinationInstances(forSource: source, in: mapping, manager: self)
                }
                report(0.45 * (Double(index) + Double(position + 1) / Double(sources.count)) / count)
            }
            try step(mapping, "endInstanceCreation(forMapping:manager:)") { try policy.endInstanceCreation(forMapping: mapping, manager: self) }
            report(0.45 * Double(index + 1) / count)
        }
        // Stage 2: relationships (45 %).
        for (index, (mapping, policy)) in zip(mappings, policies).enumerated() {
            currentEntityMapping = mapping
            let destinations = destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: nil)
            for (position, destination) in destinations.enumerated() {
                try checkCancelled()
                try step(mapping, "createRelationships(forDestination:in:manager:)") {
                    try policy.createRelationships(forDestination: destination, in: mapping, manager: self)
                }
                report(0.45 + 0.45 * (Double(index) + Double(position + 1) / Double(destinations.count)) / count)
            }
            try step(mapping, "endRelationshipCreation(forMapping:manager:)") {
                try policy.endRelationshipCreation(forMapping: mapping, manager: self)
            }
            report(0.45 + 0.45 * Double(index + 1) / count)
        }
        // Stage 3: validation (5 %).
        for (index, (mapping, policy)) in zip(mappings, policies).enumerated() {
            currentEntityMapping = mapping
            try checkCancelled()
            try step(mapping, "performCustomValidation(forMapping:manager:)") {
                try policy.performCustomValidation(forMapping: mapping, manager: self)
            }
            try step(mapping, "end(_:manager:)") { try policy.end(mapping, manager: self) }
            report(0.9 + 0.05 * Double(index + 1) / count)
        }
    }

    /// Runs one policy step, naming the mapping and the step in a policy's error.
    private func step(_ mapping: NSEntityMapping, _ name: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            if let cancellation { throw cancellation }
            throw MigrationErrors.policyFailed(error, mapping: mapping, stage: name)
        }
        try checkCancelled()
    }

    /// Saves the destination context; a destination object that fails validation is
    /// `NSMigrationError` (134110) with the validation error underneath, described by its first
    /// validation error, with `entity` and `attribute` in userInfo naming it (Apple's keys).
    func saveDestination() throws {
        do {
            try destinationContext.save()
        } catch {
            let nsError = error as NSError
            let isValidation = nsError.domain == NSCocoaErrorDomain && (1550...1680).contains(nsError.code)
            guard isValidation else {
                throw MigrationErrors.make(NSMigrationError, "Saving the destination store failed: \(nsError.localizedDescription)",
                                           underlying: error)
            }
            let details = CoreDataErrorFactory.flattened([error])
            let first = details.first ?? nsError
            var userInfo: [String: Any] = [NSDetailedErrorsKey: details]
            userInfo["entity"] = (first.userInfo[NSValidationObjectErrorKey] as? NSManagedObject)?.entity.name
            userInfo["attribute"] = first.userInfo[NSValidationKeyErrorKey] as? String
            let more = details.count > 1 ? " (and \(details.count - 1) more validation errors)" : ""
            throw MigrationErrors.make(NSMigrationError,
                                       "A migrated object is not valid in the destination model: \(first.localizedDescription)\(more)",
                                       userInfo: userInfo, underlying: error)
        }
        report(1)
    }
}
