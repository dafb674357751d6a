import OpenCoreData

/// One run of the tutorial program: when it ran and as which process.
///
/// The seed's `Run` class: `date` is set when the object is inserted, `processID` is checked by
/// the model's validation predicate `SELF > 0`.
public final class Run: NSManagedObject {
    @Managed public var date: Date
    @Managed public var processID: Int32

    /// Sets the run's date, without recording a change, as the seed's `setPrimitiveDate:` does.
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "date")
    }
}

/// The tutorial's model, built in code as the seed does (no model file).
public enum RunModel {
    /// The warning of `processID`'s validation predicate.
    public static let processIDWarning = "Process ID < 1"

    /// The localized form of ``processIDWarning``.
    public static let localizedProcessIDWarning = "Process ID must not be less than 1"

    /// The `Run` entity (`date`: Date, not optional; `processID`: Integer 32, not optional,
    /// default -1, valid when `SELF > 0`) with class ``Run`` and a localization dictionary.
    public static func make() -> NSManagedObjectModel {
        let date = NSAttributeDescription()
        date.name = "date"
        date.attributeType = .dateAttributeType
        date.isOptional = false

        let processID = NSAttributeDescription()
        processID.name = "processID"
        processID.attributeType = .integer32AttributeType
        processID.isOptional = false
        processID.defaultValue = Int32(-1)
        // SELF > 0, built from expressions rather than a format string, as in the seed.
        let positive = NSComparisonPredicate(
            leftExpression: NSExpression(expressionType: .evaluatedObject),
            rightExpression: NSExpression(forConstantValue: 0),
            modifier: .direct, type: .greaterThan, options: []
        )
        processID.setValidationPredicates([positive], withValidationWarnings: [processIDWarning])

        let run = NSEntityDescription()
        run.name = "Run"
        run.managedObjectClassName = String(reflecting: Run.self)
        run.properties = [date, processID]

        let model = NSManagedObjectModel()
        model.entities = [run]
        model.localizationDictionary = [
            "Entity/Run": "Run",
            "Property/date/Entity/Run": "Date",
            "Property/processID/Entity/Run": "Process ID",
            "ErrorString/\(processIDWarning)": localizedProcessIDWarning,
        ]
        model.register(Run.self, forEntityName: "Run")
        return model
    }
}
