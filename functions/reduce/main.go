// Command reduce is the Reduce task of the search state machine: one model
// attempt at reduce over the stored map answers, or (with a failure in its
// input) the record of a reduce whose attempts are spent; the result is
// saved in the runs table (shared/workflow). In tree mode it is also each
// reduce round's start (task round: the round's groups, no model call) and
// one attempt at one group (task group), so no invocation holds more than
// one model call (docs/contract.md#reduce-rounds). It has no access to the
// index table, and of the payload bucket reads the batches objects only,
// for the plan's metadata (docs/contract.md#payloads-bucket).
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
	f := wiring.Load(workflow.EnvModelID, workflow.EnvPayloadBucket)
	h := &workflow.Handlers{
		Engine: &globalsearch.Engine{Model: f.Model, Runs: f.Runs, Logger: f.Logger, ModelID: f.Config.ModelID, Prices: f.Config.Prices},
		// After a Distributed Map the failed batches are in the runs table.
		Failures: f.Runs,
	}
	lambda.StartWithOptions(h.Reduce, workflow.Options()...)
}
