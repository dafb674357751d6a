import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file plumbing the atomic file stores (XML, binary) share: crash-safe writing, reading
/// with Core Data's errors, and a fingerprint to notice that another coordinator saved.
///
/// - ``write(_:to:)`` writes a temporary file in the destination's directory, `fsync`s it,
///   renames it over the destination and `fsync`s the directory (DESIGN decision 4): after a
///   crash the file is the old one or the new one, never a mix. A write killed mid-way leaves
///   its temporary behind; ``removeStaleTemporaries(of:)`` deletes such leftovers, and the file
///   stores call it whenever they open a store for writing.
/// - ``read(_:storeType:)`` returns the file's bytes and fingerprint, `nil` when there is no
///   file (a new store), and throws Core Data's errors naming the file.
/// - ``fingerprint(of:)`` identifies one version of a file (device, inode, size, modification
///   time). Every write renames a new inode into place, so a save by another coordinator always
///   changes it; a store compares it with the one it loaded or last wrote in
///   ``AtomicStore/checkStoreUnchanged()`` and throws ``changedSinceLoadError(_:store:)``.
/// - The error builders (`corruptFileError(_:storeType:reason:)`,
///   ``wrongTypeError(_:expected:found:)``, ``newerVersionError(_:storeType:version:supported:)``,
///   ``noSuchFileError(_:storeType:)``) give every file store the same codes and userInfo
///   (`NSFilePathErrorKey`, `NSURLErrorKey`, `NSStoreTypeKey`).
public enum AtomicFile {
    /// One version of a file on disk. Two fingerprints of the same path differ when the file
    /// was replaced or modified in between.
    public struct Fingerprint: Hashable, Sendable, CustomStringConvertible {
        public var device: UInt64
        public var inode: UInt64
        public var size: Int64
        /// Modification time in nanoseconds since 1970.
        public var modified: Int64

        public var description: String { "inode \(inode), \(size) bytes, modified \(modified) ns" }
    }

    /// The fingerprint of the file at `url`, or `nil` when there is none.
    public static func fingerprint(of url: URL) -> Fingerprint? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let seconds = Int64(info.st_mtimespec.tv_sec), nanoseconds = Int64(info.st_mtimespec.tv_nsec)
        #else
        let seconds = Int64(info.st_mtim.tv_sec), nanoseconds = Int64(info.st_mtim.tv_nsec)
        #endif
        return Fingerprint(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                           modified: seconds * 1_000_000_000 + nanoseconds)
    }

    /// Writes `data` to `url` atomically and durably: a temporary file in the same directory,
    /// `fsync`, `rename` over `url`, `fsync` of the directory. Returns the new file's
    /// fingerprint. Throws `NSFileWriteUnknownError` (512) naming the file, with the `errno`
    /// as underlying `NSPOSIXErrorDomain` error; the old file is then untouched.
    @discardableResult
    public static func write(_ data: Data, to url: URL) throws -> Fingerprint {
        let directory = url.deletingLastPathComponent()
        let (temporary, descriptor) = try createTemporary(for: url)
        var closed = false
        defer {
            if !closed { close(descriptor) }
        }
        do {
            try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc_write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw writeError(url, "write \(temporary.lastPathComponent)")
                    }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0 else { throw writeError(url, "fsync \(temporary.lastPathComponent)") }
            closed = true
            guard close(descriptor) == 0 else { throw writeError(url, "close \(temporary.lastPathComponent)") }
            guard rename(temporary.path, url.path) == 0 else { throw writeError(url, "rename the temporary file over it") }
        } catch {
            unlink(temporary.path)
            throw error
        }
        let directoryDescriptor = open(directory.path, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
        guard let result = fingerprint(of: url) else { throw writeError(url, "find the file after renaming it") }
        return result
    }

    /// Creates and opens a new temporary file for a write of `url`, named
    /// `.<file name>.<UUID>.tmp` in the same directory, and holds an exclusive `flock` on it
    /// until it is closed: ``removeStaleTemporaries(of:)`` only deletes temporaries nobody
    /// holds, that is those of a write whose process died. A temporary deleted by a cleaner
    /// between its creation and the lock (its link count is then 0) is replaced by a new one.
    private static func createTemporary(for url: URL) throws -> (URL, Int32) {
        let directory = url.deletingLastPathComponent()
        while true {
            let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw writeError(url, "create a temporary file in \(directory.path)") }
            var info = stat()
            if flock(descriptor, LOCK_EX) == 0, fstat(descriptor, &info) == 0, info.st_nlink > 0 { return (temporary, descriptor) }
            close(descriptor)
        }
    }

    /// Whether `name` is the name of one of ``write(_:to:)``'s temporaries for a file named
    /// `fileName`: exactly `.<fileName>.<UUID in upper case>.tmp`.
    static func isTemporaryName(_ name: String, of fileName: String) -> Bool {
        let prefix = ".\(fileName).", suffix = ".tmp"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return false }
        let middle = String(name.dropFirst(prefix.count).dropLast(suffix.count))
        return UUID(uuidString: middle)?.uuidString == middle
    }

    /// Deletes the temporaries that writes of `url` left behind when their process died
    /// mid-write (``write(_:to:)`` renames its temporary over the file, or deletes it on a
    /// failure, unless killed). Only files named exactly as ``write(_:to:)`` names them for
    /// this file (`isTemporaryName(_:of:)`) are candidates, and only those no live write
    /// holds locked are deleted; nothing else in the directory is touched. Best effort: a
    /// temporary that can't be deleted stays. Returns the names deleted.
    @discardableResult
    public static func removeStaleTemporaries(of url: URL) -> [String] {
        let directory = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where isTemporaryName(name, of: url.lastPathComponent) {
            let path = directory.appendingPathComponent(name).path
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                  flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }
            if unlink(path) == 0 { removed.append(name) }
        }
        return removed
    }

    /// The bytes and fingerprint of the store file at `url`, or `nil` when there is no file
    /// there (the store is new). An empty file is truncated: `NSFileReadCorruptFileError` (259).
    /// A path that is a directory or can't be read throws `NSFileReadNoPermissionError` (257)
    /// or `NSFileReadUnknownError` (256), naming the file.
    ///
    /// The fingerprint is taken before reading, so a save that lands while reading is
    /// noticed by the next save's check rather than missed.
    public static func read(_ url: URL, storeType: String) throws -> (data: Data, fingerprint: Fingerprint)? {
        guard let fingerprint = fingerprint(of: url) else { return nil }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw make(NSFileReadUnknownError, "The \(storeType) store at \(url.path) is a directory, not a file.", url, storeType)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let code = access(url.path, R_OK) == 0 ? NSFileReadUnknownError : NSFileReadNoPermissionError
            throw make(code, "The \(storeType) store at \(url.path) could not be read: \(error.localizedDescription)",
                       url, storeType, underlying: error)
        }
        if data.isEmpty { throw corruptFileError(url, storeType: storeType, reason: "the file is empty") }
        return (data, fingerprint)
    }

    /// The store type whose file `data` looks like (`NSSQLiteStoreType`, `NSXMLStoreType`,
    /// `NSBinaryStoreType` when it starts with ``binaryMagic``), or `nil`. File stores use it to
    /// tell "another store type's file" (134000) from "a corrupt file" (259).
    public static func sniffStoreType(_ data: Data) -> String? {
        if data.starts(with: Array("SQLite format 3\0".utf8)) { return NSSQLiteStoreType }
        if data.starts(with: binaryMagic) { return NSBinaryStoreType }
        let head = String(decoding: data.prefix(512), as: UTF8.self)
        if head.hasPrefix("<?xml") || head.hasPrefix("<!DOCTYPE") || head.hasPrefix("<database") {
            return head.contains("<database") || head.contains("CoreData.dtd") ? NSXMLStoreType : nil
        }
        return nil
    }

    /// The first bytes of a binary store file (`OCDBIN` + 0x00 0x01), owned by the binary store
    /// and kept here so every file store recognises it.
    public static let binaryMagic: [UInt8] = Array("OCDBIN".utf8) + [0, 1]

    // MARK: Errors

    /// `NSFileReadCorruptFileError` (259): the file at `url` is not a readable `storeType` store.
    public static func corruptFileError(_ url: URL, storeType: String, reason: String, underlying: Error? = nil) -> NSError {
        make(NSFileReadCorruptFileError, "The \(storeType) store file at \(url.path) is corrupt or truncated: \(reason).",
             url, storeType, underlying: underlying)
    }

    /// `NSPersistentStoreInvalidTypeError` (134000): the file at `url` is a `found` store (or
    /// of no known type when `nil`), not an `expected` one.
    public static func wrongTypeError(_ url: URL, expected: String, found: String?) -> NSError {
        let what = found.map { "a \($0) store" } ?? "not a store file"
        return make(NSPersistentStoreInvalidTypeError, "The file at \(url.path) is \(what), not a \(expected) store.",
                    url, expected, extra: found.map { ["NSFoundStoreType": $0] } ?? [:])
    }

    /// `NSPersistentStoreInvalidTypeError` (134000, "unknown store type/format/version"): the
    /// file was written by a newer version of the store format than this build reads.
    public static func newerVersionError(_ url: URL, storeType: String, version: String, supported: String) -> NSError {
        make(NSPersistentStoreInvalidTypeError,
             "The \(storeType) store at \(url.path) was written by a newer format version (\(version)); this build reads version \(supported).",
             url, storeType)
    }

    /// `NSFileReadNoSuchFileError` (260): there is no store file at `url`.
    public static func noSuchFileError(_ url: URL, storeType: String) -> NSError {
        make(NSFileReadNoSuchFileError, "There is no \(storeType) store at \(url.path).", url, storeType)
    }

    /// `NSManagedObjectMergeError` (133020): the file of `store` changed since it was loaded or
    /// last saved (another coordinator saved into it); this save would overwrite that one.
    public static func changedSinceLoadError(_ url: URL, store: NSPersistentStore) -> NSError {
        var error = make(NSManagedObjectMergeError,
                         "Could not merge changes: the \(store.type) store file at \(url.path) was changed by another coordinator since it was loaded; reopen the store to see its changes.",
                         url, store.type)
        var userInfo = error.userInfo
        userInfo[NSAffectedStoresErrorKey] = [store]
        userInfo[NSPersistentStoreSaveConflictsErrorKey] = [NSMergeConflict]()
        error = NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectMergeError, userInfo: userInfo)
        return error
    }

    private static func writeError(_ url: URL, _ step: String) -> NSError {
        let code = errno
        let posix = NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(code))])
        return make(NSFileWriteUnknownError, "Could not save the store file \(url.path): could not \(step) (\(String(cString: strerror(code)))).",
                    url, nil, underlying: posix)
    }

    private static func make(_ code: Int, _ description: String, _ url: URL, _ storeType: String?,
                             underlying: Error? = nil, extra: [String: Any] = [:]) -> NSError {
        var userInfo = extra
        userInfo[NSLocalizedDescriptionKey] = description
        userInfo[NSFilePathErrorKey] = url.path
        userInfo[NSURLErrorKey] = url
        if let storeType { userInfo[NSStoreTypeKey] = storeType }
        if let underlying { userInfo[NSUnderlyingErrorKey] = underlying }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: userInfo)
    }
}

/// `write(2)`, named apart from ``AtomicFile/write(_:to:)``.
private func Glibc_write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(descriptor, buffer, count)
    #elseif canImport(Musl)
    return Musl.write(descriptor, buffer, count)
    #else
    return Darwin.write(descriptor, buffer, count)
    #endif
}
