package deploy_test

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// TestAPIRoutes: the HTTP API has exactly the three namespace routes
// (docs/contract.md#entry-points), each behind IAM and integrated with the API function, which
// routes them; API Gateway may invoke the function for those routes only.
func TestAPIRoutes(t *testing.T) {
	s := translate(t, nil)
	paths, ok := path(s.resource(t, "HttpApi", "AWS::ApiGatewayV2::Api"), "Body", "paths").(map[string]any)
	require.True(t, ok, "the HTTP API has an OpenAPI body")
	var routes []string
	for p, ops := range paths {
		for method, op := range ops.(map[string]any) {
			routes = append(routes, strings.ToUpper(method)+" "+p)
			assert.Equal(t, []any{map[string]any{"AWS_IAM": []any{}}}, path(op, "security"), "%s %s is IAM-authorised", method, p)
			assert.Contains(t, render(path(op, "x-amazon-apigateway-integration", "uri")), "${ApiFunction.Arn}", "%s %s", method, p)
			assert.Equal(t, "2.0", path(op, "x-amazon-apigateway-integration", "payloadFormatVersion"))
		}
	}
	sort.Strings(routes)
	assert.Equal(t, []string{"DELETE /namespaces/{namespace}/queries/{id}", "GET /namespaces/{namespace}/queries/{id}", "POST /namespaces/{namespace}/queries"}, routes)

	var sources []string
	for _, id := range s.ofType("AWS::Lambda::Permission") {
		props := s.resources[id].Properties
		if path(props, "FunctionName") == nil || render(path(props, "FunctionName")) != render(map[string]any{"Ref": "ApiFunction"}) {
			continue
		}
		sources = append(sources, render(path(props, "SourceArn")))
	}
	sort.Strings(sources)
	const httpAPI = "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${HttpApi}/*/"
	assert.Equal(t, []string{httpAPI + "DELETE/namespaces/*/queries/*", httpAPI + "GET/namespaces/*/queries/*", httpAPI + "POST/namespaces/*/queries"}, sources)

	// The handler serves every route the template declares.
	h := &api.Handler{Runs: memstore.New(), Starter: noStarter{}, Defaults: globalsearch.SpecDefaults}
	for _, route := range routes {
		method, p, _ := strings.Cut(route, " ")
		req := events.APIGatewayV2HTTPRequest{RouteKey: route, PathParameters: map[string]string{"namespace": "acme", "id": "q-1"}}
		req.RawPath = strings.NewReplacer("{namespace}", "acme", "{id}", "q-1").Replace(p)
		req.RequestContext.HTTP.Method = method
		req.Body = `{"query":"q"}`
		resp, err := h.Handle(context.Background(), req)
		require.NoError(t, err)
		assert.NotContains(t, resp.Body, "no route", route)
		assert.NotEqual(t, http.StatusMethodNotAllowed, resp.StatusCode, route)
	}
}

type noStarter struct{}

func (noStarter) Start(context.Context, string, []byte) error { return nil }
func (noStarter) Execution(context.Context, string) (string, string, error) {
	return "", "", nil
}
func (noStarter) Stop(context.Context, string, string) error { return nil }

// TestMaxModelCallsParameter: the ceiling reaches every function as
// GRAPHRAG_MAX_MODEL_CALLS (the API refuses requests above it, prepare
// plans over it), its default is the code's, and the configuration reader
// reads what the template sets.
func TestMaxModelCallsParameter(t *testing.T) {
	defaults := translate(t, nil)
	assert.Equal(t, strconv.Itoa(globalsearch.DefaultMaxModelCalls), defaults.params["MaxModelCalls"])
	for _, tc := range []struct {
		name  string
		value string // "" = the template's default
		want  int
	}{
		{"default", "", globalsearch.DefaultMaxModelCalls},
		{"set", "42", 42},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var overrides map[string]string
			if tc.value != "" {
				overrides = map[string]string{"MaxModelCalls": tc.value}
			}
			s := translate(t, overrides)
			for _, fn := range []string{"ApiFunction", "PrepareFunction"} {
				vars, ok := path(s.resource(t, fn, "AWS::Lambda::Function"), "Environment", "Variables").(map[string]any)
				require.True(t, ok, "%s has environment variables", fn)
				env := map[string]string{}
				for k, v := range vars {
					env[k] = render(v)
				}
				assert.Equal(t, strconv.Itoa(tc.want), env["GRAPHRAG_MAX_MODEL_CALLS"], fn)
				c, err := workflow.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
				require.NoError(t, err, fn)
				assert.Equal(t, tc.want, c.Defaults.MaxModelCalls, fn)
			}
		})
	}
}
