/// The compiled model format of OpenCoreData, written by `coredata model compile`.
///
/// ## Folder (`.momd`-like)
/// ```
/// DEST/
///   VersionInfo.plist      binary plist:
///     OCDCompiledModelFormat            "OpenCoreData compiled model"
///     OCDCompiledModelFormatVersion     1
///     NSManagedObjectModel_CurrentVersionName   "<current version name>"
///     NSManagedObjectModel_VersionHashes        { "<version>": { "<entity>": <32-byte data> } }
///     NSManagedObjectModel_VersionChecksums     { "<version>": "<base64 model checksum>" }
///   <version>.ocdmom       one compiled file per version (below)
/// ```
/// Loading the folder loads its current version. The `NSManagedObjectModel_…` keys have the
/// meaning they have in Apple's `VersionInfo.plist`; the `OCD…` keys tell the folders apart.
///
/// ## Compiled file (`.ocdmom`)
/// A binary property list whose root dictionary holds:
/// - `format` = `"OpenCoreData.NSManagedObjectModel"`, `formatVersion` = 1;
/// - `versionIdentifiers`: array of strings and numbers;
/// - `localization` (optional): dictionary of strings, the model's localization dictionary;
/// - `entities`: array of entity dictionaries, in declaration order;
/// - `configurations`: array of `{name, entities: [entity names]}`;
/// - `fetchRequests`: array of `{name, request}` (fetch request dictionaries).
///
/// An **entity** dictionary: `name`, `className`, `abstract`, `parent` (optional superentity
/// name), `renamingIdentifier`, `versionHashModifier`, `userInfo` (optional), `uniqueness`
/// (array of arrays of property names), `indexes` (array of `{name, partial (optional predicate
/// format), elements: [{property, collation (raw NSFetchIndexElementType), ascending}]}`), and
/// `properties`: the entity's own properties in order.
///
/// A **property** dictionary: `kind` (`attribute`, `derivedAttribute`, `relationship`,
/// `fetchedProperty`, `expression`), `name`, `optional`, `transient`, `indexed`, `spotlight`,
/// `externalRecord`, optional `renamingIdentifier`, `versionHashModifier`, `userInfo`, and
/// `validation` (array of `{predicate: format string, warning: string or number}`); then
/// - attributes: `type` (raw ``NSAttributeType``), optional `valueClassName`, `default`,
///   `valueTransformerName`, `derivation` (expression format), and `externalStorage`,
///   `preservesValueInHistory`, `cloudEncryption`;
/// - relationships: `destination`, optional `inverse`, `minCount`, `maxCount`, `ordered`,
///   `deleteRule` (raw ``NSDeleteRule``);
/// - fetched properties: `request` (a fetch request dictionary);
/// - expression descriptions: optional `expression` (format) and `resultType` (raw type).
///
/// A **fetch request** dictionary: `entity`, optional `predicate` and `having` (formats),
/// `fetchLimit`, `fetchOffset`, `fetchBatchSize`, `resultType` (raw), `distinct`,
/// `includesSubentities`, `includesPendingChanges`, `returnsObjectsAsFaults`,
/// `includesPropertyValues`, `refreshRefetched`, optional `prefetching`, `propertiesToFetch`,
/// `propertiesToGroupBy` (arrays of names), and `sortDescriptors` (array of `{key (optional),
/// ascending, selector}`; comparator-based descriptors cannot be stored).
///
/// Default values are stored by attribute type: integers and Booleans as numbers, decimals as
/// strings, doubles and floats as reals, dates as reals (seconds since 2001-01-01), UUIDs and
/// URIs as strings, binary data as data. Predicates and expressions are stored as their format
/// strings and parsed back with the query language.
public enum CompiledModelFormat {
    /// The extension of a compiled version file.
    public static let fileExtension = "ocdmom"
    static let formatName = "OpenCoreData.NSManagedObjectModel"
    static let formatVersion = 1
    static let folderFormatKey = "OCDCompiledModelFormat"
    static let folderFormatName = "OpenCoreData compiled model"
    static let folderFormatVersionKey = "OCDCompiledModelFormatVersion"
    static let currentVersionKey = "NSManagedObjectModel_CurrentVersionName"
    static let versionHashesKey = "NSManagedObjectModel_VersionHashes"
    static let versionChecksumsKey = "NSManagedObjectModel_VersionChecksums"
    static let versionInfoName = "VersionInfo.plist"

    /// Compiles the model at `source` into the folder `destination`, replacing its files.
    ///
    /// An `.xcdatamodeld` package gives one compiled file per version; any other model
    /// ``NSManagedObjectModel/load(contentsOf:)`` accepts gives one. Each version carries the
    /// localization dictionary found beside it.
    ///
    /// With `moduleName` (momc's `--module`), entity class names are qualified with it, as
    /// momc does for Xcode's "Current Product Module" (`.Book` becomes `MyApp.Book`). Unlike
    /// momc, an unqualified name (`Book`) is qualified too: Linux has no Objective-C class table
    /// in which `@objc(Book)` would find it, and a class named in the model is in that module.
    public static func compile(modelAt source: URL, to destination: URL, moduleName: String? = nil,
                               format: Format = .openCoreData) throws {
        let (versions, current) = try versions(ofModelAt: source, moduleName: moduleName)
        switch format {
        case .openCoreData: try write(versions: versions, currentVersion: current, to: destination)
        case .apple: try writeApple(versions: versions, currentVersion: current, to: destination)
        }
    }

    /// The two compiled formats ``compile(modelAt:to:moduleName:format:)`` writes.
    public enum Format: String, CaseIterable, Sendable {
        /// Apple's: a `.momd` folder of `NSKeyedArchiver` `.mom` files (momc's output), which
        /// Apple's Core Data loads (see `AppleCompiledModelWriter`).
        case apple
        /// Ours (this type's documentation): every part of a model, predicates and expressions
        /// as format strings. Kept because every part of it is checked by a reader written from
        /// Apple's files, while no momc-written fixture holds an archived predicate to check
        /// the Apple writer's predicate archives against.
        case openCoreData = "opencoredata"
    }

    /// The versions of the model at `source` (one per version of an `.xcdatamodeld` package, with
    /// the localization found beside each) and the current version's name.
    static func versions(ofModelAt source: URL, moduleName: String?) throws
        -> (versions: [(name: String, model: NSManagedObjectModel)], current: String) {
        let source = source.standardizedFileURL
        var versions: [(name: String, model: NSManagedObjectModel)] = []
        let current: String
        if source.pathExtension == "xcdatamodeld" {
            current = try XcodeModelPackage.currentVersion(ofPackage: source).deletingPathExtension().lastPathComponent
            for versionURL in XcodeModelPackage.versions(ofPackage: source) {
                let model = try XcodeModelPackage.readVersion(at: versionURL)
                model.localizationDictionary = try ModelLocalization.dictionary(forModelAt: versionURL)
                versions.append((versionURL.deletingPathExtension().lastPathComponent, model))
            }
        } else {
            current = source.deletingPathExtension().lastPathComponent
            versions = [(current, try NSManagedObjectModel.load(contentsOf: source))]
        }
        if let moduleName {
            for (_, model) in versions { qualifyClassNames(of: model, with: moduleName) }
        }
        return (versions, current)
    }

    /// Writes `versions` as an Apple `.momd` folder at `destination`: one `<version>.mom` each
    /// and a `VersionInfo.plist` with Apple's keys. Nothing is written when a version can't be.
    public static func writeApple(versions: [(name: String, model: NSManagedObjectModel)], currentVersion: String,
                                  to destination: URL) throws {
        let files = try versions.map { version in
            do {
                return (version.name, try AppleCompiledModelWriter.data(for: version.model))
            } catch let error as ManagedObjectModelError {
                throw error.located(in: URL(fileURLWithPath: version.name + ".mom"))
            }
        }
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        for (name, data) in files {
            try data.write(to: destination.appendingPathComponent(name).appendingPathExtension("mom"), options: .atomic)
        }
        let info: [String: Any] = [
            currentVersionKey: currentVersion,
            versionHashesKey: Dictionary(uniqueKeysWithValues: versions.map { ($0.name, $0.model.entityVersionHashesByName) }),
            versionChecksumsKey: Dictionary(uniqueKeysWithValues: versions.map { ($0.name, $0.model.versionChecksum) }),
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0)
        try data.write(to: destination.appendingPathComponent(versionInfoName), options: .atomic)
    }

    /// Qualifies `model`'s entity class names with `moduleName` (see ``compile(modelAt:to:moduleName:format:)``).
    static func qualifyClassNames(of model: NSManagedObjectModel, with moduleName: String) {
        for entity in model.entities {
            guard let name = entity.managedObjectClassName, !name.isEmpty, name != "NSManagedObject" else { continue }
            if name.hasPrefix(".") {
                entity.managedObjectClassName = moduleName + name
            } else if !name.contains(".") {
                entity.managedObjectClassName = moduleName + "." + name
            }
        }
    }

    /// Writes `versions` as a compiled model folder at `destination`.
    public static func write(versions: [(name: String, model: NSManagedObjectModel)], currentVersion: String, to destination: URL) throws {
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        var hashes: [String: Any] = [:]
        var checksums: [String: Any] = [:]
        for (name, model) in versions {
            let data = try fileData(for: model)
            try data.write(to: destination.appendingPathComponent(name).appendingPathExtension(fileExtension), options: .atomic)
            hashes[name] = model.entityVersionHashesByName
            checksums[name] = model.versionChecksum
        }
        let info: [String: Any] = [
            folderFormatKey: folderFormatName,
            folderFormatVersionKey: formatVersion,
            currentVersionKey: currentVersion,
            versionHashesKey: hashes,
            versionChecksumsKey: checksums,
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0)
        try data.write(to: destination.appendingPathComponent(versionInfoName), options: .atomic)
    }

    /// The bytes of one compiled version file.
    public static func fileData(for model: NSManagedObjectModel) throws -> Data {
        let root = try CompiledModelEncoder().encode(model)
        return try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
    }

    /// The current version of the compiled folder at `url`, or `nil` when the folder is not ours.
    static func readFolderIfOurs(at url: URL) throws -> NSManagedObjectModel? {
        let infoURL = url.appendingPathComponent(versionInfoName)
        guard let data = FileManager.default.contents(atPath: infoURL.path),
              let info = try? PropertyListInput.propertyList(from: data) as? [String: Any],
              info[folderFormatKey] as? String == folderFormatName else { return nil }
        guard (info[folderFormatVersionKey] as? Int).map({ $0 <= formatVersion }) ?? false else {
            throw ManagedObjectModelError(.invalidCompiledModel, "unknown compiled model format version", file: infoURL)
        }
        guard let current = info[currentVersionKey] as? String else {
            throw ManagedObjectModelError(.invalidCompiledModel, "no \(currentVersionKey)", file: infoURL)
        }
        let fileURL = url.appendingPathComponent(current).appendingPathExtension(fileExtension)
        guard let fileData = FileManager.default.contents(atPath: fileURL.path) else {
            throw ManagedObjectModelError(.invalidCompiledModel, "the current version's file is missing", file: fileURL)
        }
        guard let model = try readFileIfOurs(fileData, at: fileURL) else {
            throw ManagedObjectModelError(.invalidCompiledModel, "not a compiled model file", file: fileURL)
        }
        return model
    }

    /// The model in the compiled file `data`, or `nil` when the bytes are not our format.
    static func readFileIfOurs(_ data: Data, at url: URL) throws -> NSManagedObjectModel? {
        guard data.starts(with: Array("bplist".utf8)),
              let root = try? PropertyListInput.propertyList(from: data) as? [String: Any],
              root["format"] as? String == formatName else { return nil }
        guard (root["formatVersion"] as? Int).map({ $0 <= formatVersion }) ?? false else {
            throw ManagedObjectModelError(.invalidCompiledModel, "unknown compiled model format version", file: url)
        }
        do {
            return try CompiledModelDecoder().decode(root)
        } catch let error as ManagedObjectModelError {
            throw error.located(in: url)
        }
    }
}
