package mcp

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/lookup"
)

// The read tool (docs/mcp.md#read): what `globalsearch show` prints, for
// an agent that holds an id from a global_search reply and wants the text,
// entities and sources behind it.

// readInput is read's input. Without an id it lists the communities.
type readInput struct {
	ID        string `json:"id,omitempty" jsonschema:"the id to read: a community id from global_search's communities, or a claim, chunk, entity or relationship id; leave it out to list the communities by level"`
	Namespace string `json:"namespace,omitempty" jsonschema:"the index namespace (default: the index file's, else the deployment default)"`
	Kind      string `json:"kind,omitempty" jsonschema:"read the id as this kind only: community, claim, chunk, entity or relationship"`
	Limit     *int   `json:"limit,omitempty" jsonschema:"the most claims, excerpts, entities and relationships listed of a community, each (default 10, at most 1000); omitted counts the rest"`
}

// readOutput is read's reply: the record, or the communities by level.
type readOutput struct {
	Record  *lookup.Record     `json:"record,omitempty" jsonschema:"the record the id names"`
	Reports *lookup.ReportList `json:"reports,omitempty" jsonschema:"without an id: the communities of the namespace by level"`
}

// Read's list bounds: a community of a large index holds thousands of
// entities, and an agent reads the whole reply into its context; the
// default keeps a Christmas Carol community near 15 KB.
const (
	readDefaultLimit = 10
	readMaxLimit     = 1000
)

// readHint is the line a compact global_search reply carries, so that an
// agent learns it can follow an id.
const readHint = "read {\"id\": <community id>} shows a community's summary, claims, excerpts (with their GraphRAG text units and documents), entities and relationships"

// addRead adds read as the search tools are added (addTool): every
// argument typed in its schema, an unknown one refused, and a refusal
// naming the argument sent (docs/contract.md#mcp-arguments).
func (t *tools) addRead(srv *sdk.Server) {
	addTool(srv, &sdk.Tool{
		Name: "read",
		Description: "Read one record of the index by id, as `globalsearch show` prints it: a community (title, level, summary, " +
			"the claims of its leaves, their source excerpts with GraphRAG text unit ids, the documents with titles, its entities " +
			"and relationships), a claim, a chunk, an entity or a relationship. Without an id: the communities by level. No model call.",
	}, t.Log, readSchema, t.read)
}

// readSchema lists what read's kind and limit may be, which read checks
// again in its own words.
func readSchema(props map[string]*jsonschema.Schema) {
	kinds := make([]any, len(lookup.Kinds))
	for i, k := range lookup.Kinds {
		kinds[i] = string(k)
	}
	props["kind"].Enum = kinds
	least, most := 1.0, float64(readMaxLimit)
	props["limit"].Minimum, props["limit"].Maximum = &least, &most
}

func (t *tools) read(ctx context.Context, _ *sdk.CallToolRequest, in readInput) (*sdk.CallToolResult, readOutput, error) {
	kind, err := lookup.ParseKind(in.Kind)
	if err != nil {
		return nil, readOutput{}, err
	}
	limit := readDefaultLimit
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > readMaxLimit {
			return nil, readOutput{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "limit must be from 1 to %d, not %d", readMaxLimit, *in.Limit)
		}
		limit = *in.Limit
	}
	if in.ID != "" {
		if err := globalsearch.CheckID(in.ID); err != nil {
			return nil, readOutput{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "id %s %v", globalsearch.Echo(in.ID), err)
		}
	}
	if in.Namespace != "" && !globalsearch.ValidNamespace(in.Namespace) {
		return nil, readOutput{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "namespace %s", globalsearch.NamespaceRule)
	}
	e, fileNamespace, err := t.opened(ctx)
	if err != nil {
		return nil, readOutput{}, err
	}
	ns := in.Namespace
	if ns == "" {
		d, err := t.Defaults(fileNamespace)
		if err != nil {
			return nil, readOutput{}, err
		}
		ns = d.Namespace
	}
	if in.ID == "" {
		levels, err := lookup.Reports(ctx, e.Index, ns)
		if err != nil {
			return nil, readOutput{}, err
		}
		return nil, readOutput{Reports: &lookup.ReportList{Namespace: ns, Levels: levels}}, nil
	}
	rec, err := lookup.Find(ctx, e.Index, ns, in.ID, lookup.Options{Kind: kind, Limit: limit, List: "read without an id"})
	if err != nil {
		return nil, readOutput{}, err
	}
	return nil, readOutput{Record: &rec}, nil
}
