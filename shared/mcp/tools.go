package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// searchInput is what both tools take. level is "leaf" or a level number,
// as a string or a number.
type searchInput struct {
	Query     string `json:"query" jsonschema:"the question to answer"`
	Namespace string `json:"namespace,omitempty" jsonschema:"the index namespace to search (default: the index file's, else the deployment default)"`
	Level     any    `json:"level,omitempty" jsonschema:"community level: \"leaf\" (default), \"auto\" (the finest that fits maxMapInputTokens) or a level number, 0 the coarsest"`
	// MaxMapInputTokens is the ceiling of level "auto" (docs/contract.md#auto-level).
	MaxMapInputTokens *int   `json:"maxMapInputTokens,omitempty" jsonschema:"with level \"auto\": the most estimated map input tokens it may choose"`
	ResponseType      string `json:"responseType,omitempty" jsonschema:"the form of the answer, e.g. \"a bulleted list\" (default \"multiple paragraphs\")"`
	Selection         string `json:"selection,omitempty" jsonschema:"\"level\" (default) maps the summaries of level; \"dynamic\" rates communities top-down first and maps only the relevant ones"`
}

// globalSearchInput is global_search's input: a search and how much of
// its sources the reply holds.
type globalSearchInput struct {
	searchInput
	Detail string `json:"detail,omitempty" jsonschema:"\"compact\" (default): the answer, status and cited communities with titles; \"full\": also each cited community's claim and source-chunk ids"`
}

// toolRequest is a tool's input as a request. The level stays the JSON the
// client sent, so the request's own rule judges it, in the field table's
// order and within the strict reader's depth limit
// (docs/contract.md#strict-json), as it judges the same level in a JSON
// request; it shadows Request's CommunityLevel.
type toolRequest struct {
	globalsearch.Request
	CommunityLevel json.RawMessage `json:"communityLevel,omitempty"`
}

// request builds the tool's input as a request, with the server's seed
// and map concurrency. A level given as a string is read as the CLI's --level is.
func (t *tools) request(in searchInput) (toolRequest, error) {
	req := toolRequest{Request: globalsearch.Request{Query: in.Query, Namespace: in.Namespace}}
	level := in.Level
	if s, ok := level.(string); ok {
		l, err := globalsearch.ParseLevel(s)
		if err != nil {
			return toolRequest{}, &globalsearch.Error{Kind: globalsearch.KindInvalidInput, Err: err}
		}
		level = l
	}
	if level != nil {
		raw, err := json.Marshal(level)
		if err != nil {
			return toolRequest{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "encode request: %w", err)
		}
		req.CommunityLevel = raw
	}
	if in.ResponseType != "" {
		req.ResponseType = &in.ResponseType
	}
	if in.Selection != "" {
		req.Selection = &in.Selection
	}
	req.MaxMapInputTokens = in.MaxMapInputTokens
	req.ShuffleSeed, req.MapConcurrency = t.Seed, t.MapConcurrency
	return req, nil
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
	return globalsearch.ParseRequest(data, defaults)
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
	return nil, res, nil
}
