import Foundation

extension NSManagedObjectContext {
    /// The results of `request` in this context as an asynchronous sequence: first the current
    /// results, then one element after every change of them.
    ///
    /// Beyond Apple. Each iterator runs its own ``NSFetchedResultsController`` on this
    /// context's queue, so the elements follow the same changes a controller's delegate hears
    /// (this context's own changes at `processPendingChanges()`, merged saves, parent saves,
    /// objects entering and leaving the predicate). The request is copied here; later changes
    /// to it don't affect the sequence. See ``FetchedResultsSequence``.
    public func changes<ResultType>(for request: NSFetchRequest<ResultType>, sectionNameKeyPath: String? = nil,
                                    bufferingPolicy: FetchedResultsSequence.BufferingPolicy = .unbounded) -> FetchedResultsSequence {
        FetchedResultsSequence(context: self, request: request, sectionNameKeyPath: sectionNameKeyPath,
                               bufferingPolicy: bufferingPolicy)
    }
}

/// An `AsyncSequence` of a fetch request's results and their changes, as
/// ``FetchedResultsSnapshot`` values (object IDs in sections and the changes since the
/// previous element). Made by ``NSManagedObjectContext/changes(for:sectionNameKeyPath:bufferingPolicy:)``.
///
/// Beyond Apple. Every iterator creates, on the context's queue, a fetched results controller
/// whose first fetch gives the first element; after each change event of the controller
/// (after its `controllerDidChangeContent`) the iterator yields the next element. Errors of
/// the first fetch (a request without sort descriptors, a section key path the objects are
/// not sorted by, a store error) and a request whose `resultType` is not
/// `.managedObjectResultType` (the only kind a controller tracks) are thrown by `next()`.
///
/// Objects inserted and not yet saved have temporary IDs; when the context saves them, the
/// sequence yields the results again, without changes, with their permanent IDs.
///
/// The sequence never ends by itself. Cancelling the task iterating it, or discarding the
/// iterator, ends it: the controller and its observation of the context are released on the
/// context's queue.
///
/// Elements wait in an `AsyncThrowingStream` buffer with the given buffering policy. The
/// default, `.unbounded`, keeps every element until it is consumed, so each element's
/// `changes` lead from the element before it. With `.bufferingNewest(n)` a slow consumer
/// skips elements: every element still has the complete current results, but its
/// `changes` are relative to the element produced before it, which may have been dropped.
public struct FetchedResultsSequence: AsyncSequence, Sendable {
    public typealias Element = FetchedResultsSnapshot
    public typealias Failure = any Error
    public typealias BufferingPolicy = AsyncThrowingStream<FetchedResultsSnapshot, any Error>.Continuation.BufferingPolicy

    let context: NSManagedObjectContext
    let request: RequestCopy
    let sectionNameKeyPath: String?
    let bufferingPolicy: BufferingPolicy

    /// A private copy of the fetch request. `@unchecked Sendable`: it is never changed after
    /// it is made and only read on the context's queue (by the controllers' fetches).
    final class RequestCopy: @unchecked Sendable {
        let request = NSFetchRequest<NSFetchRequestResult>()
        init<ResultType>(_ original: NSFetchRequest<ResultType>) { request.copySettings(from: original) }
    }

    init<ResultType>(context: NSManagedObjectContext, request: NSFetchRequest<ResultType>, sectionNameKeyPath: String?,
                     bufferingPolicy: BufferingPolicy) {
        self.context = context
        self.request = RequestCopy(request)
        self.sectionNameKeyPath = sectionNameKeyPath
        self.bufferingPolicy = bufferingPolicy
    }

    /// Starts following the results: a new controller on the context's queue.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: FetchedResultsSnapshot.self, bufferingPolicy: bufferingPolicy)
        let observation = FetchedResultsObservation(continuation: continuation)
        continuation.onTermination = { [context] _ in
            context.perform { observation.stop() }
        }
        context.perform { [context, request, sectionNameKeyPath] in
            observation.start(request.request, in: context, sectionNameKeyPath: sectionNameKeyPath)
        }
        return Iterator(base: stream.makeAsyncIterator(), observation: observation)
    }

    /// Gives the elements of a ``FetchedResultsSequence``.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<FetchedResultsSnapshot, any Error>.Iterator
        /// The observation behind this iterator.
        let observation: FetchedResultsObservation

        /// Whether the sequence ended (returned nil or threw); `AsyncThrowingStream` may throw
        /// its error again to a later `next()`.
        var ended = false

        /// The next element: the first results, then the results after the next change; nil
        /// once the consuming task is cancelled, and after the sequence ended or threw.
        public mutating func next() async throws -> FetchedResultsSnapshot? {
            guard !ended else { return nil }
            do {
                guard let element = try await base.next() else {
                    ended = true
                    return nil
                }
                return element
            } catch {
                ended = true
                throw error
            }
        }
    }
}

/// The controller behind one iterator of a ``FetchedResultsSequence`` and its delegate, which
/// turns each change event into a ``FetchedResultsSnapshot``.
///
/// `@unchecked Sendable`: its mutable state (`controller`, the changes being collected,
/// `stopped`) is only touched on the context's queue — `start` and `stop` run in
/// `context.perform`, and the controller calls the delegate methods there; the continuation
/// is `Sendable`.
final class FetchedResultsObservation: NSObject, NSFetchedResultsControllerDelegate, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<FetchedResultsSnapshot, any Error>.Continuation
    /// The controller while the sequence is followed; nil before `start` and after `stop`.
    private(set) var controller: NSFetchedResultsController<NSFetchRequestResult>?
    private var changes: [FetchedResultsSnapshot.Change] = []
    private var sectionChanges: [FetchedResultsSnapshot.SectionChange] = []
    private var stopped = false
    /// Whether the last element had temporary object IDs (objects inserted and not saved).
    private var yieldedTemporaryIDs = false
    private var saveObserver: (any NSObjectProtocol)?

    init(continuation: AsyncThrowingStream<FetchedResultsSnapshot, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// Creates the controller, fetches, and yields the first element (or finishes with the
    /// fetch's error).
    func start(_ request: NSFetchRequest<NSFetchRequestResult>, in context: NSManagedObjectContext, sectionNameKeyPath: String?) {
        guard !stopped else { return }
        guard request.resultType == .managedObjectResultType else {
            continuation.finish(throwing: FetchedResultsState.error(
                "NSManagedObjectContext.changes(for:) follows managed object results only (the request's resultType is \(request.resultType.rawValue))"))
            return
        }
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: sectionNameKeyPath, cacheName: nil)
        controller.delegate = self
        do {
            try controller.performFetch()
        } catch {
            continuation.finish(throwing: error)
            return
        }
        self.controller = controller
        saveObserver = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { [weak self] _ in
            self?.contextDidSave()
        }
        continuation.yield(snapshot())
    }

    /// After a save made the temporary IDs of the last element permanent, yields the results
    /// again (no changes) with the permanent IDs.
    private func contextDidSave() {
        guard !stopped, controller != nil, yieldedTemporaryIDs else { return }
        continuation.yield(snapshot())
    }

    /// Releases the controller (ending its observation of the context) and ends the stream.
    func stop() {
        stopped = true
        controller?.delegate = nil
        controller = nil
        if let saveObserver { NotificationCenter.default.removeObserver(saveObserver) }
        saveObserver = nil
        continuation.finish()
    }

    private func snapshot() -> FetchedResultsSnapshot {
        let sections = (controller?.sections ?? []).map { section in
            FetchedResultsSnapshot.Section(name: section.name, indexTitle: section.indexTitle,
                                           objectIDs: (section.objects ?? []).compactMap { ($0 as? NSManagedObject)?.objectID })
        }
        defer { changes = []; sectionChanges = [] }
        yieldedTemporaryIDs = sections.contains { $0.objectIDs.contains(where: \.isTemporaryID) }
        return FetchedResultsSnapshot(sections: sections, changes: changes, sectionChanges: sectionChanges)
    }

    // MARK: NSFetchedResultsControllerDelegate

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        changes = []
        sectionChanges = []
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard let object = anObject as? NSManagedObject else { return }
        changes.append(FetchedResultsSnapshot.Change(objectID: object.objectID, type: type, indexPath: indexPath, newIndexPath: newIndexPath))
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        sectionChanges.append(FetchedResultsSnapshot.SectionChange(name: sectionInfo.name, index: sectionIndex, type: type))
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        guard !stopped else { return }
        continuation.yield(snapshot())
    }
}
