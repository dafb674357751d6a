import CoreDataCLI

CoreDataCommand.main()
