// Command map is the map task of the search state machine: one model
// attempt at one batch, answer saved in the runs table (shared/workflow).
// It has no access to the index table, and is the only function with access
// to the map-answer cache table.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/graphrag-global/graphrag-global/functions/internal/wiring"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

func main() {
	f := wiring.Load(workflow.EnvModelID, workflow.EnvMapCacheTable, workflow.EnvPayloadBucket)
	h := &workflow.Handlers{Engine: &globalsearch.Engine{Model: f.Model, Runs: f.Runs, Logger: f.Logger,
		Cache: f.Cache, ModelID: f.Config.ModelID}}
	lambda.StartWithOptions(h.Map, workflow.Options()...)
}
