package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// chattyServer answers every call with modeltest.ChattyAnswer: valid JSON,
// but every third call wrapped in prose unless it asked for a JSON schema.
// It honours json_object no more than such a model does.
type chattyServer struct {
	mu  sync.Mutex
	seq int
}

func (s *chattyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		ResponseFormat struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	data, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(data, &body)
	s.mu.Lock()
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	prompt := ""
	if n := len(body.Messages); n > 0 {
		prompt = body.Messages[n-1].Content
	}
	text := modeltest.ChattyAnswer(seq, prompt, body.ResponseFormat.Type == "json_schema")
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, completion(text, "stop", 900, 40).body)
}

// TestSchemaOutputSavesAttempts measures map attempts per batch over a whole
// search against a model that wraps its JSON in prose a third of the time:
// asking for JSON only (json_object, what the adapter asked before schemas)
// and asking for the stage's schema.
func TestSchemaOutputSavesAttempts(t *testing.T) {
	perBatch := map[Format]float64{}
	for _, f := range []Format{FormatJSON, FormatSchema} {
		srv := httptest.NewServer(&chattyServer{})
		m, err := New(srv.URL+"/v1", "llama3.1", fast, WithFormat(f))
		require.NoError(t, err)
		e, ns := sampleEngine(t, m)
		batches, calls := modeltest.SearchAttempts(t, e, ns)
		srv.Close()
		require.Greater(t, batches, 10, "enough batches to measure")
		perBatch[f] = float64(calls) / float64(batches)
		t.Logf("response_format %s: %d batches, %d map calls, %.3f attempts per batch", f, batches, calls, perBatch[f])
	}
	assert.Equal(t, 1.0, perBatch[FormatSchema], "schema output: every batch answers at its first attempt")
	assert.Greater(t, perBatch[FormatJSON], perBatch[FormatSchema])
}

// sampleEngine is an engine over the sample index in memory, calling model.
func sampleEngine(t *testing.T, model globalsearch.Model) (*globalsearch.Engine, string) {
	t.Helper()
	f, err := indexfile.Load(modeltest.SampleIndex)
	require.NoError(t, err)
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	return &globalsearch.Engine{Index: store, Runs: store, Model: model}, f.Namespace
}
