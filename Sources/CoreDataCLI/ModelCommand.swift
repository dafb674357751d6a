import ArgumentParser
import OpenCoreData

// PLACEHOLDER, replaced by the model work.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "model", abstract: "Inspect and compile managed object models.")
}
