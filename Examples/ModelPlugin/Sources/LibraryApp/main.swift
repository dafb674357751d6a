import Foundation
import OpenCoreData

// The model comes from Library.xcdatamodeld, compiled by CoreDataModelPlugin into the target's
// resources; Author and Book's properties are generated from it at build time.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("LibraryApp: \(message)\n".utf8))
    exit(1)
}
guard let modelURL = Bundle.module.url(forResource: "Library", withExtension: "momd") else {
    fail("the plugin compiled no Library.momd into the resources")
}
let model: NSManagedObjectModel
do { model = try NSManagedObjectModel.load(contentsOf: modelURL) } catch { fail("\(error)") }
let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
container.persistentStoreDescriptions.first?.url = URL(fileURLWithPath: "/dev/null")
container.persistentStoreDescriptions.first?.type = NSInMemoryStoreType
container.loadPersistentStores { _, error in
    if let error { fail("\(error)") }
}
let context = container.viewContext
let author = Author(context: context)
author.name = "Ursula K. Le Guin"
for (title, pages) in [("The Left Hand of Darkness", 304), ("The Dispossessed", 387)] {
    let book = Book(context: context)
    book.title = title
    book.pages = Int32(pages)
    author.addToBooks(book)
}
try context.save()

// The same model found by name, as NSPersistentContainer(name:) finds it in the main bundle.
let byName = NSPersistentContainer(name: "Library")
print("model by name: \(byName.managedObjectModel.entitiesByName.keys.sorted())")

// As with Xcode's generated classes, name the request's type: `Book.fetchRequest()` alone is
// ambiguous between the generated one and NSManagedObject's.
let request: NSFetchRequest<Book> = Book.fetchRequest()
request.sortDescriptors = [NSSortDescriptor(keyPath: \Book.pages, ascending: true)]
let books = try context.fetch(request)
for book in books {
    print("\(book.summary) by \(book.author?.name ?? "?")")
}
// CI runs this program: fail loudly if the plugin's model or classes did not do their part.
guard books.map(\.pages) == [304, 387], books.allSatisfy({ $0.author === author }),
      byName.managedObjectModel.entitiesByName["Book"]?.managedObjectClassName == "LibraryApp.Book" else {
    fail("unexpected result")
}
