// Package wiring builds what every function main needs from its
// environment: the logger, the workflow.Config, the AWS clients, the tables
// it may touch and, for the functions that call one, the model. A main
// names what it needs and hands the parts to its handler; a table it did
// not name is nil, as its IAM role has no access to it either.
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
	"github.com/aws/aws-sdk-go-v2/service/s3"

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
	// Runs is the runs table, which every function reaches; with the
	// batch texts in the payload bucket when the function needs
	// workflow.EnvPayloadBucket.
	Runs *store.Runs
	// Payloads is the payload bucket, set when the function needs
	// workflow.EnvPayloadBucket.
	Payloads *store.Payloads
	// Index is set when the function needs workflow.EnvIndexTable.
	Index *store.Index
	// Cache is set when the function needs workflow.EnvMapCacheTable.
	Cache *store.Cache
	// Model is set when the function needs workflow.EnvModelID.
	Model globalsearch.Model
}

// Load reads the configuration that need names (workflow.ConfigFromEnv),
// checks the embedded prompts and builds the parts. A broken deployment logs every problem at once and
// exits, so it fails its first invocation with the whole list.
func Load(need ...string) Function {
	f := Function{Logger: slog.New(slog.NewJSONHandler(os.Stdout, nil))}
	var confErr, cfgErr, modelErr error
	f.Config, confErr = workflow.ConfigFromEnv(os.LookupEnv, need...)
	f.AWS, cfgErr = config.LoadDefaultConfig(context.Background())
	if slices.Contains(need, workflow.EnvModelID) {
		// The model call's timeout is the invocation's deadline, which the
		// handler shortens by a margin (workflow.withMargin).
		f.Model, modelErr = newModel(f.AWS, f.Config.ModelID)
	}
	var tablesErr error
	if confErr == nil { // else the missing names are in confErr already
		tablesErr = f.tables(need)
	}
	// A build may embed its own prompts (docs/contract.md#custom-prompts):
	// the log says which, and a bad one stops the function here.
	f.Logger.Info("prompts", "sha256", globalsearch.EmbeddedPromptDigests())
	promptsErr := globalsearch.CheckDefaultPrompts()
	if err := errors.Join(confErr, cfgErr, modelErr, tablesErr, promptsErr); err != nil {
		f.Logger.Error("configuration", "error", err.Error())
		os.Exit(1)
	}
	return f
}

// newModel is the model of a function that calls one: Bedrock at the
// adapter's own defaults (prompt cache 5m where the model caches, no service
// tier), with the retries that wait out an empty quota (WithQuotaWait): the
// Map's fixed concurrency has no limiter that reads refusals. A run's
// promptCache and service tiers come with each of its calls (ModelRequest,
// docs/contract.md#prompt-cache, #service-tiers), so one deployed map,
// rating or reduce function serves runs of any settings.
func newModel(cfg aws.Config, modelID string) (globalsearch.Model, error) {
	return bedrock.New(cfg, modelID, bedrock.WithQuotaWait())
}

// tables builds the runs table and the tables need names, over one client.
func (f *Function) tables(need []string) error {
	c := store.NewClient(dynamodb.NewFromConfig(f.AWS), store.WithTTL(f.Config.RunsTTL), store.WithCacheTTL(f.Config.MapCacheTTL))
	var runsErr, indexErr, cacheErr error
	f.Runs, runsErr = store.NewRuns(c, f.Config.RunsTable)
	if slices.Contains(need, workflow.EnvPayloadBucket) && runsErr == nil {
		p, err := store.NewPayloads(s3.NewFromConfig(f.AWS), f.Config.PayloadBucket)
		if err != nil {
			return err
		}
		f.Payloads, f.Runs = p, f.Runs.WithPayloads(p)
	}
	if slices.Contains(need, workflow.EnvIndexTable) {
		f.Index, indexErr = store.NewIndex(c, f.Config.IndexTable)
	}
	if slices.Contains(need, workflow.EnvMapCacheTable) {
		f.Cache, cacheErr = store.NewCache(c, f.Config.MapCacheTable)
	}
	return errors.Join(runsErr, indexErr, cacheErr)
}
