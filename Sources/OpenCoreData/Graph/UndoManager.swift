/// A general-purpose recorder of operations, for undo and redo.
///
/// swift-corelibs-foundation has no `UndoManager`; this is Foundation's API for the parts that do
/// not need the Objective-C runtime (`prepare(withInvocationTarget:)` and selector-based
/// registration do not exist; use ``registerUndo(withTarget:handler:)``).
///
/// Differences from Apple:
/// - There is no run loop, so nothing closes an event group behind your back. With
///   ``groupsByEvent`` (the default), the first registration outside any group opens a top-level
///   group; ``undo()``, ``endUndoGrouping()`` or ``closeEventGroup()`` closes it. A managed object
///   context calls ``closeEventGroup()`` at the end of each `processPendingChanges()`.
/// - Misuse that Apple reports by raising (ending a group that was never begun, undoing inside a
///   nested group) traps with a message naming the problem.
///
/// Not thread-safe, like Apple's: use one undo manager from one thread or queue at a time.
open class UndoManager: NSObject, @unchecked Sendable {
    /// One recorded operation.
    private struct Action {
        let target: AnyObject
        let handler: (AnyObject) -> Void
    }

    /// A group of operations and nested groups, undone as a unit.
    private final class Group {
        enum Item {
            case action(Action)
            case group(Group)
        }
        var items: [Item] = []
        var actionName = ""
        var isDiscardable = false
        /// Whether this top-level group was opened implicitly by `groupsByEvent`.
        var isEventGroup = false

        var isEmpty: Bool {
            items.allSatisfy { item in
                if case .group(let group) = item { return group.isEmpty }
                return false
            }
        }

        func removeActions(withTarget target: AnyObject) {
            items = items.compactMap { item in
                switch item {
                case .action(let action):
                    return action.target === target ? nil : item
                case .group(let group):
                    group.removeActions(withTarget: target)
                    return group.isEmpty ? nil : item
                }
            }
        }
    }

    private enum State { case idle, undoing, redoing }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The groups being built, outermost first.
    private var openGroups: [Group] = []
    private var state: State = .idle
    private var disableCount = 0

    /// Whether the first registration outside a group opens a top-level group. Defaults to `true`.
    open var groupsByEvent = true

    /// The maximum number of top-level undo groups kept; 0, the default, means no limit.
    open var levelsOfUndo = 0 {
        didSet { trimUndoStack() }
    }

    /// The run-loop modes Apple uses to close event groups. Kept for source compatibility only:
    /// there is no run loop here.
    open var runLoopModes: [RunLoop.Mode] = [.default]

    public override init() {
        super.init()
    }

    // MARK: Registering

    /// Records a closure that undoes an operation on `target`.
    ///
    /// While undoing, the registration goes to the redo stack; while redoing, to the undo stack.
    /// A registration made outside undo and redo clears the redo stack, as Apple's does.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if openGroups.isEmpty {
            precondition(groupsByEvent, "UndoManager: registerUndo(withTarget:handler:) was called outside an undo group while groupsByEvent is false; call beginUndoGrouping() first")
            beginUndoGrouping()
            openGroups[0].isEventGroup = true
        }
        if state == .idle { redoStack.removeAll() }
        let action = Action(target: target) { handler($0 as! TargetType) }
        openGroups[openGroups.count - 1].items.append(.action(action))
    }

    /// Removes every recorded operation on `target` from both stacks.
    open func removeAllActions(withTarget target: AnyObject) {
        for group in undoStack + redoStack + openGroups { group.removeActions(withTarget: target) }
        undoStack.removeAll { $0.isEmpty }
        redoStack.removeAll { $0.isEmpty }
    }

    /// Empties both stacks and closes any open group.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
    }

    // MARK: Enabling and disabling

    /// Disables registration; calls nest and must be balanced by ``enableUndoRegistration()``.
    open func disableUndoRegistration() { disableCount += 1 }

    /// Re-enables registration after ``disableUndoRegistration()``.
    open func enableUndoRegistration() {
        precondition(disableCount > 0, "UndoManager: enableUndoRegistration() was called without a matching disableUndoRegistration()")
        disableCount -= 1
    }

    /// Whether operations are being recorded.
    open var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    // MARK: Grouping

    /// Opens a group; operations registered until the matching ``endUndoGrouping()`` undo together.
    open func beginUndoGrouping() {
        openGroups.append(Group())
        post(.NSUndoManagerDidOpenUndoGroup)
    }

    /// Closes the innermost open group.
    open func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "UndoManager: endUndoGrouping() was called without a matching beginUndoGrouping()")
        post(.NSUndoManagerWillCloseUndoGroup)
        let group = openGroups.removeLast()
        if let parent = openGroups.last {
            if !group.isEmpty { parent.items.append(.group(group)) }
        } else if !group.isEmpty {
            switch state {
            case .undoing: redoStack.append(group)
            case .idle, .redoing:
                undoStack.append(group)
                trimUndoStack()
            }
        }
        post(.NSUndoManagerDidCloseUndoGroup)
    }

    /// Closes the top-level group that ``groupsByEvent`` opened, if one is open: the end of an event.
    ///
    /// Not in Apple's API, where the run loop does this.
    open func closeEventGroup() {
        guard openGroups.count == 1, openGroups[0].isEventGroup else { return }
        endUndoGrouping()
        post(.NSUndoManagerCheckpoint)
    }

    /// How many groups are open.
    open var groupingLevel: Int { openGroups.count }

    // MARK: Undo and redo

    /// Closes the event group if one is open, then undoes the last top-level group.
    open func undo() {
        closeEventGroup()
        precondition(openGroups.isEmpty, "UndoManager: undo() was called with \(openGroups.count) undo group(s) still open; close them with endUndoGrouping() first")
        undoNestedGroup()
    }

    /// Undoes the last group on the undo stack, registering its inverse on the redo stack.
    open func undoNestedGroup() {
        precondition(openGroups.isEmpty, "UndoManager: undoNestedGroup() was called inside an open undo group")
        guard let group = undoStack.popLast() else { return }
        post(.NSUndoManagerWillUndoChange)
        replay(group, as: .undoing)
        post(.NSUndoManagerDidUndoChange)
    }

    /// Redoes the last undone group.
    open func redo() {
        closeEventGroup()
        precondition(openGroups.isEmpty, "UndoManager: redo() was called with \(openGroups.count) undo group(s) still open")
        guard let group = redoStack.popLast() else { return }
        post(.NSUndoManagerWillRedoChange)
        replay(group, as: .redoing)
        post(.NSUndoManagerDidRedoChange)
    }

    /// Runs a group's actions in reverse order inside a fresh group that collects their inverses.
    private func replay(_ group: Group, as newState: State) {
        let previous = state
        state = newState
        defer { state = previous }
        beginUndoGrouping()
        openGroups[openGroups.count - 1].actionName = group.actionName
        run(group)
        endUndoGrouping()
    }

    private func run(_ group: Group) {
        for item in group.items.reversed() {
            switch item {
            case .action(let action): action.handler(action.target)
            case .group(let nested): run(nested)
            }
        }
    }

    private func trimUndoStack() {
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo {
            undoStack.removeFirst(undoStack.count - levelsOfUndo)
        }
    }

    /// Whether there is something to undo (an open non-empty event group counts).
    open var canUndo: Bool {
        !undoStack.isEmpty || (openGroups.count == 1 && openGroups[0].isEventGroup && !openGroups[0].isEmpty)
    }

    /// Whether there is something to redo.
    open var canRedo: Bool { !redoStack.isEmpty }

    /// Whether an undo is running.
    open var isUndoing: Bool { state == .undoing }

    /// Whether a redo is running.
    open var isRedoing: Bool { state == .redoing }

    /// The number of top-level groups that can be undone.
    open var undoCount: Int { undoStack.count + (canUndo && undoStack.isEmpty ? 1 : 0) }

    /// The number of top-level groups that can be redone.
    open var redoCount: Int { redoStack.count }

    // MARK: Action names

    /// Names the group being recorded (or replayed), for menus.
    open func setActionName(_ actionName: String) {
        (openGroups.last ?? undoStack.last)?.actionName = actionName
    }

    /// Marks the group being recorded as discardable.
    open func setActionIsDiscardable(_ discardable: Bool) {
        (openGroups.last ?? undoStack.last)?.isDiscardable = discardable
    }

    /// The name of the group ``undo()`` would undo.
    open var undoActionName: String { (openGroups.first ?? undoStack.last)?.actionName ?? "" }

    /// The name of the group ``redo()`` would redo.
    open var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// Whether the group ``undo()`` would undo is discardable.
    open var undoActionIsDiscardable: Bool { undoStack.last?.isDiscardable ?? false }

    /// Whether the group ``redo()`` would redo is discardable.
    open var redoActionIsDiscardable: Bool { redoStack.last?.isDiscardable ?? false }

    /// "Undo" followed by the action name.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

    /// "Redo" followed by the action name.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// The menu title for undoing an action of this name.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// The menu title for redoing an action of this name.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    // MARK: Notifications

    private func post(_ name: Notification.Name) {
        NotificationCenter.default.post(name: name, object: self)
    }
}

extension Notification.Name {
    /// Posted when an event group closes.
    public static let NSUndoManagerCheckpoint = Notification.Name("NSUndoManagerCheckpointNotification")
    /// Posted before an undo runs.
    public static let NSUndoManagerWillUndoChange = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted after an undo ran.
    public static let NSUndoManagerDidUndoChange = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted before a redo runs.
    public static let NSUndoManagerWillRedoChange = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted after a redo ran.
    public static let NSUndoManagerDidRedoChange = Notification.Name("NSUndoManagerDidRedoChangeNotification")
    /// Posted when a group opens.
    public static let NSUndoManagerDidOpenUndoGroup = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before a group closes.
    public static let NSUndoManagerWillCloseUndoGroup = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after a group closed.
    public static let NSUndoManagerDidCloseUndoGroup = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
}

extension UndoManager {
    /// Posted when an event group closes (Apple's newer spelling).
    public static let checkpointNotification = Notification.Name.NSUndoManagerCheckpoint
    /// Posted before an undo runs.
    public static let willUndoChangeNotification = Notification.Name.NSUndoManagerWillUndoChange
    /// Posted after an undo ran.
    public static let didUndoChangeNotification = Notification.Name.NSUndoManagerDidUndoChange
    /// Posted before a redo runs.
    public static let willRedoChangeNotification = Notification.Name.NSUndoManagerWillRedoChange
    /// Posted after a redo ran.
    public static let didRedoChangeNotification = Notification.Name.NSUndoManagerDidRedoChange
    /// Posted when a group opens.
    public static let didOpenUndoGroupNotification = Notification.Name.NSUndoManagerDidOpenUndoGroup
    /// Posted before a group closes.
    public static let willCloseUndoGroupNotification = Notification.Name.NSUndoManagerWillCloseUndoGroup
    /// Posted after a group closed.
    public static let didCloseUndoGroupNotification = Notification.Name.NSUndoManagerDidCloseUndoGroup
}
