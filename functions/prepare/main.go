// Command prepare is the Prepare task of the search state machine: it reads
// the index table and writes the plan to the runs table (shared/workflow).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/graphrag-global/graphrag-global/functions/internal/wiring"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	// This function packs prompts, so it counts with the exact vocabularies.
	_ "github.com/graphrag-global/graphrag-global/shared/tokens/bpe"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

func main() {
	f := wiring.Load(workflow.EnvIndexTable, workflow.EnvMapMaxConcurrency, workflow.EnvMaxBatches, workflow.EnvPayloadBucket)
	h := &workflow.Handlers{
		// No model: prepare plans without calling one.
		Engine: &globalsearch.Engine{Index: f.Index, Runs: f.Runs, MaxBatches: f.Config.MaxBatches, Logger: f.Logger,
			// The cost ceiling is held to the deployment's prices (docs/contract.md#cost-ceiling),
			// and the model id picks its family's tokenizer rates.
			Prices: f.Config.Prices, ModelID: f.Config.ModelID,
			// The Map's MaxConcurrencyPath reads the concurrency prepare sizes (docs/contract.md#quota).
			Quota: f.Config.Quota, MapMaxConcurrency: f.Config.MapMaxConcurrency},
		Defaults: f.Config.Defaults,
		// Failure items of a Distributed Map expire with the run.
		RunsTTL: f.Config.RunsTTL,
		// A Distributed Map reads its items from the payload bucket.
		Items: f.Payloads,
	}
	// A dynamic selection's rating rounds are the state machine's; the map
	// function rates (docs/contract.md#dynamic-selection).
	workflow.StepEngine(h.Engine)
	lambda.StartWithOptions(h.Prepare, workflow.Options()...)
}
