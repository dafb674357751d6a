// PLACEHOLDER, completed by the validation work (helper `graph-validation`).
/// The validation Core Data runs at save, over a managed object's values and its entity's rules.
enum ObjectValidation {
    /// Which save-time validation runs.
    enum Phase: Sendable { case insert, update, delete }

    static func validate(_ object: NSManagedObject, for phase: Phase) throws {}

    static func validateValue(_ value: inout Any?, forKey key: String, of object: NSManagedObject) throws {}
}
