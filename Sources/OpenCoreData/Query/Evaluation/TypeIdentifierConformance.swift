/// The uniform type identifiers `UTI-CONFORMS-TO` and `UTI-EQUALS` know, and their conformance.
///
/// Apple's operators ask Launch Services (`UTTypeConformsTo`, `UTTypeEqual`), which knows every
/// type the system and the installed apps declare. Linux has no such database, so this table
/// holds the common system types with the parents Apple declares for them (the "Uniform Type
/// Identifiers" reference: `public.jpeg` conforms to `public.image`, which conforms to
/// `public.data` and `public.content`, and so on). Differences from Apple:
/// - an identifier missing from the table conforms only to itself;
/// - identifiers compare case-insensitively, as UTIs do;
/// - the identifiers are Apple's own: PDF is `com.adobe.pdf`, GIF `com.compuserve.gif`,
///   QuickTime `com.apple.quicktime-movie`, WAV `com.microsoft.waveform-audio`.
enum TypeIdentifierConformance {
    /// Each identifier's direct parents, as Apple declares them.
    static let parents: [String: [String]] = [
        // Roots and the physical hierarchy.
        "public.item": [], "public.content": [],
        "public.data": ["public.item"], "public.directory": ["public.item"],
        "public.folder": ["public.directory"], "public.volume": ["public.folder"],
        "com.apple.package": ["public.directory"], "com.apple.bundle": ["public.directory"],
        "com.apple.application": ["public.data"],
        "com.apple.application-bundle": ["com.apple.application", "com.apple.bundle", "com.apple.package"],
        "public.symlink": ["public.item"], "com.apple.alias-file": ["public.data"],
        "public.executable": ["public.item"], "public.unix-executable": ["public.data", "public.executable"],
        "public.composite-content": ["public.content"], "public.message": ["public.data", "public.content"],
        "public.contact": ["public.data", "public.content"], "public.calendar-event": ["public.data", "public.content"],
        "public.database": ["public.data"], "public.archive": ["public.data"],
        "public.url": ["public.data"], "public.file-url": ["public.url"],
        "public.url-name": ["public.utf8-plain-text"],
        // Text.
        "public.text": ["public.data", "public.content"],
        "public.plain-text": ["public.text"],
        "public.utf8-plain-text": ["public.plain-text"], "public.utf16-plain-text": ["public.plain-text"],
        "public.utf16-external-plain-text": ["public.plain-text"],
        "public.utf8-tab-separated-values-text": ["public.tab-separated-values-text"],
        "public.delimited-values-text": ["public.text"],
        "public.comma-separated-values-text": ["public.delimited-values-text"],
        "public.tab-separated-values-text": ["public.delimited-values-text"],
        "public.rtf": ["public.text"], "com.apple.rtfd": ["com.apple.package", "public.composite-content"],
        "public.html": ["public.text"], "public.xml": ["public.text"], "public.json": ["public.text"],
        "public.yaml": ["public.text"], "public.vcard": ["public.text", "public.contact"],
        "com.apple.ical.ics": ["public.text", "public.calendar-event"],
        "public.source-code": ["public.plain-text"], "public.script": ["public.source-code"],
        "public.shell-script": ["public.script"], "public.python-script": ["public.script"],
        "public.c-source": ["public.source-code"], "public.objective-c-source": ["public.source-code"],
        "public.swift-source": ["public.source-code"], "com.netscape.javascript-source": ["public.source-code"],
        "com.apple.property-list": ["public.data"], "com.apple.xml-property-list": ["public.xml", "com.apple.property-list"],
        "com.apple.binary-property-list": ["com.apple.property-list"],
        // Documents.
        "com.adobe.pdf": ["public.data", "public.composite-content"],
        "public.presentation": ["public.composite-content"], "public.spreadsheet": ["public.content"],
        "org.openxmlformats.wordprocessingml.document": ["public.zip-archive", "public.composite-content"],
        "org.openxmlformats.spreadsheetml.sheet": ["public.zip-archive", "public.spreadsheet"],
        "org.openxmlformats.presentationml.presentation": ["public.zip-archive", "public.presentation"],
        "com.microsoft.word.doc": ["public.data", "public.composite-content"],
        "com.microsoft.excel.xls": ["public.data", "public.spreadsheet"],
        "com.microsoft.powerpoint.ppt": ["public.data", "public.presentation"],
        "org.idpf.epub-container": ["public.zip-archive", "public.composite-content"],
        // Archives.
        "public.zip-archive": ["public.archive"], "com.pkware.zip-archive": ["public.zip-archive"],
        "org.gnu.gnu-zip-archive": ["public.archive"], "public.tar-archive": ["public.archive"],
        "public.bzip2-archive": ["public.archive"], "com.apple.disk-image": ["public.archive"],
        // Images.
        "public.image": ["public.data", "public.content"],
        "public.jpeg": ["public.image"], "public.png": ["public.image"], "public.tiff": ["public.image"],
        "com.compuserve.gif": ["public.image"], "com.microsoft.bmp": ["public.image"],
        "com.microsoft.ico": ["public.image"], "com.apple.icns": ["public.image"],
        "public.heif-standard": ["public.image"], "public.heic": ["public.heif-standard"],
        "public.heif": ["public.heif-standard"], "public.heics": ["public.heif-standard"],
        "org.webmproject.webp": ["public.image"], "public.avif": ["public.image"],
        "public.svg-image": ["public.image"], "public.camera-raw-image": ["public.image"],
        "com.adobe.raw-image": ["public.camera-raw-image"], "com.adobe.photoshop-image": ["public.image"],
        "public.jpeg-2000": ["public.image"], "com.truevision.tga-image": ["public.image"],
        "com.ilm.openexr-image": ["public.image"],
        // Audio and video.
        "public.audiovisual-content": ["public.data", "public.content"],
        "public.movie": ["public.audiovisual-content"], "public.video": ["public.movie"],
        "public.audio": ["public.audiovisual-content"],
        "public.mpeg": ["public.movie"], "public.mpeg-2-video": ["public.video"],
        "public.mpeg-2-transport-stream": ["public.movie"],
        "public.mpeg-4": ["public.movie"], "public.mpeg-4-audio": ["public.mpeg-4", "public.audio"],
        "com.apple.m4v-video": ["public.video"], "com.apple.m4a-audio": ["public.mpeg-4-audio"],
        "com.apple.protected-mpeg-4-audio": ["public.audio"], "com.apple.protected-mpeg-4-video": ["com.apple.m4v-video"],
        "com.apple.quicktime-movie": ["public.movie"], "public.avi": ["public.movie"],
        "public.3gpp": ["public.movie"], "public.3gpp2": ["public.movie"],
        "public.mp3": ["public.audio"], "public.mpeg-3": ["public.audio"], "public.aiff-audio": ["public.aifc-audio"],
        "public.aifc-audio": ["public.audio"], "com.microsoft.waveform-audio": ["public.audio"],
        "public.midi-audio": ["public.audio"], "com.apple.coreaudio-format": ["public.audio"],
        "public.playlist": ["public.data", "public.content"], "public.m3u-playlist": ["public.text", "public.playlist"],
    ]

    /// The table with lower-cased keys and parents.
    private static let folded: [String: [String]] = Dictionary(
        uniqueKeysWithValues: parents.map { ($0.key.lowercased(), $0.value.map { $0.lowercased() }) })

    /// Whether `type` is `other` (case-insensitively), as `UTI-EQUALS` tests.
    static func equals(_ type: String, _ other: String) -> Bool {
        type.lowercased() == other.lowercased()
    }

    /// Whether `type` is `other` or conforms to it through the table, as `UTI-CONFORMS-TO`
    /// tests. Walks the parents breadth-first without recursion.
    static func conforms(_ type: String, to other: String) -> Bool {
        let target = other.lowercased()
        var pending = [type.lowercased()]
        var seen: Set<String> = []
        while let current = pending.popLast() {
            if current == target { return true }
            guard seen.insert(current).inserted else { continue }
            pending.append(contentsOf: folded[current] ?? [])
        }
        return false
    }
}
