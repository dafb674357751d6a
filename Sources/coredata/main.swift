import CoreDataCLI
import Foundation

// One exit-status rule for every command (0 success, 2 failure): see CoreDataCommand.
exit(CoreDataCommand.runAsTool())
