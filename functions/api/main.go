// Command api is the HTTP API's function: POST /queries records a request
// and starts the state machine; GET /queries/{id} reads the runs table
// (shared/api).
package main

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/execution"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

func main() {
	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	conf, confErr := workflow.ConfigFromEnv(os.LookupEnv, workflow.EnvStateMachineARN)
	cfg, cfgErr := config.LoadDefaultConfig(context.Background())
	if err := errors.Join(confErr, cfgErr); err != nil {
		logger.Error("configuration", "error", err.Error())
		os.Exit(1)
	}
	h := &api.Handler{
		Runs:     store.New(dynamodb.NewFromConfig(cfg), store.Tables{Runs: conf.RunsTable}, store.WithTTL(conf.RunsTTL)),
		Starter:  execution.New(sfn.NewFromConfig(cfg), conf.StateMachineARN),
		Defaults: conf.Defaults,
		Logger:   logger,
	}
	lambda.Start(h.Handle)
}
