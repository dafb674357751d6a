/// The binary store (`NSBinaryStoreType`): an atomic store kept in a compact file of ours.
///
/// Like every atomic store it loads every object when it is added and writes the whole file
/// at each save, atomically (temporary file, `fsync`, rename: ``AtomicFile``). The format is
/// documented in `BinaryStoreFormat`: magic number and version, metadata as a binary property
/// list, entity and property tables, typed values and relationship references, and a CRC-32.
///
/// Errors, each naming the file (`NSFilePathErrorKey`, `NSURLErrorKey`):
/// - another store type's file, or not a store: `NSPersistentStoreInvalidTypeError` (134000);
/// - a file of a newer format version: `NSPersistentStoreInvalidTypeError` (134000);
/// - a truncated or corrupt file (bad checksum, bad structure): `NSFileReadCorruptFileError` (259);
/// - another coordinator saved into the file since this store read it: `NSManagedObjectMergeError` (133020).
///
/// Transformable attributes: stored as the `Data` their value transformer makes
/// (`TransformableValueCoding`; by default a keyed archive). Files written before that hold the
/// value self-described, and still read.
///
/// Differs from Apple: Apple's binary format is private and unrelated; files are not
/// interchangeable with Apple's binary stores (use the XML or SQLite store for that).
open class BinaryStore: AtomicFileStore, @unchecked Sendable {
    open override class var storeType: String { NSBinaryStoreType }

    open override func decodeContents(_ data: Data, from url: URL) throws -> AtomicStoreContents {
        let entities = managedObjectModel?.entitiesByName ?? [:]
        let decoder = BinaryStoreDecoder(
            entitiesByName: entities,
            makeID: { [unowned self] entity, key in NSManagedObjectID(entity: entity, store: self, primaryKey: key) },
            resolveURI: { [coordinator = UnretainedBox(persistentStoreCoordinator)] uri in
                coordinator.object?.managedObjectID(forURIRepresentation: uri)
            },
            reverseTransform: { value, attribute in
                // Files written before transformables were always stored as Data hold the value itself.
                guard let data = value as? Data else { return value }
                return TransformableValueCoding.loadedValue(data, attribute: TransformableValueCoding.label(attribute),
                                                            transformerName: attribute.valueTransformerName)
            })
        return try translatingFormatErrors(data, url) {
            try decoder.decode(data) { metadata in
                // Adopt the file's UUID before any ID is made, so that no ID has to be re-minted.
                if let uuid = metadata[NSStoreUUIDKey] as? String { self.identifier = uuid }
            }
        }
    }

    open override func decodeMetadata(_ data: Data, from url: URL) throws -> [String: Any] {
        try translatingFormatErrors(data, url) { try BinaryStoreDecoder.metadata(of: data) }
    }

    open override func encodeContents(_ contents: AtomicStoreContents) throws -> Data {
        let model = managedObjectModel
        let entities = model.map { $0.entities(forConfigurationName: configurationName) ?? $0.entities } ?? []
        do {
            var encoder = BinaryStoreEncoder(storeIdentifier: identifier)
            encoder.transform = { value, attribute in
                do {
                    return try TransformableValueCoding.storedData(value, attribute: TransformableValueCoding.label(attribute),
                                                                   transformerName: attribute.valueTransformerName)
                } catch let error as TransformableValueError {
                    throw BinaryStoreValueError(entity: "", property: "", reason: error.description)
                }
            }
            return try encoder.encode(contents, entities: entities)
        } catch let error as BinaryStoreValueError {
            throw PersistentStoreErrors.make(
                NSPersistentStoreSaveError,
                "Can't save attribute '\(error.property)' of entity '\(error.entity)' in the \(PersistentStoreErrors.name(of: self)): \(error.reason).",
                stores: [self], url: url)
        }
    }

    /// Runs `body`, turning the format's errors into Core Data's errors naming the file.
    private func translatingFormatErrors<T>(_ data: Data, _ url: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as BinaryStoreFormatError {
            switch error {
            case .notABinaryStore:
                throw AtomicFile.wrongTypeError(url, expected: type, found: AtomicFile.sniffStoreType(data))
            case .newerVersion(let version):
                throw AtomicFile.newerVersionError(url, storeType: type, version: "\(version)", supported: "\(BinaryStoreFormat.version)")
            case .truncated:
                throw AtomicFile.corruptFileError(url, storeType: type, reason: "the file ends too early", underlying: error)
            case .checksumMismatch:
                throw AtomicFile.corruptFileError(url, storeType: type, reason: "the checksum does not match the contents", underlying: error)
            case .malformed(let reason):
                throw AtomicFile.corruptFileError(url, storeType: type, reason: reason, underlying: error)
            }
        }
    }
}
