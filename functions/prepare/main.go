// Command prepare is the Prepare task of the search state machine: it reads
// the index table and writes the plan to the runs table (shared/workflow).
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
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

func main() {
	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	conf, confErr := workflow.ConfigFromEnv(os.LookupEnv, workflow.EnvIndexTable)
	cfg, cfgErr := config.LoadDefaultConfig(context.Background())
	if err := errors.Join(confErr, cfgErr); err != nil {
		logger.Error("configuration", "error", err.Error())
		os.Exit(1)
	}
	s := store.New(dynamodb.NewFromConfig(cfg), store.Tables{Index: conf.IndexTable, Runs: conf.RunsTable}, store.WithTTL(conf.RunsTTL))
	h := &workflow.Handlers{
		// No model: prepare plans without calling one.
		Engine:   &globalsearch.Engine{Index: s, Runs: s, MaxBatches: workflow.MaxBatches, Logger: logger},
		Defaults: conf.Defaults,
	}
	lambda.StartWithOptions(h.Prepare, workflow.Options()...)
}
