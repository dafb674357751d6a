import Foundation

/// An atomic store kept in one file: the part the XML and binary stores share.
///
/// Subclasses override `storeType`, ``decodeContents(_:from:)`` and
/// ``encodeContents(_:)`` (and may override ``decodeMetadata(_:from:)`` to read only the
/// header). This class does the rest with ``AtomicFile``:
/// - ``loadRows()`` reads the file (`nil` when there is none: a new store) and remembers its
///   fingerprint; opened for writing, it first deletes the temporaries killed writes left
///   beside the file (``AtomicFile/removeStaleTemporaries(of:)``);
/// - ``writeRows(_:)`` writes it atomically (temporary file, `fsync`, rename) and remembers the
///   new fingerprint;
/// - ``reloadIfChangedElsewhere()`` reads the file again when another coordinator saved into
///   it, so that a save finds per-object conflicts (row versions) against that coordinator's
///   changes, which a merge policy can resolve; new rows whose keys the other coordinator used
///   too refuse the save with `NSManagedObjectMergeError` (133020) naming the file;
/// - ``checkStoreUnchanged()`` throws `NSManagedObjectMergeError` (133020) when the file is no
///   longer the one this store loaded or last wrote: two coordinators on one file never
///   silently overwrite each other's saves.
///
/// A decoder that throws something other than a Cocoa-domain `NSError` has its error wrapped in
/// `NSFileReadCorruptFileError` (259) naming the file. Not in Apple's API (Apple's file stores
/// subclass `NSAtomicStore` directly).
open class AtomicFileStore: AtomicStore, @unchecked Sendable {
    /// The fingerprint of the file as this store last read or wrote it; `nil` before that or
    /// when the store had no file yet. Change it only under ``lock``.
    var knownFingerprint: AtomicFile.Fingerprint?

    /// Turns the bytes of the file at `url` into the store's contents. Throw the
    /// ``AtomicFile`` errors: ``AtomicFile/wrongTypeError(_:expected:found:)``,
    /// ``AtomicFile/corruptFileError(_:storeType:reason:underlying:)``,
    /// ``AtomicFile/newerVersionError(_:storeType:version:supported:)``. Never trap on bad input.
    open func decodeContents(_ data: Data, from url: URL) throws -> AtomicStoreContents {
        throw AtomicFile.wrongTypeError(url, expected: type, found: nil)
    }

    /// Turns the store's contents into the bytes of its file.
    open func encodeContents(_ contents: AtomicStoreContents) throws -> Data {
        throw PersistentStoreErrors.make(NSPersistentStoreSaveError, "The \(type) store can't be written.", stores: [self], url: url)
    }

    /// Reads only the metadata from the file's bytes. The default decodes everything.
    open func decodeMetadata(_ data: Data, from url: URL) throws -> [String: Any] {
        try decodeContents(data, from: url).metadata
    }

    open override func loadRows() throws -> AtomicStoreContents? {
        guard let url else { return nil }
        lock.lock()
        defer { lock.unlock() }
        // A write killed mid-way left its temporary beside the file: delete it (never in a
        // read-only store, which writes nothing).
        if !isReadOnly { AtomicFile.removeStaleTemporaries(of: url) }
        guard let (data, fingerprint) = try AtomicFile.read(url, storeType: type) else {
            knownFingerprint = nil
            return nil
        }
        let contents = try decoding(url) { try decodeContents(data, from: url) }
        knownFingerprint = fingerprint
        return contents
    }

    open override func loadStoredMetadata() throws -> [String: Any]? {
        guard let url, let (data, _) = try AtomicFile.read(url, storeType: type) else { return nil }
        return try decoding(url) { try decodeMetadata(data, from: url) }
    }

    open override func writeRows(_ contents: AtomicStoreContents) throws {
        guard let url else { return }
        let data = try encodeContents(contents)
        let fingerprint = try AtomicFile.write(data, to: url)
        lock.lock()
        knownFingerprint = fingerprint
        lock.unlock()
    }

    /// Reads the file again if its fingerprint is not the one this store last read or wrote.
    /// The rows become the file's; key counters never go back, and the store's metadata stays
    /// this store's. A file that is gone or belongs to another store (another UUID) throws
    /// `NSManagedObjectMergeError` (133020).
    open override func reloadIfChangedElsewhere() throws -> Bool {
        guard let url else { return false }
        lock.lock()
        defer { lock.unlock() }
        guard AtomicFile.fingerprint(of: url) != knownFingerprint else { return false }
        guard let (data, fingerprint) = try AtomicFile.read(url, storeType: type) else {
            throw AtomicFile.changedSinceLoadError(url, store: self)
        }
        var loaded = try decoding(url) { try decodeContents(data, from: url) }
        guard loaded.metadata[NSStoreUUIDKey] as? String == identifier else {
            throw AtomicFile.changedSinceLoadError(url, store: self)
        }
        loaded.raiseKeyCountersToRows()
        for (root, last) in contents.lastPrimaryKeys where last > loaded.lastPrimaryKeys[root] ?? 0 {
            loaded.lastPrimaryKeys[root] = last
        }
        loaded.metadata = contents.metadata
        carryVersions(into: &loaded)
        contents = loaded
        knownFingerprint = fingerprint
        return true
    }

    /// Gives the rows read again versions that follow the ones this store knew, for formats
    /// that keep none (Apple's XML): a row whose values did not change keeps its version, a
    /// changed one gets at least the next.
    private func carryVersions(into loaded: inout AtomicStoreContents) {
        for (entityName, rows) in loaded.rows {
            for (key, row) in rows {
                guard let old = contents.rows[entityName]?[key] else { continue }
                let properties = row.objectID.entity.properties.filter { !$0.isTransient && !($0 is NSFetchedPropertyDescription) }
                let changed = properties.contains { ObjectSnapshot.valueChanged($0, from: old, to: row) }
                let version = changed ? max(row.version, old.version + 1) : max(row.version, old.version)
                loaded.rows[entityName]?[key]?.version = version
            }
        }
    }

    open override func checkStoreUnchanged() throws {
        guard let url else { return }
        lock.lock()
        defer { lock.unlock() }
        if AtomicFile.fingerprint(of: url) != knownFingerprint {
            throw AtomicFile.changedSinceLoadError(url, store: self)
        }
    }

    /// Runs a decoder, wrapping anything but a Cocoa-domain error as a corrupt file.
    private func decoding<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw AtomicFile.corruptFileError(url, storeType: type, reason: "\(error)", underlying: error)
        }
    }
}
