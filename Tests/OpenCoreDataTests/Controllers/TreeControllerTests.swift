import Foundation
import Testing
@testable import OpenCoreData

/// `NSTreeController` and `NSTreeNode` without AppKit.
@Suite("Tree controller") struct TreeControllerTests {
    /// `Folder` (`name`, `isFile`, `parent` ↔ `children`, to-many).
    static func folderModel(orderedChildren: Bool = false) -> NSManagedObjectModel {
        let folder = GraphTestModel.entity("Folder")
        let children = GraphTestModel.relationship("children", to: folder, toMany: true, ordered: orderedChildren)
        let parent = GraphTestModel.relationship("parent", to: folder)
        GraphTestModel.pair(children, parent)
        folder.properties = [GraphTestModel.attribute("name", .stringAttributeType, defaultValue: "New"),
                             GraphTestModel.attribute("isFile", .booleanAttributeType, defaultValue: false), children, parent]
        let model = NSManagedObjectModel()
        model.entities = [folder]
        return model
    }

    static func outline(_ node: NSTreeNode, depth: Int = 0) -> [String] {
        (node.children ?? []).flatMap { child in
            [String(repeating: " ", count: depth) + names([child.representedObject as Any])[0]] + outline(child, depth: depth + 1)
        }
    }

    @Test func arrangesPlainObjectsAsASortedTree() {
        let tree = NSTreeController(content: [
            item("b", ["kids": NSMutableArray(array: [item("b2"), item("b1")])]),
            item("a", ["kids": NSMutableArray(array: [item("a1", ["kids": NSMutableArray(array: [item("a1x")])])])]),
        ])
        tree.childrenKeyPath = "kids"
        #expect(Self.outline(tree.arrangedObjects) == ["b", " b2", " b1", "a", " a1", "  a1x"])
        tree.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(Self.outline(tree.arrangedObjects) == ["a", " a1", "  a1x", "b", " b1", " b2"])

        let a1x = tree.arrangedObjects.descendant(at: IndexPath(indexes: [0, 0, 0]))
        #expect(names([a1x?.representedObject as Any]) == ["a1x"])
        #expect(a1x?.indexPath == IndexPath(indexes: [0, 0, 0]))
        #expect(a1x?.isLeaf == true && a1x?.children == nil)
        #expect(a1x?.parent?.parent?.representedObject as? NSMutableDictionary === tree.arrangedObjects.children?[0].representedObject as? NSMutableDictionary)
        #expect(tree.arrangedObjects.descendant(at: IndexPath(indexes: [5])) == nil)

        // A leaf key path stops the descent.
        tree.leafKeyPath = "leaf"
        (tree.arrangedObjects.children?[0].representedObject as? NSMutableDictionary)?["leaf"] = true
        tree.rearrangeObjects()
        #expect(Self.outline(tree.arrangedObjects) == ["a", "b", " b1", " b2"])
        #expect(tree.childrenKeyPath(for: tree.arrangedObjects) == "kids" && tree.leafKeyPath(for: tree.arrangedObjects) == "leaf")
    }

    @Test func selectsByIndexPathAndKeepsTheSelectionAcrossChanges() {
        let tree = NSTreeController(content: [item("b", ["kids": NSMutableArray(array: [item("b1")])]), item("a")])
        tree.childrenKeyPath = "kids"
        #expect(tree.selectionIndexPaths == [IndexPath(index: 0)], "the first root is selected")
        #expect(tree.setSelectionIndexPath(IndexPath(indexes: [0, 0])))
        #expect(names(tree.selectedObjects) == ["b1"])
        #expect(!tree.setSelectionIndexPaths([IndexPath(indexes: [0, 0]), IndexPath(indexes: [9, 9])]), "paths without a node are dropped")

        tree.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(tree.selectionIndexPath == IndexPath(indexes: [1, 0]), "the selected object moved with its parent")
        #expect(tree.addSelectionIndexPaths([IndexPath(index: 0)]))
        #expect(names(tree.selectedObjects) == ["a", "b1"])
        #expect(tree.selectedNodes.map(\.indexPath) == [IndexPath(index: 0), IndexPath(indexes: [1, 0])])
        #expect(tree.removeSelectionIndexPaths([IndexPath(index: 0)]))
        #expect(names(tree.selectedObjects) == ["b1"])
        #expect(tree.selection.value(forKey: "name") as? String == "b1")
    }

    @Test func insertsMovesAndRemovesPlainObjects() {
        let tree = NSTreeController(content: [item("a", ["kids": NSMutableArray()]), item("b", ["kids": NSMutableArray()])])
        tree.childrenKeyPath = "kids"
        tree.insert(item("a-child"), atArrangedObjectIndexPath: IndexPath(indexes: [0, 0]))
        tree.insert(item("root0"), atArrangedObjectIndexPath: IndexPath(index: 0))
        #expect(Self.outline(tree.arrangedObjects) == ["root0", "a", " a-child", "b"])
        #expect(names(tree.selectedObjects) == ["root0"], "inserted objects are selected")
        #expect((tree.content as? [Any])?.count == 3)

        let child = tree.arrangedObjects.descendant(at: IndexPath(indexes: [1, 0]))!
        tree.move(child, to: IndexPath(indexes: [2, 0]))
        #expect(Self.outline(tree.arrangedObjects) == ["root0", "a", "b", " a-child"])
        let a = tree.arrangedObjects.descendant(at: IndexPath(index: 1))!
        tree.move(a, to: IndexPath(indexes: [1, 0]))
        #expect(Self.outline(tree.arrangedObjects) == ["root0", "a", "b", " a-child"], "a node is not moved below itself")

        tree.setSelectionIndexPath(IndexPath(index: 2))
        #expect(tree.canInsertChild)
        tree.objectClass = NSMutableDictionary.self
        tree.addChild(nil)
        #expect(tree.arrangedObjects.descendant(at: IndexPath(index: 2))?.children?.count == 2)

        tree.insert(item("lost"), atArrangedObjectIndexPath: IndexPath(indexes: [7, 0]))
        #expect(!Self.outline(tree.arrangedObjects).contains("lost"), "no parent at the path: nothing is inserted")
        tree.move(tree.arrangedObjects.descendant(at: IndexPath(index: 0))!, to: IndexPath(indexes: [9, 0]))
        #expect(Self.outline(tree.arrangedObjects).first == "root0", "no parent at the path: nothing moves")

        tree.remove(atArrangedObjectIndexPath: IndexPath(indexes: [2, 0]))
        #expect(Self.outline(tree.arrangedObjects).contains(" a-child") == false)
        tree.removeObject(tree.arrangedObjects.children![0].representedObject!)
        #expect(Self.outline(tree.arrangedObjects).first == "a")
    }

    @Test func aCycleInTheObjectsEndsTheDescent() throws {
        let (_, context) = try FetchedResultsFixture.stack(model: Self.folderModel(), storeType: NSInMemoryStoreType, at: nil)
        let a = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
        let b = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
        a.setValue("a", forKey: "name")
        b.setValue("b", forKey: "name")
        b.setValue(a, forKey: "parent")
        a.setValue(b, forKey: "parent")
        let tree = NSTreeController(content: [a])
        tree.childrenKeyPath = "children"
        #expect(Self.outline(tree.arrangedObjects) == ["a", " b", "  a"], "a shows again below b, without children")
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func managesAFolderTreeInEntityMode(storeType: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (coordinator, context) = try FetchedResultsFixture.stack(
            model: Self.folderModel(), storeType: storeType,
            at: StoreTypesUnderTest.location(storeType, directory.appendingPathComponent("tree.store")))
        @discardableResult
        func folder(_ name: String, in parent: NSManagedObject? = nil) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
            object.setValue(name, forKey: "name")
            object.setValue(parent, forKey: "parent")
            return object
        }
        let docs = folder("Docs")
        folder("b.txt", in: docs).setValue(true, forKey: "isFile")
        folder("a.txt", in: docs).setValue(true, forKey: "isFile")
        folder("Apps")
        try context.save()

        let tree = NSTreeController()
        tree.entityName = "Folder"
        tree.fetchPredicate = NSPredicate(format: "parent == nil")
        tree.childrenKeyPath = "children"
        tree.leafKeyPath = "isFile"
        tree.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        tree.automaticallyPreparesContent = true
        tree.managedObjectContext = context
        #expect(Self.outline(tree.arrangedObjects) == ["Apps", "Docs", " a.txt", " b.txt"])

        // A child of the selected folder joins its relationship.
        tree.setSelectionIndexPath(IndexPath(index: 0))
        tree.insertChild(nil)
        let made = try #require(tree.selectedObjects.first as? NSManagedObject)
        #expect((made.value(forKey: "parent") as? NSManagedObject)?.value(forKey: "name") as? String == "Apps")
        #expect(Self.outline(tree.arrangedObjects) == ["Apps", " New", "Docs", " a.txt", " b.txt"])

        // A leaf takes no child.
        tree.setSelectionIndexPath(IndexPath(indexes: [1, 0]))
        #expect(!tree.canInsertChild)

        // Moving reparents; removing deletes.
        tree.move(tree.arrangedObjects.descendant(at: IndexPath(indexes: [1, 0]))!, to: IndexPath(indexes: [0, 0]))
        // (Sorted by compare:, "New" comes before "a.txt".)
        #expect(Self.outline(tree.arrangedObjects) == ["Apps", " New", " a.txt", "Docs", " b.txt"])
        let docsNode = tree.arrangedObjects.descendant(at: IndexPath(index: 1))!
        tree.remove(atArrangedObjectIndexPath: docsNode.indexPath)
        #expect(docs.isDeleted)
        #expect(Self.outline(tree.arrangedObjects) == ["Apps", " New", " a.txt"])

        // Changes made elsewhere in the context show at the end of the event.
        folder("Zeta")
        let apps = try #require(tree.arrangedObjects.children?.first?.representedObject as? NSManagedObject)
        folder("0-first", in: apps)
        context.processPendingChanges()
        #expect(Self.outline(tree.arrangedObjects) == ["Apps", " 0-first", " New", " a.txt", "Zeta"])
        try context.save()

        let reader = FetchedResultsFixture.mainContext(on: coordinator)
        let check = NSTreeController()
        check.entityName = "Folder"
        check.fetchPredicate = NSPredicate(format: "parent == nil")
        check.childrenKeyPath = "children"
        check.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        check.managedObjectContext = reader
        check.fetch(nil)
        #expect(check.lastError == nil)
        // b.txt went with Docs only if the delete rule cascades; the model's rule is nullify,
        // so b.txt is a root now.
        #expect(Self.outline(check.arrangedObjects) == ["Apps", " 0-first", " New", " a.txt", "Zeta", "b.txt"])
    }

    @Test func anOrderedChildrenRelationshipKeepsTheInsertionIndex() throws {
        let (_, context) = try FetchedResultsFixture.stack(model: Self.folderModel(orderedChildren: true),
                                                           storeType: NSInMemoryStoreType, at: nil)
        let root = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
        root.setValue("root", forKey: "name")
        let tree = NSTreeController(content: [root])
        tree.childrenKeyPath = "children"
        for (index, name) in ["x", "z", "y"].enumerated() {
            let child = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
            child.setValue(name, forKey: "name")
            tree.insert(child, atArrangedObjectIndexPath: IndexPath(indexes: [0, index == 2 ? 1 : index]))
        }
        #expect(Self.outline(tree.arrangedObjects) == ["root", " x", " y", " z"])
        #expect(names(root.mutableOrderedSetValue(forKey: "children").array) == ["x", "y", "z"])
    }
}
