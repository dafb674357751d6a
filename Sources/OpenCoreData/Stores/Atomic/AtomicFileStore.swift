import Foundation

/// An atomic store kept in one file: the part the XML and binary stores share.
///
/// Subclasses override ``storeType``, ``decodeContents(_:from:)`` and
/// ``encodeContents(_:)`` (and may override ``decodeMetadata(_:from:)`` to read only the
/// header). This class does the rest with ``AtomicFile``:
/// - ``loadRows()`` reads the file (`nil` when there is none: a new store) and remembers its
///   fingerprint; opened for writing, it first deletes the temporaries killed writes left
///   beside the file (``AtomicFile/removeStaleTemporaries(of:)``);
/// - ``writeRows(_:)`` writes it atomically (temporary file, `fsync`, rename) and remembers the
///   new fingerprint;
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
