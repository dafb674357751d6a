import Foundation
@testable import OpenCoreData

/// A small company model for store and coordinator tests, built in code.
///
/// - `Department` (`name`, `budget`; `employees` ↔ `Employee.department`)
/// - `Employee` (`name`, `salary`, `hired`; `department`), with subentity `Manager` (`level`)
/// - `Project` (`title`; `lead` → `Employee`, no inverse)
/// - configurations `Staff` (Department, Employee, Manager) and `Projects` (Project)
enum CompanyModel {
    static func make() -> NSManagedObjectModel {
        let department = entity("Department", [attribute("name", .stringAttributeType),
                                               attribute("budget", .doubleAttributeType)])
        let employee = entity("Employee", [attribute("name", .stringAttributeType),
                                           attribute("salary", .integer64AttributeType),
                                           attribute("hired", .dateAttributeType)])
        let manager = entity("Manager", [attribute("level", .integer16AttributeType)])
        let project = entity("Project", [attribute("title", .stringAttributeType)])

        let employees = NSRelationshipDescription()
        employees.name = "employees"
        employees.maxCount = 0
        employees.destinationEntity = employee
        let departmentRelationship = NSRelationshipDescription()
        departmentRelationship.name = "department"
        departmentRelationship.maxCount = 1
        departmentRelationship.destinationEntity = department
        employees.inverseRelationship = departmentRelationship
        departmentRelationship.inverseRelationship = employees
        let lead = NSRelationshipDescription()
        lead.name = "lead"
        lead.maxCount = 1
        lead.destinationEntity = employee

        department.properties += [employees]
        employee.properties += [departmentRelationship]
        project.properties += [lead]
        employee.subentities = [manager]

        let model = NSManagedObjectModel()
        model.entities = [department, employee, manager, project]
        model.setEntities([department, employee, manager], forConfigurationName: "Staff")
        model.setEntities([project], forConfigurationName: "Projects")
        return model
    }

    /// An entity named `name` with `properties` (test models share it).
    static func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.properties = properties
        return entity
    }

    /// An optional attribute named `name` of `type` (test models share it).
    static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        return attribute
    }
}

/// A coordinator with the company model and helpers that save rows through it.
///
/// Stores are of ``storeType``; file stores get a fresh file in a temporary directory, removed
/// when the fixture goes away. Store issues that add types can run these helpers over them.
final class CompanyFixture {
    let model = CompanyModel.make()
    let coordinator: NSPersistentStoreCoordinator
    let storeType: String
    private var directory: URL?

    init(storeType: String = NSInMemoryStoreType) {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        self.storeType = storeType
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    func entity(_ name: String) -> NSEntityDescription { model.entitiesByName[name]! }

    /// Adds a store of ``storeType``: without a URL for the in-memory type, in a schema of its own
    /// for PostgreSQL, else at a new file.
    @discardableResult
    func addStore(configuration: String? = nil, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        var url: URL?
        if storeType != NSInMemoryStoreType {
            if directory == nil { directory = try Fixtures.temporaryDirectory() }
            url = directory.flatMap { StoreTypesUnderTest.location(storeType, $0.appendingPathComponent("Store-\(coordinator.persistentStores.count).\(storeType.lowercased())")) }
        }
        return try coordinator.addPersistentStore(ofType: storeType, configurationName: configuration, at: url, options: options)
    }

    /// Inserts one object and returns its snapshot as saved.
    @discardableResult
    func insert(_ entityName: String, _ values: [String: Any], into store: NSPersistentStore? = nil) throws -> ObjectSnapshot {
        let id = try coordinator.permanentObjectIDs(for: [(entity(entityName), store)])[0]
        let snapshot = ObjectSnapshot(objectID: id, values: values)
        try coordinator.save(StoreSaveChanges(inserted: [snapshot]))
        return try coordinator.snapshots(for: [id])[id]!
    }

    /// Inserts a department with employees (name, salary) in one save, both sides of the
    /// relationship set; returns the department's ID and the employees' IDs.
    @discardableResult
    func insertDepartment(_ name: String, budget: Double, employees: [(String, Int64)], managers: Set<String> = [],
                          into store: NSPersistentStore? = nil) throws -> (NSManagedObjectID, [NSManagedObjectID]) {
        let requests = [(entity("Department"), store)]
            + employees.map { (managers.contains($0.0) ? entity("Manager") : entity("Employee"), store) }
        let ids = try coordinator.permanentObjectIDs(for: requests)
        let departmentID = ids[0], employeeIDs = Array(ids.dropFirst())
        var inserted = [ObjectSnapshot(objectID: departmentID, values: ["name": name, "budget": budget],
                                       toMany: ["employees": employeeIDs])]
        for ((employeeName, salary), id) in zip(employees, employeeIDs) {
            var values: [String: Any] = ["name": employeeName, "salary": salary, "department": departmentID]
            if managers.contains(employeeName) { values["level"] = Int16(2) }
            inserted.append(ObjectSnapshot(objectID: id, values: values))
        }
        try coordinator.save(StoreSaveChanges(inserted: inserted))
        return (departmentID, employeeIDs)
    }

    /// The standard data: Sales (Ann 100, Bob 200 manager, Cid 300), Tech (Dee 400, Eve 50),
    /// Empty (nobody).
    func insertStandardData(into store: NSPersistentStore? = nil) throws {
        try insertDepartment("Sales", budget: 1000, employees: [("Ann", 100), ("Bob", 200), ("Cid", 300)],
                             managers: ["Bob"], into: store)
        try insertDepartment("Tech", budget: 5000, employees: [("Dee", 400), ("Eve", 50)], into: store)
        try insertDepartment("Empty", budget: 0, employees: [], into: store)
    }

    func request(_ entityName: String, _ format: String? = nil, _ args: Any?..., sort: [(String, Bool)] = [],
                 resultType: NSFetchRequestResultType = .managedObjectResultType) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        if let format { request.predicate = NSPredicate(format: format, argumentArray: args.map { $0 ?? NSNull() }) }
        request.sortDescriptors = sort.map { NSSortDescriptor(key: $0.0, ascending: $0.1) }
        request.resultType = resultType
        return request
    }

    func snapshots(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [ObjectSnapshot] {
        guard case .snapshots(let snapshots) = try coordinator.executeFetch(request) else { return [] }
        return snapshots
    }

    /// The `name` values of the fetched snapshots, in order.
    func names(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [String] {
        try snapshots(request).map { $0.values["name"] as? String ?? $0.values["title"] as? String ?? "?" }
    }

    func dictionaries(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [[String: Any]] {
        request.resultType = .dictionaryResultType
        guard case .dictionaries(let rows) = try coordinator.executeFetch(request) else { return [] }
        return rows
    }

    func count(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> Int {
        request.resultType = .countResultType
        guard case .count(let count) = try coordinator.executeFetch(request) else { return -1 }
        return count
    }
}
