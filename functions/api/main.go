// Command api is the HTTP API's function: POST
// /namespaces/{namespace}/queries records a request and starts the state
// machine; GET /namespaces/{namespace}/queries/{id} reads the runs table;
// DELETE on it stops the execution and records the query as cancelled
// (shared/api).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/graphrag-global/graphrag-global/functions/internal/wiring"
	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/execution"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

func main() {
	f := wiring.Load(workflow.EnvStateMachineARN)
	h := &api.Handler{
		Runs:     f.Runs,
		Starter:  execution.New(sfn.NewFromConfig(f.AWS), f.Config.StateMachineARN),
		Defaults: f.Config.Defaults,
		// A maxCostUsd without prices is refused before it starts anything.
		Prices: f.Config.Prices,
		Logger: f.Logger,
	}
	lambda.Start(h.Handle)
}
