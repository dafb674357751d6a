import Foundation

/// The steps that take a store from the model version that wrote it to a later version of the
/// same versioned model: one step per version pair, except where a given mapping model spans
/// several versions at once, which is then taken as one direct step.
///
/// This is how `coredata store upgrade` walks a model's history. Automatic migration at open
/// does not step: like Apple's, it migrates from the store's version to the current one at once.
struct MigrationStepPlan {
    /// One step: migrate from `versions[from]` to `versions[to]` with `mappings` (several are
    /// passes of one migration), or with an inferred mapping when there are none.
    struct Step {
        let from: Int
        let to: Int
        let mappings: [(model: NSMappingModel, url: URL)]
    }

    let steps: [Step]

    /// Plans the steps from version `start` to version `end` (`start <= end`) of `versions`,
    /// using the mapping models in `mappings` that fit a step (in their order, as passes when
    /// several fit) and, for each start version, the ones that reach furthest without passing
    /// `end`.
    init(versions: ModelVersionList, from start: Int, to end: Int, mappings: [(model: NSMappingModel, url: URL)]) {
        var steps: [Step] = []
        var current = start
        while current < end {
            let source = versions.versions[current].model
            var chosen: Step?
            for target in stride(from: end, to: current, by: -1) {
                let destination = versions.versions[target].model
                let fitting = mappings.filter { $0.model.fits(sourceModel: source, destinationModel: destination) }
                if !fitting.isEmpty {
                    chosen = Step(from: current, to: target, mappings: fitting)
                    break
                }
            }
            let step = chosen ?? Step(from: current, to: current + 1, mappings: [])
            steps.append(step)
            current = step.to
        }
        self.steps = steps
    }
}
