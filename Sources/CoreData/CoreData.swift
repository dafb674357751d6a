// `import CoreData` on Linux: the whole of OpenCoreData under Apple's module name.
@_exported import OpenCoreData
