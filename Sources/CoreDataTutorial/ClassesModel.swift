import OpenCoreData

/// A class of students (the seed's part 3): a name, its students and its monitor.
public final class ClassEntity: NSManagedObject {
    @Managed public var name: String?
    @Managed public var students: Set<StudentEntity>
    @Managed public var monitor: StudentEntity?

    /// Adds a student to the class (Xcode's generated accessor).
    public func addStudentsObject(_ student: StudentEntity) {
        mutableSetValue(forKey: "students").add(student)
    }

    /// Removes a student from the class; when the student is the class's monitor, the class has
    /// no monitor any more. The seed's rule, written as it wrote `removeStudentsObject:`.
    public func removeStudentsObject(_ student: StudentEntity) {
        if monitor === student {
            monitor = nil
        }
        mutableSetValue(forKey: "students").remove(student)
    }

    /// Adds students to the class (Xcode's generated accessor).
    public func addStudents(_ students: Set<StudentEntity>) {
        for student in students { addStudentsObject(student) }
    }

    /// Removes students from the class, with ``removeStudentsObject(_:)``'s monitor rule.
    public func removeStudents(_ students: Set<StudentEntity>) {
        for student in students { removeStudentsObject(student) }
    }
}

/// A student (the seed's part 3): a name and the class the student is in.
public final class StudentEntity: NSManagedObject {
    @Managed public var name: String?
    @Managed public var inClass: ClassEntity?
}

/// The classes-and-students model, built in code.
public enum ClassesModel {
    /// The default name of a new class.
    public static let defaultClassName = "XX班"
    /// The default name of a new student.
    public static let defaultStudentName = "学生甲"

    /// `ClassEntity` (`name` default "XX班"; `students` to-many ↔ `StudentEntity.inClass`;
    /// `monitor` to-one `StudentEntity`) and `StudentEntity` (`name` default "学生甲"; `inClass`),
    /// with classes ``ClassEntity`` and ``StudentEntity``.
    public static func make() -> NSManagedObjectModel {
        let classEntity = NSEntityDescription()
        classEntity.name = "ClassEntity"
        classEntity.managedObjectClassName = String(reflecting: ClassEntity.self)
        let studentEntity = NSEntityDescription()
        studentEntity.name = "StudentEntity"
        studentEntity.managedObjectClassName = String(reflecting: StudentEntity.self)

        let className = NSAttributeDescription()
        className.name = "name"
        className.attributeType = .stringAttributeType
        className.defaultValue = defaultClassName

        let studentName = NSAttributeDescription()
        studentName.name = "name"
        studentName.attributeType = .stringAttributeType
        studentName.defaultValue = defaultStudentName

        let students = NSRelationshipDescription()
        students.name = "students"
        students.destinationEntity = studentEntity
        students.minCount = 0
        students.maxCount = 0
        students.deleteRule = .nullifyDeleteRule

        let inClass = NSRelationshipDescription()
        inClass.name = "inClass"
        inClass.destinationEntity = classEntity
        inClass.minCount = 0
        inClass.maxCount = 1
        inClass.deleteRule = .nullifyDeleteRule

        students.inverseRelationship = inClass
        inClass.inverseRelationship = students

        let monitor = NSRelationshipDescription()
        monitor.name = "monitor"
        monitor.destinationEntity = studentEntity
        monitor.minCount = 0
        monitor.maxCount = 1
        monitor.deleteRule = .nullifyDeleteRule

        classEntity.properties = [className, students, monitor]
        studentEntity.properties = [studentName, inClass]

        let model = NSManagedObjectModel()
        model.entities = [classEntity, studentEntity]
        model.register(ClassEntity.self, forEntityName: "ClassEntity")
        model.register(StudentEntity.self, forEntityName: "StudentEntity")
        return model
    }
}
