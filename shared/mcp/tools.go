package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// searchInput is what both tools take (docs/contract.md#mcp-arguments).
// Every argument has a JSON-schema type; searchSchema adds what a struct
// tag cannot say (the level's forms, the enums).
type searchInput struct {
	Query     string   `json:"query" jsonschema:"the question to answer"`
	Namespace string   `json:"namespace,omitempty" jsonschema:"the index namespace to search (default: the index file's, else the deployment default)"`
	Level     levelArg `json:"level,omitempty"`
	// GraphRAGLevel is GraphRAG's community level (docs/contract.md#graphrag-level).
	GraphRAGLevel *int `json:"graphragLevel,omitempty" jsonschema:"GraphRAG's community level N, as graphrag query --community-level N: the summaries of level N and the leaves of the coarser levels (level \"graphrag:N\"); excludes level"`
	// MaxMapInputTokens is the ceiling of level "auto" (docs/contract.md#auto-level).
	MaxMapInputTokens *int   `json:"maxMapInputTokens,omitempty" jsonschema:"with level \"auto\": the most estimated map input tokens it may choose"`
	ResponseType      string `json:"responseType,omitempty" jsonschema:"the form of the answer, e.g. \"a bulleted list\" (default \"multiple paragraphs\")"`
	Selection         string `json:"selection,omitempty" jsonschema:"\"level\" (default) maps the summaries of level; \"dynamic\" rates communities top-down first and maps only the relevant ones"`
	ReduceMode        string `json:"reduceMode,omitempty" jsonschema:"\"single\" (default): one reduce prompt, answers past its budget are left out; \"tree\": reduce in rounds until every useful map answer has reached the answer"`
	callArgs
}

// levelDescription is the level argument's description in the schema.
const levelDescription = `community level: "leaf" (default), "auto" (the finest that fits maxMapInputTokens), a level number (that level's summaries only, 0 the coarsest) or "graphrag:N" (GraphRAG's community level N, as graphragLevel N)`

// searchSchema completes the schema of a search tool's input.
func searchSchema(props map[string]*jsonschema.Schema) {
	props["level"] = levelSchema(levelDescription)
	minimum := 0.0
	props["graphragLevel"].Minimum = &minimum
	props["selection"].Enum = []any{"level", globalsearch.SelectionDynamic}
	props["reduceMode"].Enum = []any{"single", "tree"}
	callSchema(props)
}

// globalSearchInput is global_search's input: a search and how much of
// its sources the reply holds.
type globalSearchInput struct {
	searchInput
	Detail string `json:"detail,omitempty" jsonschema:"\"compact\" (default): the answer, status and cited communities with titles; \"full\": also each cited community's claim and source-chunk ids"`
}

// toolRequest is a tool's input as a request. ReduceMode is the request's
// reduceMode field (docs/contract.md#request), passed on as the agent sent
// it for the request's rule to judge; it shadows any field of Request of
// the same JSON name, so the request holds the agent's value either way.
type toolRequest struct {
	globalsearch.Request
	ReduceMode *string `json:"reduceMode,omitempty"`
}

// request builds the tool's input as a request, with the server's seed
// and map concurrency. level and graphragLevel are the request's
// communityLevel (docs/contract.md#graphrag-level); giving both is refused.
func (t *tools) request(in searchInput) (toolRequest, error) {
	req := toolRequest{Request: globalsearch.Request{Query: in.Query, Namespace: in.Namespace}}
	switch g := in.GraphRAGLevel; {
	case g != nil && in.Level.given:
		return toolRequest{}, globalsearch.Errorf(globalsearch.KindInvalidInput, `level and graphragLevel exclude each other: graphragLevel N is level "graphrag:N"`)
	case g != nil && *g < 0:
		return toolRequest{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "graphragLevel must be a non-negative integer, GraphRAG's community level")
	case g != nil:
		level := globalsearch.GraphRAGLevel(*g)
		req.CommunityLevel = &level
	case in.Level.given:
		req.CommunityLevel = &in.Level.level
	}
	if in.ResponseType != "" {
		req.ResponseType = &in.ResponseType
	}
	if in.Selection != "" {
		req.Selection = &in.Selection
	}
	if in.ReduceMode != "" {
		req.ReduceMode = &in.ReduceMode
	}
	req.MaxMapInputTokens = in.MaxMapInputTokens
	in.callArgs.request(&req.Request)
	req.ShuffleSeed, req.MapConcurrency = t.Seed, t.MapConcurrency
	return req, nil
}

// levelArgName is the argument a call gave its level in, which a
// refusal of the request's communityLevel names instead.
func (in searchInput) levelArgName() string {
	if in.GraphRAGLevel != nil {
		return "graphragLevel"
	}
	return "level"
}

// params reads a tool's input as a request through the same path as JSON
// and the CLI, so bad input gets the message the CLI prints.
func (t *tools) params(in searchInput, fileNamespace string) (globalsearch.Params, error) {
	req, err := t.request(in)
	if err != nil {
		return globalsearch.Params{}, err
	}
	data, err := json.Marshal(req)
	if err != nil {
		return globalsearch.Params{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "encode request: %w", err)
	}
	defaults, err := t.Defaults(fileNamespace)
	if err != nil {
		return globalsearch.Params{}, err
	}
	p, err := globalsearch.ParseRequest(data, defaults)
	// The request names the field, communityLevel; the agent sent level
	// or graphragLevel (the other arguments are the fields' names).
	if msg := ""; err != nil && globalsearch.KindOf(err) == globalsearch.KindInvalidInput {
		if msg = err.Error(); strings.Contains(msg, "communityLevel") {
			return p, globalsearch.Errorf(globalsearch.KindInvalidInput, "%s", strings.ReplaceAll(msg, "communityLevel", in.levelArgName()))
		}
	}
	return p, err
}

// globalSearch runs one search. An error (bad input, a failed run, an
// index or model that would not open) comes back as a tool error whose
// text is the CLI's message.
func (t *tools) globalSearch(ctx context.Context, req *sdk.CallToolRequest, in globalSearchInput) (*sdk.CallToolResult, searchOutput, error) {
	full, err := parseDetail(in.Detail)
	if err != nil {
		return nil, searchOutput{}, err
	}
	// The input is judged before the model opens: bad input never waits
	// on, or fails for, the model's environment.
	_, fileNamespace, err := t.opened(ctx)
	if err != nil {
		return nil, searchOutput{}, err
	}
	p, err := t.params(in.searchInput, fileNamespace)
	if err != nil {
		return nil, searchOutput{}, err
	}
	e, err := t.openedSearch(ctx)
	if err != nil {
		return nil, searchOutput{}, err
	}
	// A store per call: the server may live for days, and nothing of one
	// call is read by another (the map cache is separate).
	e.Runs = t.NewRuns()
	e.Progress = progressNotifier(ctx, req)
	res, err := e.Search(ctx, p)
	if err != nil && ctx.Err() != nil && res.QueryID != "" {
		// A cancelled call still paid for the calls it made
		// (docs/contract.md#cancel): its reply and the log say so.
		spent := res.Diagnostics.SpendLine()
		fmt.Fprintf(t.Log, "globalsearch mcp: %s cancelled; spent %s\n", res.QueryID, spent)
		return nil, searchOutput{}, fmt.Errorf("%w; spent before the cancel: %s", err, spent)
	}
	if err != nil {
		return nil, searchOutput{}, err
	}
	return nil, t.reply(ctx, e.Index, res, full), nil
}

// progressNotifier sends the client a notifications/progress per map
// batch done (progress the batches done, total the batches) when the call
// carries a progress token; nil, no hook, when it does not. The engine
// never overlaps its calls, so the notifications go out in order.
func progressNotifier(ctx context.Context, req *sdk.CallToolRequest) func(done, total int) {
	if req == nil || req.Session == nil || req.Params == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return func(done, total int) {
		// A notification that cannot be sent is the client's loss only:
		// the search goes on, and its reply fails the same way if the
		// client has gone.
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(done), Total: float64(total),
			Message: fmt.Sprintf("map batches %d/%d", done, total),
		})
	}
}

// planSearch plans one search, calling no model; its reply is the
// report's figures (planToolOutput).
func (t *tools) planSearch(ctx context.Context, _ *sdk.CallToolRequest, in searchInput) (*sdk.CallToolResult, planToolOutput, error) {
	e, fileNamespace, err := t.opened(ctx)
	if err != nil {
		return nil, planToolOutput{}, err
	}
	p, err := t.params(in, fileNamespace)
	if err != nil {
		return nil, planToolOutput{}, err
	}
	plan, err := e.Plan(ctx, p)
	if err != nil {
		return nil, planToolOutput{}, err
	}
	out := e.Report(plan)
	res := planToolOutput{Summaries: out.SummaryCount, Batches: out.BatchCount,
		EstimatedTokens: out.EstimatedMapInputTokens, MaxModelCalls: out.MaxModelCalls, RatingTokens: out.Selection.MostRatingInputTokens}
	if c := out.Cost; c != nil {
		res.CostUSD = &c.Total
	}
	if a := out.Diagnostics.AutoLevel; a != nil {
		res.LevelUsed = a.LevelUsed.String()
	}
	if out.SeedDerivation != nil {
		res.ShuffleSeed, res.SeedDerivation = out.ShuffleSeed, out.SeedDerivation
	}
	return nil, res, nil
}
