package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// The shared fixtures of indexfiletest, by the names these tests use.
var (
	smallIndex  = indexfiletest.Small
	writeIndex  = indexfiletest.Write
	titledIndex = indexfiletest.Titled
)

// sampleIndex is the sample index `make run` searches.
var sampleIndex = filepath.Join("..", "..", "testdata", "sample-index.json")

// testPrices are the prices of `--price-in 0.001 --price-out 0.005`.
var testPrices = &globalsearch.Prices{Map: globalsearch.Price{In: 0.001, Out: 0.005}, Reduce: globalsearch.Price{In: 0.001, Out: 0.005}}

// storeServer serves idx, a table's index (no file namespace), as
// `globalsearch mcp --no-cache` wires it: the offline model, no cache,
// the deployment's defaults; log, when given, is its log.
func storeServer(idx globalsearch.Index, log *bytes.Buffer) *Server {
	s := fileServer("", log)
	s.OpenIndex = func(context.Context) (globalsearch.Index, string, error) { return idx, "", nil }
	return s
}

// fileServer serves the index file at path, loaded on the first call
// that needs it.
func fileServer(path string, log *bytes.Buffer) *Server {
	s := &Server{
		OpenIndex: func(context.Context) (globalsearch.Index, string, error) {
			f, err := indexfile.Load(path)
			if err != nil {
				return nil, "", err
			}
			store := memstore.New()
			if err := store.ReplaceNamespace(context.Background(), f.Namespace, f.Records); err != nil {
				return nil, "", err
			}
			return store, f.Namespace, nil
		},
		NewEngine: func(_ context.Context, idx globalsearch.Index, withModel bool) (*globalsearch.Engine, error) {
			e := &globalsearch.Engine{Index: idx, Runs: memstore.New(), ModelID: "offline"}
			if withModel {
				e.Model, e.ModelID = offline.New(), offline.CacheID
			}
			return e, nil
		},
		NewRuns: func() globalsearch.Runs { return memstore.New() },
		Defaults: func(fileNamespace string) (globalsearch.Defaults, error) {
			d, err := globalsearch.DefaultsFromEnv(func(string) (string, bool) { return "", false })
			if err != nil {
				return globalsearch.Defaults{}, err
			}
			d = d.ForModel("offline")
			if fileNamespace != "" {
				d.Namespace = fileNamespace
			}
			return d, nil
		},
	}
	if log != nil {
		s.Log = log
	}
	return s
}

// withPrices is s with its engines priced.
func withPrices(s *Server) *Server {
	newEngine := s.NewEngine
	s.NewEngine = func(ctx context.Context, idx globalsearch.Index, withModel bool) (*globalsearch.Engine, error) {
		e, err := newEngine(ctx, idx, withModel)
		if err == nil {
			e.Prices = testPrices
		}
		return e, err
	}
	return s
}

func seeded(s *Server, seed int64) *Server {
	s.Seed = &seed
	return s
}

// connect serves s in process and returns a client session (with the
// client options opts) over an in-memory transport.
func connect(t *testing.T, s *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	serverSide, clientSide := sdk.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), serverSide)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := client.Connect(t.Context(), clientSide, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, out))
	}
	return res
}

func toolText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
