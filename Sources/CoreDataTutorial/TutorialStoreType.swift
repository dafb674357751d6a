import ArgumentParser
import OpenCoreData

/// The store types the tutorial can use, as spelled on its command line.
public enum TutorialStoreType: String, CaseIterable, ExpressibleByArgument, Sendable {
    case sqlite, xml, binary, memory

    /// Core Data's store type string.
    public var storeType: String {
        switch self {
        case .sqlite: return NSSQLiteStoreType
        case .xml: return NSXMLStoreType
        case .binary: return NSBinaryStoreType
        case .memory: return NSInMemoryStoreType
        }
    }

    /// The store's file name in the tutorial's folder (`nil` for the in-memory store).
    public func fileName(base: String) -> String? {
        switch self {
        case .sqlite: return "\(base).sqlite"
        case .xml: return "\(base).xml"
        case .binary: return "\(base).binary"
        case .memory: return nil
        }
    }

    /// The description of the store for `base` in `directory`; the in-memory store has
    /// `/dev/null` as its URL, as Apple recommends.
    public func storeDescription(base: String, directory: URL) -> NSPersistentStoreDescription {
        let url = fileName(base: base).map { directory.appendingPathComponent($0) }
            ?? URL(fileURLWithPath: "/dev/null")
        let description = NSPersistentStoreDescription(url: url)
        description.type = storeType
        return description
    }
}

/// Why the tutorial stopped. Each case's description is the message it prints.
public enum TutorialError: Error, CustomStringConvertible, Sendable {
    /// The store could not be opened (an unavailable store type, an unreadable file).
    case storeUnavailable(type: TutorialStoreType, location: String, reason: String)
    /// The save was refused, typically by validation; `message` is the localized description.
    case saveFailed(message: String)
    /// The fetch failed.
    case fetchFailed(message: String)

    public var description: String {
        switch self {
        case .storeUnavailable(let type, let location, let reason):
            return "Cannot open the \(type.rawValue) store at \(location): \(reason)"
        case .saveFailed(let message):
            return "Error while saving: \(message)"
        case .fetchFailed(let message):
            return "Error while fetching: \(message)"
        }
    }
}

extension NSPersistentContainer {
    /// Loads the container's stores, throwing the first failure as a ``TutorialError``.
    func loadStoresForTutorial(_ type: TutorialStoreType) throws {
        var failure: TutorialError?
        loadPersistentStores { description, error in
            if let error, failure == nil {
                failure = .storeUnavailable(
                    type: type, location: description.url?.path ?? "?",
                    reason: (error as NSError).localizedDescription)
            }
        }
        if let failure { throw failure }
    }
}
