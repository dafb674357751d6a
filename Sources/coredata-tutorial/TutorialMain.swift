// The seed tutorial (深入浅出 Cocoa 之 Core Data, parts 2 and 3); the logic is in CoreDataTutorial.
import CoreDataTutorial

TutorialCommand.main()
