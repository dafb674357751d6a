import OpenCoreData

/// The seed's part 3 as a script: a class, its students and its monitor, and the rule that a
/// student removed from the class stops being its monitor.
public struct ClassesTutorial: Sendable {
    /// The folder of the store file.
    public var directory: URL
    /// The kind of store.
    public var storeType: TutorialStoreType

    /// The store file's base name (and the container's name).
    public static let storeName = "ClassesTutorial"

    public init(directory: URL, storeType: TutorialStoreType) {
        self.directory = directory
        self.storeType = storeType
    }

    /// Creates a class (default name "XX班") with three students (the first with the default
    /// name "学生甲"), makes the first the monitor, saves, removes the monitor from the class with
    /// `removeStudentsObject(_:)`, saves again, and prints the classes after each step.
    public func perform(write: (String) -> Void) throws {
        let container = NSPersistentContainer(name: Self.storeName, managedObjectModel: ClassesModel.make())
        container.persistentStoreDescriptions = [storeType.storeDescription(base: Self.storeName, directory: directory)]
        try container.loadStoresForTutorial(storeType)
        let context = container.viewContext

        let newClass = ClassEntity(context: context)
        let first = StudentEntity(context: context)
        let second = StudentEntity(context: context)
        second.name = "学生乙"
        let third = StudentEntity(context: context)
        third.name = "学生丙"
        newClass.addStudents([first, second, third])
        newClass.monitor = first
        try save(context)
        write("Created:")
        try printClasses(in: context, write: write)

        newClass.removeStudentsObject(first)
        try save(context)
        write("Removed \(first.name ?? "?") from \(newClass.name ?? "?"):")
        try printClasses(in: context, write: write)
    }

    private func save(_ context: NSManagedObjectContext) throws {
        do {
            try context.save()
        } catch {
            throw TutorialError.saveFailed(message: (error as NSError).localizedDescription)
        }
    }

    /// One line per class: `XX班: monitor 学生甲; students 学生丙, 学生乙, 学生甲`, names sorted.
    private func printClasses(in context: NSManagedObjectContext, write: (String) -> Void) throws {
        let request = NSFetchRequest<ClassEntity>(entityName: "ClassEntity")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        for item in try context.fetch(request) { write(Self.line(item)) }
        let unassigned = NSFetchRequest<StudentEntity>(entityName: "StudentEntity")
        unassigned.predicate = NSPredicate(format: "inClass == nil")
        let names = try context.fetch(unassigned).map { $0.name ?? "?" }.sorted()
        write("  not in a class: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
    }

    /// The summary line of one class.
    public static func line(_ item: ClassEntity) -> String {
        let students = item.students.map { $0.name ?? "?" }.sorted()
        return "  \(item.name ?? "?"): monitor \(item.monitor?.name ?? "none"); students \(students.isEmpty ? "none" : students.joined(separator: ", "))"
    }
}
