// Package wiring builds what every function main needs from its
// environment: the logger, the workflow.Config, the AWS clients, the store
// and, for the functions that call one, the model. A main names what it
// needs and hands the parts to its handler.
package wiring

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// Function is one function's wiring.
type Function struct {
	Logger *slog.Logger
	Config workflow.Config
	AWS    aws.Config
	// Store reaches the runs table, and the index table only when the
	// function needs workflow.EnvIndexTable (the others have no access to
	// it).
	Store *store.Store
	// Model is set when the function needs workflow.EnvModelID.
	Model globalsearch.Model
}

// Load reads the configuration that need names (workflow.ConfigFromEnv) and
// builds the parts. A broken deployment logs every problem at once and
// exits, so it fails its first invocation with the whole list.
func Load(need ...string) Function {
	f := Function{Logger: slog.New(slog.NewJSONHandler(os.Stdout, nil))}
	var confErr, cfgErr, modelErr error
	f.Config, confErr = workflow.ConfigFromEnv(os.LookupEnv, need...)
	f.AWS, cfgErr = config.LoadDefaultConfig(context.Background())
	if slices.Contains(need, workflow.EnvModelID) {
		// The model call's timeout is the invocation's deadline, which the
		// handler shortens by a margin (workflow.withMargin).
		f.Model, modelErr = bedrock.New(f.AWS, f.Config.ModelID)
	}
	if err := errors.Join(confErr, cfgErr, modelErr); err != nil {
		f.Logger.Error("configuration", "error", err.Error())
		os.Exit(1)
	}
	f.Store = store.New(dynamodb.NewFromConfig(f.AWS),
		store.Tables{Index: f.Config.IndexTable, Runs: f.Config.RunsTable, MapCache: f.Config.MapCacheTable},
		store.WithTTL(f.Config.RunsTTL), store.WithCacheTTL(f.Config.MapCacheTTL))
	return f
}
