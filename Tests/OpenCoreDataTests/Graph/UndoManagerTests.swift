import Testing
@testable import OpenCoreData

/// A mutable model object whose changes register their own undo.
private final class Counter {
    var value = 0
    let undoManager: UndoManager
    init(_ undoManager: UndoManager) { self.undoManager = undoManager }

    func set(_ newValue: Int) {
        let old = value
        undoManager.registerUndo(withTarget: self) { $0.set(old) }
        value = newValue
    }
}

@Suite struct UndoManagerTests {
    @Test func undoAndRedoOneEventGroup() {
        let manager = UndoManager()
        let counter = Counter(manager)
        counter.set(1)
        counter.set(2)
        #expect(manager.groupingLevel == 1)
        #expect(manager.canUndo)
        manager.undo()  // closes the event group, undoes both changes
        #expect(counter.value == 0)
        #expect(manager.canRedo)
        #expect(!manager.canUndo)
        manager.redo()
        #expect(counter.value == 2)
        #expect(manager.canUndo)
        #expect(!manager.canRedo)
    }

    @Test func eventsAreSeparateLevels() {
        let manager = UndoManager()
        let counter = Counter(manager)
        counter.set(1)
        manager.closeEventGroup()
        counter.set(2)
        manager.closeEventGroup()
        #expect(manager.undoCount == 2)
        manager.undo()
        #expect(counter.value == 1)
        manager.undo()
        #expect(counter.value == 0)
        manager.redo()
        #expect(counter.value == 1)
    }

    @Test func newRegistrationClearsRedoStack() {
        let manager = UndoManager()
        let counter = Counter(manager)
        counter.set(1)
        manager.undo()
        #expect(manager.canRedo)
        counter.set(5)
        #expect(!manager.canRedo)
    }

    @Test func explicitNestedGroupsUndoAsOne() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = Counter(manager)
        manager.beginUndoGrouping()
        counter.set(1)
        manager.beginUndoGrouping()
        counter.set(2)
        #expect(manager.groupingLevel == 2)
        manager.endUndoGrouping()
        counter.set(3)
        manager.setActionName("Typing")
        manager.endUndoGrouping()
        #expect(manager.undoActionName == "Typing")
        #expect(manager.undoMenuItemTitle == "Undo Typing")
        manager.undo()
        #expect(counter.value == 0)
        #expect(manager.redoActionName == "Typing")
        #expect(manager.redoMenuItemTitle == "Redo Typing")
    }

    @Test func disabledRegistrationRecordsNothing() {
        let manager = UndoManager()
        let counter = Counter(manager)
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        counter.set(1)
        manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        counter.set(2)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        #expect(!manager.canUndo)
        counter.set(3)
        manager.undo()
        #expect(counter.value == 2)
    }

    @Test func levelsOfUndoDropsTheOldest() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let counter = Counter(manager)
        for value in 1...4 {
            counter.set(value)
            manager.closeEventGroup()
        }
        #expect(manager.undoCount == 2)
        manager.undo()
        manager.undo()
        manager.undo()  // nothing left
        #expect(counter.value == 2)
    }

    @Test func isUndoingAndIsRedoingDuringReplay() {
        let manager = UndoManager()
        var seen: [String] = []
        final class Box {}
        let box = Box()
        manager.registerUndo(withTarget: box) { _ in
            seen.append(manager.isUndoing ? "undoing" : "other")
            manager.registerUndo(withTarget: box) { _ in
                seen.append(manager.isRedoing ? "redoing" : "other")
            }
        }
        manager.undo()
        manager.redo()
        #expect(seen == ["undoing", "redoing"])
        #expect(!manager.isUndoing && !manager.isRedoing)
    }

    @Test func removeAllActionsWithTarget() {
        let manager = UndoManager()
        let a = Counter(manager), b = Counter(manager)
        a.set(1)
        b.set(1)
        manager.closeEventGroup()
        a.set(2)
        manager.closeEventGroup()
        manager.removeAllActions(withTarget: a)
        #expect(manager.undoCount == 1)
        manager.undo()
        #expect(a.value == 2 && b.value == 0)
        manager.removeAllActions()
        #expect(!manager.canUndo && !manager.canRedo)
    }

    @Test func postsNotificationsInOrder() {
        let manager = UndoManager()
        let counter = Counter(manager)
        final class Log: @unchecked Sendable { var names: [Notification.Name] = [] }
        let log = Log()
        let observed: [Notification.Name] = [
            UndoManager.didOpenUndoGroupNotification, UndoManager.willCloseUndoGroupNotification,
            UndoManager.didCloseUndoGroupNotification, UndoManager.checkpointNotification,
            UndoManager.willUndoChangeNotification, UndoManager.didUndoChangeNotification,
        ]
        let tokens = observed.map { name in
            NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { log.names.append($0.name) }
        }
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }
        counter.set(1)
        manager.undo()
        #expect(log.names == [
            .NSUndoManagerDidOpenUndoGroup, .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup,
            .NSUndoManagerCheckpoint, .NSUndoManagerWillUndoChange, .NSUndoManagerDidOpenUndoGroup,
            .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup, .NSUndoManagerDidUndoChange,
        ])
    }
}
