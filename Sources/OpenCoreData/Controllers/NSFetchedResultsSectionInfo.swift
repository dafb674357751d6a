/// One section of a fetched results controller: its name, index title and objects.
public protocol NSFetchedResultsSectionInfo {
    /// The section's name: the string value of the controller's `sectionNameKeyPath` shared
    /// by its objects.
    var name: String { get }
    /// The section's title in a section index.
    var indexTitle: String? { get }
    /// The number of objects in the section.
    var numberOfObjects: Int { get }
    /// The objects of the section, in the controller's order.
    var objects: [Any]? { get }
}

/// The controller's section value: a snapshot taken when the arrangement was computed.
struct FetchedResultsSection: NSFetchedResultsSectionInfo {
    var name: String
    var indexTitle: String?
    var members: [AnyObject]

    var numberOfObjects: Int { members.count }
    var objects: [Any]? { members }
}
