// Command api is the HTTP API's function: POST /queries records a request
// and starts the state machine; GET /queries/{id} reads the runs table
// (shared/api).
package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/execution"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
)

func main() {
	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	defaults, envErr := globalsearch.DefaultsFromEnv(os.LookupEnv)
	ttlDays, ttlErr := strconv.Atoi(os.Getenv("RUNS_TTL_DAYS"))
	cfg, cfgErr := config.LoadDefaultConfig(context.Background())
	if err := errors.Join(envErr, ttlErr, cfgErr); err != nil {
		logger.Error("configuration", "error", err.Error())
		os.Exit(1)
	}
	h := &api.Handler{
		Runs: store.New(dynamodb.NewFromConfig(cfg), store.Tables{Runs: os.Getenv("RUNS_TABLE")},
			store.WithTTL(time.Duration(ttlDays)*24*time.Hour)),
		Starter:  execution.New(sfn.NewFromConfig(cfg), os.Getenv("STATE_MACHINE_ARN")),
		Defaults: defaults,
		Logger:   logger,
	}
	lambda.Start(h.Handle)
}
