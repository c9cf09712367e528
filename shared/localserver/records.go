package localserver

import (
	"context"
	"net/http"
	"strconv"

	"github.com/aws/aws-lambda-go/events"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/lookup"
)

// The read routes of docs/contract.md#serve-records: what `globalsearch
// show` prints, for the page. They read the index as it is now.

// maxRecordLimit bounds ?limit=: a page never lists more of one kind.
const maxRecordLimit = 10000

// records is `GET /namespaces/{namespace}/records/{id}[?kind=K&limit=N]`:
// the record id names, as `show --json` prints it (lookup.Record).
func (s *Server) records(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	if req.RequestContext.HTTP.Method != http.MethodGet {
		return notAllowed(http.MethodGet), nil
	}
	ns, id := req.PathParameters["namespace"], req.PathParameters["id"]
	if !globalsearch.ValidNamespace(ns) {
		return s.handler.Fail(ctx, "", globalsearch.Errorf(globalsearch.KindInvalidInput, "the path's namespace %s", globalsearch.NamespaceRule)), nil
	}
	opts, err := recordOptions(req.QueryStringParameters)
	if err != nil {
		return s.handler.Fail(ctx, "", err), nil
	}
	rec, err := lookup.Find(ctx, s.engine.Index, ns, id, opts)
	if err != nil {
		return s.handler.Fail(ctx, "", err), nil
	}
	return api.Reply(http.StatusOK, rec), nil
}

// recordOptions reads the records route's query: kind (lookup.Kinds) and
// limit (1 to maxRecordLimit; none lists all).
func recordOptions(q map[string]string) (lookup.Options, error) {
	kind, err := lookup.ParseKind(q["kind"])
	if err != nil {
		return lookup.Options{}, err
	}
	opts := lookup.Options{Kind: kind, List: "GET /namespaces/{namespace}/reports"}
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxRecordLimit {
			return lookup.Options{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "limit must be a whole number from 1 to %d, not %s", maxRecordLimit, globalsearch.Echo(v))
		}
		opts.Limit = n
	}
	return opts, nil
}

// reports is `GET /namespaces/{namespace}/reports`.
func (s *Server) reports(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	if req.RequestContext.HTTP.Method != http.MethodGet {
		return notAllowed(http.MethodGet), nil
	}
	ns := req.PathParameters["namespace"]
	if !globalsearch.ValidNamespace(ns) {
		return s.handler.Fail(ctx, "", globalsearch.Errorf(globalsearch.KindInvalidInput, "the path's namespace %s", globalsearch.NamespaceRule)), nil
	}
	levels, err := lookup.Reports(ctx, s.engine.Index, ns)
	if err != nil {
		return s.handler.Fail(ctx, "", err), nil
	}
	return api.Reply(http.StatusOK, lookup.ReportList{Namespace: ns, Levels: levels}), nil
}
