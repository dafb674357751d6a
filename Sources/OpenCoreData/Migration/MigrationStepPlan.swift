import Foundation

/// The steps that take a store from the model version that wrote it to a later version of the
/// same versioned model: one step per version pair, except where a given mapping model spans
/// several versions at once, which is then taken as one direct step.
///
/// This is how `coredata store upgrade` walks a model's history. Automatic migration at open
/// does not step: like Apple's, it migrates from the store's version to the current one at once.
struct MigrationStepPlan {
    /// One step: migrate from `versions[from]` to `versions[to]` with `mapping`, or with an
    /// inferred mapping when it is `nil`.
    struct Step {
        let from: Int
        let to: Int
        let mapping: (model: NSMappingModel, url: URL)?
    }

    let steps: [Step]

    /// Plans the steps from version `start` to version `end` (`start <= end`) of `versions`,
    /// using the first mapping model in `mappings` that fits a step and, for each start version,
    /// the one that reaches furthest without passing `end`.
    init(versions: ModelVersionList, from start: Int, to end: Int, mappings: [(model: NSMappingModel, url: URL)]) {
        var steps: [Step] = []
        var current = start
        while current < end {
            let source = versions.versions[current].model
            var chosen: Step?
            for target in stride(from: end, to: current, by: -1) {
                let destination = versions.versions[target].model
                if let fit = mappings.first(where: { $0.model.fits(sourceModel: source, destinationModel: destination) }) {
                    chosen = Step(from: current, to: target, mapping: fit)
                    break
                }
            }
            let step = chosen ?? Step(from: current, to: current + 1, mapping: nil)
            steps.append(step)
            current = step.to
        }
        self.steps = steps
    }
}
