package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// The models of a deployment with a model per stage (template.yaml's
// FoundationModelId, MapFoundationModelId, ReduceFoundationModelId).
const (
	spendMapModel    = "anthropic.claude-e2e-map-v1:0"
	spendReduceModel = "anthropic.claude-e2e-reduce-v1:0"
	spendMapCache    = "graphrag-map-cache"
)

// spendPrices are the deployment's prices in USD per 1,000 tokens
// (MapPriceIn, MapPriceOut, ReducePriceIn, ReducePriceOut): a cheap map
// model, a dear reduce one.
var spendPrices = globalsearch.Prices{
	Map:    globalsearch.Price{In: 0.00025, Out: 0.00125},
	Reduce: globalsearch.Price{In: 0.003, Out: 0.015},
}

// spendMaxCostUSD is the deployment's MaxCostUsd: far above the worst case
// of the cases' three-batch plans, so only a request's own maxCostUsd binds.
const spendMaxCostUSD = 1.0

// deployment is the environment template.yaml gives the functions: the
// Globals' variables every function sees, and each function's own, which
// win (as a function's Environment overrides the Globals').
type deployment struct {
	globals   map[string]string
	functions map[string]map[string]string // by short function name
}

func (d deployment) lookup(function string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := d.functions[function][name]; ok {
			return v, true
		}
		v, ok := d.globals[name]
		return v, ok
	}
}

// spendDeployment is template.yaml's environment with MapFoundationModelId
// and ReduceFoundationModelId set and, when priced, the four prices and
// MaxCostUsd: MODEL_ID is the map model's in the Globals and in the map
// function, the reduce model's in the reduce function.
func spendDeployment(priced bool) deployment {
	price := func(v float64) string {
		if !priced {
			return "" // a parameter left empty is unset
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	maxCost := ""
	if priced {
		maxCost = strconv.FormatFloat(spendMaxCostUSD, 'f', -1, 64)
	}
	return deployment{
		globals: map[string]string{
			workflow.EnvRunsTable: runsTable, workflow.EnvRunsTTLDays: "7",
			globalsearch.EnvMapPriceIn: price(spendPrices.Map.In), globalsearch.EnvMapPriceOut: price(spendPrices.Map.Out),
			globalsearch.EnvReducePriceIn: price(spendPrices.Reduce.In), globalsearch.EnvReducePriceOut: price(spendPrices.Reduce.Out),
			"GRAPHRAG_MAX_COST_USD": maxCost,
			workflow.EnvModelID:     spendMapModel,
		},
		functions: map[string]map[string]string{
			"prepare": {
				workflow.EnvIndexTable: "graphrag-index", workflow.EnvMapMaxConcurrency: "4",
				workflow.EnvMaxBatches: strconv.Itoa(workflow.DefaultMaxBatches), workflow.EnvPayloadBucket: payloadBucket,
			},
			"map": {
				workflow.EnvModelID: spendMapModel, workflow.EnvMapCacheTable: spendMapCache,
				workflow.EnvMapCacheTTLDays: "30", workflow.EnvPayloadBucket: payloadBucket,
			},
			"reduce": {workflow.EnvModelID: spendReduceModel},
			"api":    {workflow.EnvStateMachineARN: "arn:aws:states:" + region + ":" + account + ":stateMachine:graphrag-globalsearch"},
		},
	}
}

// spendEnv is an env whose functions are wired from a deployment's
// environment as functions/prepare, map, reduce and api wire theirs,
// against a fake Converse endpoint of its own (the suite's fake, a second
// instance: the env keeps its own one's address to itself).
type spendEnv struct {
	*env
	bedrock *modeltest.ConverseServer
	// prepare is the prepare function's engine and defaults: a case plans
	// with them in process to know the worst case prepare holds the
	// request to.
	prepare  *globalsearch.Engine
	defaults globalsearch.Defaults
	cache    *store.Cache
	// api is the API function's configuration.
	api workflow.Config
}

// newSpendEnv starts an env and replaces its functions with d's. The
// configuration and the handlers are built as the mains build them
// (functions/*/main.go, wiring.Load): the same variables needed, the same
// engine fields from the same Config.
func newSpendEnv(t *testing.T, d deployment) *spendEnv {
	t.Helper()
	e := &spendEnv{env: newEnv(t)}
	e.bedrock = newFakeBedrock(t, e.lambda)
	config := func(function string, need ...string) workflow.Config {
		c, err := workflow.ConfigFromEnv(d.lookup(function), need...)
		require.NoError(t, err, "the %s function's configuration", function)
		return c
	}
	prep := config("prepare", workflow.EnvIndexTable, workflow.EnvMapMaxConcurrency, workflow.EnvMaxBatches, workflow.EnvPayloadBucket)
	mp := config("map", workflow.EnvModelID, workflow.EnvMapCacheTable, workflow.EnvPayloadBucket)
	red := config("reduce", workflow.EnvModelID)
	e.api = config("api", workflow.EnvStateMachineARN)

	require.NoError(t, store.CreateTables(context.Background(), e.ddb, store.Tables{MapCache: mp.MapCacheTable}))
	var err error
	e.cache, err = store.NewCache(store.NewClient(e.ddb, store.WithCacheTTL(mp.MapCacheTTL)), mp.MapCacheTable)
	require.NoError(t, err)

	e.prepare = &globalsearch.Engine{Index: e.index, Runs: e.runs, MaxBatches: prep.MaxBatches, Prices: prep.Prices, ModelID: prep.ModelID,
		Quota: prep.Quota, MapMaxConcurrency: prep.MapMaxConcurrency}
	e.defaults = prep.Defaults
	prepare := &workflow.Handlers{Engine: e.prepare, Defaults: prep.Defaults, RunsTTL: prep.RunsTTL, Items: e.handlers.Items}
	mapper := &workflow.Handlers{Engine: &globalsearch.Engine{Model: e.model(t, mp.ModelID), Runs: e.runs,
		Cache: e.cache, ModelID: mp.ModelID}}
	reducer := &workflow.Handlers{Engine: &globalsearch.Engine{Model: e.model(t, red.ModelID), Runs: e.runs,
		ModelID: red.ModelID, Prices: red.Prices}, Failures: e.runs}
	e.lambda.setHandlers(map[string]lambda.Handler{
		"prepare": lambda.NewHandlerWithOptions(prepare.Prepare, workflow.Options()...),
		"map":     lambda.NewHandlerWithOptions(mapper.Map, workflow.Options()...),
		"reduce":  lambda.NewHandlerWithOptions(reducer.Reduce, workflow.Options()...),
	})
	return e
}

// model is the Bedrock adapter calling id at this env's fake endpoint, as
// wiring.Load builds a function's model from its MODEL_ID.
func (e *spendEnv) model(t *testing.T, id string) globalsearch.Model {
	t.Helper()
	m, err := bedrock.New(aws.Config{
		Region:       region,
		Credentials:  testenv.StaticCredentials(),
		BaseEndpoint: aws.String(e.bedrock.URL),
		HTTPClient:   &http.Client{Transport: tagging{next: http.DefaultTransport}},
	}, id, bedrock.WithMaxAttempts(3), bedrock.WithMaxBackoff(10*time.Millisecond))
	require.NoError(t, err)
	return m
}

// calls are the Converse calls of one run.
func (e *spendEnv) calls(queryID string) []modeltest.ConverseCall {
	var out []modeltest.ConverseCall
	for _, c := range e.bedrock.Calls() {
		if c.Header.Get(headerQuery) == queryID {
			out = append(out, c)
		}
	}
	return out
}

// worstCase is the worst case prepare holds a request to
// (docs/contract.md#cost-ceiling), from an in-process plan of the same
// request by the prepare function's engine and defaults.
func (e *spendEnv) worstCase(t *testing.T, input map[string]any) globalsearch.StageCost {
	t.Helper()
	data, err := json.Marshal(input)
	require.NoError(t, err)
	p, err := globalsearch.ParseRequest(data, e.defaults)
	require.NoError(t, err)
	plan, err := e.prepare.Plan(context.Background(), p)
	require.NoError(t, err)
	require.NotNil(t, e.prepare.Prices)
	return e.prepare.Prices.WorstCase(p, plan.MapInputTokens(), len(plan.Batches))
}

// spendRun is one case's execution and what it left.
type spendRun struct {
	out    *sfn.DescribeExecutionOutput
	res    globalsearch.Result
	run    *run
	calls  []modeltest.ConverseCall
	errors map[string]int // failed tasks by error name
}

// spendCase is one case's query id and namespace, its index loaded.
func (e *spendEnv) spendCase(t *testing.T, name string, summaries int) (queryID, namespace string) {
	t.Helper()
	slug := strings.ReplaceAll(name, " ", "-")
	queryID = uniqueName("q-" + slug)
	namespace = strings.ToLower(uniqueName("ns-" + slug))
	e.loadIndex(t, namespace, summaries)
	return queryID, namespace
}

// execute runs input as the execution queryID names, on a state machine of
// its own, the model answering with script.
func (e *spendEnv) execute(t *testing.T, queryID string, input any, script func(modelCall) modeltest.ConverseReply) spendRun {
	t.Helper()
	rn := newRun()
	rn.model = script
	e.lambda.register(queryID, rn)
	m := e.newStateMachine(t)
	arn := e.start(t, m, queryID, input)
	x := spendRun{out: e.wait(t, m, arn), run: rn}
	var err error
	x.res, err = e.runs.Result(context.Background(), queryID)
	require.NoError(t, err, "the runs table has a result\n%s", e.history(m, arn))
	x.calls = e.calls(queryID)
	x.errors = e.taskErrors(t, m, arn)
	return x
}

// post is POST /namespaces/{namespace}/queries through the API function as
// the deployment configures it; on 202 it returns the execution the API
// would start, else the response's body.
func (e *spendEnv) post(t *testing.T, namespace string, body map[string]any) (status int, name string, input json.RawMessage, reply string) {
	t.Helper()
	starter := &capturingStarter{}
	h := &api.Handler{Runs: e.runs, Starter: starter, Defaults: e.api.Defaults, Prices: e.api.Prices}
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	var req events.APIGatewayV2HTTPRequest
	req.RawPath = "/namespaces/" + namespace + "/queries"
	req.PathParameters = map[string]string{"namespace": namespace}
	req.RequestContext.HTTP.Method = http.MethodPost
	req.Body = string(raw)
	resp, err := h.Handle(context.Background(), req)
	require.NoError(t, err)
	return resp.StatusCode, starter.name, starter.input, resp.Body
}
