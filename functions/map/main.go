// Command map is the map task of the search state machine: one model
// attempt at one batch, answer saved in the runs table (shared/workflow).
// It has no access to the index table.
package main

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

func main() {
	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	conf, confErr := workflow.ConfigFromEnv(os.LookupEnv, workflow.EnvModelID)
	cfg, cfgErr := config.LoadDefaultConfig(context.Background())
	// The model call's timeout is the invocation's deadline, which the
	// handler shortens by a margin (workflow.withMargin).
	model, modelErr := bedrock.New(cfg, conf.ModelID)
	if err := errors.Join(confErr, cfgErr, modelErr); err != nil {
		logger.Error("configuration", "error", err.Error())
		os.Exit(1)
	}
	s := store.New(dynamodb.NewFromConfig(cfg), store.Tables{Runs: conf.RunsTable}, store.WithTTL(conf.RunsTTL))
	h := &workflow.Handlers{Engine: &globalsearch.Engine{Model: model, Runs: s, Logger: logger}}
	lambda.StartWithOptions(h.Map, workflow.Options()...)
}
