package localserver

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"html/template"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

//go:embed page.html
var pageHTML string

// The page's script, in two files by concern: the form, the run and its
// answer; the side panel and the browse view.
var (
	//go:embed page.js
	pageJS string
	//go:embed panel.js
	panelJS string
)

// pageTemplate is the page at /: one document, its script and style
// inline, so the binary serves it offline with no build step.
var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

// pageData is what the page is rendered with: the default namespace, the
// models serve runs (the page names them) and the script under its nonce.
type pageData struct {
	Namespace, Nonce      string
	MapModel, ReduceModel string
	Script                template.JS
}

// routes are the API's routes through the same handler a deployment runs,
// the page, and the local-only routes the page needs
// (docs/contract.md#serve): plans, communities, records, reports and a
// query's answer stream. Any other path is the API's own not found.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	apiRoutes := api.HTTP(s.handler.Handle)
	mux.Handle("/namespaces/{namespace}/queries", apiRoutes)
	mux.Handle("/namespaces/{namespace}/queries/{id}", apiRoutes)
	mux.HandleFunc("GET /namespaces/{namespace}/queries/{id}/events", s.events)
	mux.Handle("/namespaces/{namespace}/plans", api.HTTP(s.plans))
	mux.Handle("/namespaces/{namespace}/communities/{id}", api.HTTP(s.community))
	mux.Handle("/namespaces/{namespace}/records/{id}", api.HTTP(s.records))
	mux.Handle("/namespaces/{namespace}/reports", api.HTTP(s.reports))
	mux.HandleFunc("GET /{$}", s.page)
	mux.Handle("/", apiRoutes)
	return mux
}

func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	nonce := rand.Text()
	var buf bytes.Buffer
	data := pageData{Namespace: s.cfg.Defaults.Namespace, Nonce: nonce,
		MapModel: ModelName(s.engine.Model), ReduceModel: ModelName(s.engine.Model),
		Script: template.JS(pageJS + "\n" + panelJS)}
	if s.engine.ReduceModel != nil {
		data.ReduceModel = ModelName(s.engine.ReduceModel)
	}
	if err := pageTemplate.Execute(&buf, data); err != nil {
		http.Error(w, "render page", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// The page runs only its own script (the nonce) and reads only this
	// server: were text ever to become markup, no script of it would run.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(buf.Bytes())
}

// ModelName is how the page names model m: the spec serve opened it by
// (--model, --map-model, --reduce-model), else what m calls itself.
func ModelName(m globalsearch.Model) string {
	switch v := m.(type) {
	case globalsearch.TimeoutModel:
		return v.Name
	case interface{ ModelID() string }:
		return v.ModelID()
	case nil:
		return "none"
	}
	return "in-process model"
}

// Plan is what the plans route answers: the domain's plan report, as
// `plan --json` prints it (docs/contract.md#plan-report), and the most the
// search can cost when prices are set.
type Plan struct {
	globalsearch.PlanReport
	CostUSD *float64 `json:"costUsd,omitempty"`
}

// plans is `POST /namespaces/{namespace}/plans`: the body of a query's
// POST, planned with no model call and nothing stored.
func (s *Server) plans(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	if req.RequestContext.HTTP.Method != http.MethodPost {
		return notAllowed(http.MethodPost), nil
	}
	ns := req.PathParameters["namespace"]
	if !globalsearch.ValidNamespace(ns) {
		return s.handler.Fail(ctx, "", globalsearch.Errorf(globalsearch.KindInvalidInput, "the path's namespace %s", globalsearch.NamespaceRule)), nil
	}
	p, err := api.ReadRequest(req, s.cfg.Defaults, ns)
	if err != nil {
		return s.handler.Fail(ctx, "", err), nil
	}
	plan, err := s.engine.Plan(ctx, p)
	if err != nil {
		return s.planFailure(ctx, err), nil
	}
	out := s.engine.Report(plan)
	res := Plan{PlanReport: out}
	if out.Cost != nil {
		res.CostUSD = &out.Cost.Total
	}
	return api.Reply(http.StatusOK, res), nil
}

// planFailure answers a plan that cannot run with its message: a plan
// beyond the limits or a corrupt index is a failed run behind the API's
// POST, but here it is the answer the caller asked for (422), and any
// other error is the API's own.
func (s *Server) planFailure(ctx context.Context, err error) events.APIGatewayV2HTTPResponse {
	switch globalsearch.KindOf(err) {
	case globalsearch.KindPlanTooLarge:
		return api.Reply(http.StatusUnprocessableEntity, api.Error{Error: "plan_too_large", Message: err.Error()})
	case globalsearch.KindCorruptIndex:
		return api.Reply(http.StatusUnprocessableEntity, api.Error{Error: "corrupt_index", Message: err.Error()})
	}
	return s.handler.Fail(ctx, "", err)
}

// Community is what the communities route answers: a community's
// summary and, with ?queryId=, the claims and source excerpts its map text
// held in that query (the result's citation, docs/contract.md#citations).
type Community struct {
	globalsearch.Summary
	QueryID   string               `json:"queryId,omitempty"`
	Claims    []globalsearch.Claim `json:"claims"`
	Excerpts  []globalsearch.Chunk `json:"excerpts"`
	Truncated bool                 `json:"truncated,omitempty"`
}

// community is `GET /namespaces/{namespace}/communities/{id}[?queryId=Q]`,
// read from the index as it is now.
func (s *Server) community(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	if req.RequestContext.HTTP.Method != http.MethodGet {
		return notAllowed(http.MethodGet), nil
	}
	ns, id, queryID := req.PathParameters["namespace"], req.PathParameters["id"], req.QueryStringParameters["queryId"]
	if !globalsearch.ValidNamespace(ns) {
		return s.handler.Fail(ctx, "", globalsearch.Errorf(globalsearch.KindInvalidInput, "the path's namespace %s", globalsearch.NamespaceRule)), nil
	}
	var cited *globalsearch.Citation
	if queryID != "" {
		res, err := s.runs.Result(ctx, queryID)
		if err != nil || res.Namespace != ns {
			// Another namespace's query reads as missing, as the API's GET.
			return s.handler.Fail(ctx, queryID, notFoundOr(err, "no query with id %s in namespace %s", queryID, ns)), nil
		}
		for i := range res.Citations {
			if res.Citations[i].CommunityID == id {
				cited = &res.Citations[i]
			}
		}
	}
	out, err := s.readCommunity(ctx, ns, id, cited)
	if err != nil {
		return s.handler.Fail(ctx, queryID, err), nil
	}
	out.QueryID = queryID
	return api.Reply(http.StatusOK, out), nil
}

// readCommunity reads community id of namespace ns and, when cited, the
// claims and chunks the citation names, in its order.
func (s *Server) readCommunity(ctx context.Context, ns, id string, cited *globalsearch.Citation) (Community, error) {
	snap, err := s.engine.Index.Open(ctx, ns)
	if err != nil {
		return Community{}, err
	}
	summaries, err := snap.Summaries(ctx)
	if err != nil {
		return Community{}, err
	}
	out := Community{Claims: []globalsearch.Claim{}, Excerpts: []globalsearch.Chunk{}}
	found := false
	for _, sum := range summaries {
		if sum.ID == id {
			out.Summary, found = sum, true
		}
	}
	if !found {
		return Community{}, globalsearch.Errorf(globalsearch.KindNotFound, "no community %s in namespace %s", id, ns)
	}
	if cited == nil {
		return out, nil
	}
	out.Truncated = cited.Truncated
	claims, err := snap.Claims(ctx)
	if err != nil {
		return Community{}, err
	}
	out.Claims = inCitedOrder(out.Claims, claims, cited.ClaimIDs, func(c globalsearch.Claim) string { return c.ID })
	chunks, err := snap.Chunks(ctx, cited.ChunkIDs)
	if err != nil {
		return Community{}, err
	}
	out.Excerpts = inCitedOrder(out.Excerpts, chunks, cited.ChunkIDs, func(c globalsearch.Chunk) string { return c.ID })
	return out, nil
}

// inCitedOrder appends to out the records among all that ids names, in the
// order of ids (a citation's order); an id with no record is left out.
func inCitedOrder[T any](out, all []T, ids []string, idOf func(T) string) []T {
	byID := make(map[string]T, len(all))
	for _, r := range all {
		byID[idOf(r)] = r
	}
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			out = append(out, r)
		}
	}
	return out
}

// notFoundOr is err unless it is a not found (or nil: the query is
// another namespace's), which reads as the message.
func notFoundOr(err error, format string, args ...any) error {
	if err != nil && !errors.Is(err, globalsearch.ErrNotFound) {
		return err
	}
	return globalsearch.Errorf(globalsearch.KindNotFound, format, args...)
}

// notAllowed answers a method a local route does not take, as the API
// answers one of its own.
func notAllowed(allow string) events.APIGatewayV2HTTPResponse {
	resp := api.Reply(http.StatusMethodNotAllowed, api.Error{Error: "method_not_allowed", Message: "use " + allow})
	resp.Headers["Allow"] = allow
	return resp
}
