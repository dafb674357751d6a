import Foundation
import Testing
@testable import OpenCoreData

@Suite("Context change notifications")
struct ContextNotificationTests {
    @Test func namesAndKeysAreCoreDatas() {
        #expect(Notification.Name.NSManagedObjectContextObjectsDidChange.rawValue == "NSObjectsChangedInManagingContextNotification")
        #expect(NSManagedObjectContext.didSaveObjectsNotification.rawValue == "NSManagingContextDidSaveChangesNotification")
        #expect(NSManagedObjectContext.willSaveObjectsNotification.rawValue == "NSManagingContextWillSaveChangesNotification")
        #expect([NSInsertedObjectsKey, NSUpdatedObjectsKey, NSDeletedObjectsKey, NSRefreshedObjectsKey, NSInvalidatedObjectsKey]
                == ["inserted", "updated", "deleted", "refreshed", "invalidated"])
    }

    @Test func objectsDidChangeCarriesExactlyTheEventsObjects() throws {
        let context = GraphTestModel.context()
        let recorder = NotificationRecorder([.NSManagedObjectContextObjectsDidChange], object: context)
        let saved = GraphTestModel.insert("Run", context)
        let doomed = GraphTestModel.insert("Run", context)
        try context.markAsSavedForTests([saved, doomed])
        context.processPendingChanges()
        #expect(recorder.notifications.count == 1)
        #expect(recorder.notifications[0].userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> == [saved, doomed])
        #expect(recorder.notifications[0].userInfo?.count == 1)

        let fresh = GraphTestModel.insert("Run", context)
        saved.setValue(Int32(3), forKey: "processID")
        context.delete(doomed)
        context.processPendingChanges()
        #expect(recorder.notifications.count == 2)
        let info = recorder.notifications[1].userInfo ?? [:]
        #expect(info[NSInsertedObjectsKey] as? Set<NSManagedObject> == [fresh])
        #expect(info[NSUpdatedObjectsKey] as? Set<NSManagedObject> == [saved])
        #expect(info[NSDeletedObjectsKey] as? Set<NSManagedObject> == [doomed])
        #expect(info.count == 3)
        #expect(recorder.notifications[1].object as? NSManagedObjectContext === context)

        context.processPendingChanges()
        #expect(recorder.notifications.count == 2)
    }

    /// An inserted object changed in the event that inserted it is only inserted; changed in a
    /// later event, the notification reports it updated while `updatedObjects` leaves it out
    /// (it is still unsaved), as Apple does; after a save, a change makes it updated.
    @Test func aChangedInsertedObjectIsReportedByEvent() throws {
        let context = GraphTestModel.context()
        let recorder = NotificationRecorder([.NSManagedObjectContextObjectsDidChange], object: context)
        let run = GraphTestModel.insert("Run", context)
        run.setValue(Int32(1), forKey: "processID")
        context.processPendingChanges()
        #expect(recorder.notifications.last?.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> == [run])
        #expect(recorder.notifications.last?.userInfo?[NSUpdatedObjectsKey] == nil)
        #expect(context.insertedObjects == [run] && context.updatedObjects.isEmpty)

        run.setValue(Int32(2), forKey: "processID")
        context.processPendingChanges()
        #expect(recorder.notifications.last?.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> == [run])
        #expect(context.insertedObjects == [run] && context.updatedObjects.isEmpty)

        try context.markAsSavedForTests([run])
        run.setValue(Int32(3), forKey: "processID")
        #expect(context.insertedObjects.isEmpty && context.updatedObjects == [run])
    }

    @Test func resetInvalidatesEverything() {
        let context = GraphTestModel.context()
        let run = GraphTestModel.insert("Run", context)
        let recorder = NotificationRecorder([.NSManagedObjectContextObjectsDidChange], object: context)
        context.reset()
        #expect(recorder.notifications.first?.userInfo?[NSInvalidatedAllObjectsKey] as? [NSManagedObjectID] == [run.objectID])
        #expect(run.managedObjectContext == nil)
        #expect(context.registeredObjects.isEmpty && !context.hasChanges)
    }
}
