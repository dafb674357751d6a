import Foundation

/// The methods a fetched results controller calls when its results change.
///
/// Every method is optional as on Apple platforms: a protocol extension supplies empty
/// defaults (and the default section index title). The controller passes itself typed
/// `NSFetchedResultsController<NSFetchRequestResult>`, Apple's Swift spelling.
///
/// Differences from Apple:
/// - Swift on Linux has no `@objc optional` requirements, so the controller can't ask whether
///   the delegate implements ``controller(_:didChangeContentWith:)``. It calls that method
///   first for a controller without sections; the default implementation marks the event
///   as unhandled, and only then are the per-object and per-section callbacks (between
///   ``controllerWillChangeContent(_:)`` and ``controllerDidChangeContent(_:)``) sent. So a
///   delegate that implements it gets the difference and nothing else, as on Apple.
/// - With a `sectionNameKeyPath`, Apple never calls the difference method; here the
///   per-object and per-section callbacks are then sent even when the delegate implements it
///   (Apple sends nothing else; we can't tell that it is implemented without calling it).
/// - The snapshot variant (`NSDiffableDataSourceSnapshot`) belongs to UIKit and is absent.
/// - When the controller is not typed `NSFetchedResultsController<NSFetchRequestResult>`, the
///   callbacks receive a view of it of that type sharing its state: `==` (`isEqual`) with the
///   typed controller holds, `===` does not.
public protocol NSFetchedResultsControllerDelegate: NSObjectProtocol {
    /// The controller is about to report changes (before the first per-object or per-section
    /// callback of a change event).
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// An object was inserted, deleted, moved or updated. `indexPath` is its path in the old
    /// arrangement (nil for an insert), `newIndexPath` its path in the new one (nil for a
    /// delete).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)

    /// A section was inserted (index in the new arrangement) or deleted (index in the old one).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)

    /// The controller has reported every change of the event.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// The index title of a section; the default is the controller's
    /// ``NSFetchedResultsController/sectionIndexTitle(forSectionName:)``.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String?

    /// The change of the fetched objects' IDs as one collection difference (removals at old
    /// offsets, insertions at new ones, moves associated). Implementing it suppresses every
    /// other change callback. Only sent by controllers without a `sectionNameKeyPath`.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}

extension NSFetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                           at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {}

    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                           atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {}

    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        controller.sectionIndexTitle(forSectionName: sectionName)
    }

    /// Not implemented by the delegate: records that the change event still has to be
    /// reported through the per-object callbacks.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        controller.state.differenceUnhandled = true
    }
}
