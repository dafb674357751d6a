// The seed tutorial (深入浅出 Cocoa 之 Core Data, parts 2 and 3); the logic is in CoreDataTutorial.
import CoreDataTutorial

@main
struct TutorialMain {
    /// Runs the command asynchronously (`web` serves until interrupted).
    static func main() async {
        await TutorialCommand.main()
    }
}
