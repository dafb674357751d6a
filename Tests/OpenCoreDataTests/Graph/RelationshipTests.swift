import Foundation
import Testing
@testable import OpenCoreData

@Suite("Relationships: inverse maintenance in every cardinality")
struct RelationshipTests {
    @Test func oneToOneMovesThePartner() {
        let context = GraphTestModel.context()
        let alice = GraphTestModel.insert("Person", context)
        let bob = GraphTestModel.insert("Person", context)
        let passport = GraphTestModel.insert("Passport", context)
        alice.setValue(passport, forKey: "passport")
        #expect(passport.value(forKey: "owner") as? NSManagedObject === alice)
        passport.setValue(bob, forKey: "owner")
        #expect(bob.value(forKey: "passport") as? NSManagedObject === passport)
        #expect(alice.value(forKey: "passport") == nil)
        bob.setValue(nil, forKey: "passport")
        #expect(passport.value(forKey: "owner") == nil)
    }

    @Test func oneToManyFromTheToOneSide() {
        let context = GraphTestModel.context()
        let one = GraphTestModel.insert("ClassEntity", context)
        let two = GraphTestModel.insert("ClassEntity", context)
        let student = GraphTestModel.insert("StudentEntity", context)
        student.setValue(one, forKey: "inClass")
        #expect(one.value(forKey: "students") as? Set<NSManagedObject> == [student])
        student.setValue(two, forKey: "inClass")
        #expect((one.value(forKey: "students") as? Set<NSManagedObject>)?.isEmpty == true)
        #expect(two.value(forKey: "students") as? Set<NSManagedObject> == [student])
    }

    @Test func oneToManyFromTheToManySide() {
        let context = GraphTestModel.context()
        let one = GraphTestModel.insert("ClassEntity", context)
        let two = GraphTestModel.insert("ClassEntity", context)
        let a = GraphTestModel.insert("StudentEntity", context)
        let b = GraphTestModel.insert("StudentEntity", context)
        one.setValue(Set([a, b]), forKey: "students")
        #expect(a.value(forKey: "inClass") as? NSManagedObject === one)
        two.mutableSetValue(forKey: "students").add(a)
        #expect(a.value(forKey: "inClass") as? NSManagedObject === two)
        #expect(one.value(forKey: "students") as? Set<NSManagedObject> == [b])
        one.setValue([NSManagedObject](), forKey: "students")
        #expect(b.value(forKey: "inClass") == nil)
    }

    @Test func manyToManyKeepsBothSides() {
        let context = GraphTestModel.context()
        let tolkien = GraphTestModel.insert("Author", context)
        let lewis = GraphTestModel.insert("Author", context)
        let book = GraphTestModel.insert("Book", context)
        let other = GraphTestModel.insert("Book", context)
        let books = tolkien.mutableSetValue(forKey: "books")
        books.union([book, other])
        lewis.mutableSetValue(forKey: "books").add(book)
        #expect(book.value(forKey: "authors") as? Set<NSManagedObject> == [tolkien, lewis])
        #expect(other.value(forKey: "authors") as? Set<NSManagedObject> == [tolkien])
        books.minus([book])
        #expect(book.value(forKey: "authors") as? Set<NSManagedObject> == [lewis])
        #expect(books.count == 1 && books.contains(other) && Array(books).count == 1)
        book.setValue(Set([tolkien]), forKey: "authors")
        #expect(lewis.value(forKey: "books") as? Set<NSManagedObject> == [])
        #expect(tolkien.value(forKey: "books") as? Set<NSManagedObject> == [book, other])
    }

    @Test func orderedToManyKeepsOrderAndInverse() {
        let context = GraphTestModel.context()
        let list = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<3).map { GraphTestModel.insert("Track", context, ["title": "t\($0)"]) }
        let proxy = list.mutableOrderedSetValue(forKey: "tracks")
        proxy.add(tracks[0])
        proxy.add(tracks[2])
        proxy.insert(tracks[1], at: 1)
        #expect((list.value(forKey: "tracks") as? NSOrderedSet)?.array as? [NSManagedObject] == tracks)
        #expect(tracks[1].value(forKey: "playlist") as? NSManagedObject === list)
        proxy.moveObjects(at: IndexSet(integer: 2), to: 0)
        #expect(proxy.array == [tracks[2], tracks[0], tracks[1]])
        proxy.removeObject(at: 0)
        #expect(tracks[2].value(forKey: "playlist") == nil)
        list.setValue(NSOrderedSet(array: [tracks[1], tracks[0]]), forKey: "tracks")
        #expect(proxy.array == [tracks[1], tracks[0]])
        #expect(proxy.index(of: tracks[0]) == 1)
        tracks[2].setValue(list, forKey: "playlist")
        #expect(proxy.array.last === tracks[2])
    }

    @Test func theSeedClearsTheMonitorWhenTheStudentLeaves() {
        let model = GraphTestModel.make()
        model.register(StudentEntity.self, forEntityName: "StudentEntity")
        model.register(ClassEntity.self, forEntityName: "ClassEntity")
        let context = GraphTestModel.context(model: model)
        let klass = ClassEntity(context: context)
        let monitor = StudentEntity(context: context)
        let other = StudentEntity(context: context)
        klass.addStudentsObject(monitor)
        klass.addStudentsObject(other)
        klass.monitor = monitor
        klass.removeStudentsObject(other)
        #expect(klass.monitor === monitor)
        klass.removeStudentsObject(monitor)
        #expect(klass.monitor == nil)
        #expect(monitor.inClass == nil)
        #expect(klass.students.isEmpty)
    }

    @Test func relationshipChangesMarkBothSidesUpdated() throws {
        let context = GraphTestModel.context()
        let klass = GraphTestModel.insert("ClassEntity", context)
        let student = GraphTestModel.insert("StudentEntity", context)
        student.setValue(klass, forKey: "inClass")
        #expect(klass.changedValuesForCurrentEvent()["students"] as? Set<NSManagedObject> == [])
        #expect(student.changedValuesForCurrentEvent()["inClass"] is NSNull)
    }

    /// A to-many relationship changed several times in one event (each change made in place)
    /// reports the destinations from before the event, and the next event starts from the
    /// destinations this one left.
    @Test func toManyChangesInOneEventKeepTheListFromBeforeIt() {
        let context = GraphTestModel.context()
        let owner = GraphTestModel.insert("Owner", context)
        let items = (0..<4).map { _ in GraphTestModel.insert("Item", context) }
        let set = owner.mutableSetValue(forKey: "nullifyItems")
        set.addObjects(from: [items[0], items[1]])
        context.processPendingChanges()
        #expect(owner.changedValuesForCurrentEvent().isEmpty)
        set.add(items[2])
        set.remove(items[0])
        set.add(items[3])
        set.remove(items[2])
        #expect(owner.changedValuesForCurrentEvent()["nullifyItems"] as? Set<NSManagedObject> == [items[0], items[1]])
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == [items[1], items[3]])
        #expect(items[0].value(forKey: "nullifyOwner") == nil && items[2].value(forKey: "nullifyOwner") == nil)
        #expect(items[3].value(forKey: "nullifyOwner") as? NSManagedObject === owner)
        context.processPendingChanges()
        set.remove(items[1])
        #expect(owner.changedValuesForCurrentEvent()["nullifyItems"] as? Set<NSManagedObject> == [items[1], items[3]])
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == [items[3]])
    }

    /// The same for an ordered relationship, whose old value keeps its order.
    @Test func orderedToManyChangesInOneEventKeepTheOrderFromBeforeIt() {
        let context = GraphTestModel.context()
        let playlist = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<4).map { _ in GraphTestModel.insert("Track", context) }
        for track in tracks.prefix(3) { track.setValue(playlist, forKey: "playlist") }
        context.processPendingChanges()
        tracks[0].setValue(nil, forKey: "playlist")
        tracks[3].setValue(playlist, forKey: "playlist")
        tracks[1].setValue(nil, forKey: "playlist")
        let before = playlist.changedValuesForCurrentEvent()["tracks"] as? NSOrderedSet
        #expect(before?.array.elementsEqual(tracks.prefix(3), by: { $0 as AnyObject === $1 }) == true)
        let now = playlist.value(forKey: "tracks") as? NSOrderedSet
        #expect(now?.array.elementsEqual([tracks[2], tracks[3]], by: { $0 as AnyObject === $1 }) == true)
    }

    @Test func objectIDsOfARelationship() {
        let context = GraphTestModel.context()
        let list = GraphTestModel.insert("Playlist", context)
        let a = GraphTestModel.insert("Track", context)
        let b = GraphTestModel.insert("Track", context)
        list.setValue(NSOrderedSet(array: [b, a]), forKey: "tracks")
        #expect(list.objectIDs(forRelationshipNamed: "tracks") == [b.objectID, a.objectID])
        #expect(a.objectIDs(forRelationshipNamed: "playlist") == [list.objectID])
        #expect(!list.hasFault(forRelationshipNamed: "tracks"))
    }

    @Test func relationshipsBetweenContextsAreRefused() {
        let model = GraphTestModel.make()
        let first = GraphTestModel.context(model: model)
        let second = GraphTestModel.context(model: model)
        let klass = GraphTestModel.insert("ClassEntity", first)
        let student = GraphTestModel.insert("StudentEntity", second)
        #expect(throws: ManagedObjectAccessError.differentContexts(entity: "StudentEntity", key: "inClass")) {
            try student.setValueThrowing(klass, forKey: "inClass")
        }
        let loose = NSManagedObject(entity: model.entitiesByName["ClassEntity"]!, insertInto: nil)
        #expect(throws: ManagedObjectAccessError.self) { try student.setValueThrowing(loose, forKey: "inClass") }
        let looseStudent = NSManagedObject(entity: model.entitiesByName["StudentEntity"]!, insertInto: nil)
        looseStudent.setValue(loose, forKey: "inClass")
        #expect(loose.value(forKey: "students") as? Set<NSManagedObject> == [looseStudent])
    }
}
