import Foundation
import Testing
@testable import OpenCoreData

/// ``NSPersistentStore/holds(_:origin:)``: which IDs name rows of a store, as every store checks
/// before reading or saving a row.
@Suite struct StoreHoldsIDTests {
    private func store(_ identifier: String) -> NSPersistentStore {
        let store = NSPersistentStore(type: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        store.identifier = identifier
        return store
    }

    @Test func ownTwinOtherTemporaryAndRenamedStores() {
        let identifier = "holds-\(UUID().uuidString)"
        let (own, twin, other) = (store(identifier), store(identifier), store("other-\(UUID().uuidString)"))
        let person = GraphTestModel.entity("Person")
        let mine = NSManagedObjectID(entity: person, store: own, primaryKey: 1)
        let viaTwin = NSManagedObjectID(entity: person, store: twin, primaryKey: 2)
        let foreign = NSManagedObjectID(entity: person, store: other, primaryKey: 1)
        let temporary = NSManagedObjectID(temporaryFor: person)
        withExtendedLifetime((own, twin, other)) {
            let origin = own.objectIDOrigin()
            for given in [nil, origin] {
                #expect(own.holds(mine, origin: given) && own.holds(viaTwin, origin: given))
                #expect(!own.holds(foreign, origin: given) && !own.holds(temporary, origin: given))
            }
            // A store whose identifier changes no longer holds the IDs made under the old one.
            own.identifier = "renamed-\(UUID().uuidString)"
            let renamed = own.objectIDOrigin()
            #expect(renamed !== origin)
            #expect(!own.holds(mine, origin: renamed) && !own.holds(mine))
            #expect(own.holds(NSManagedObjectID(entity: person, store: own, primaryKey: 1), origin: renamed))
        }
    }
}
