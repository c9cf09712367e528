package openai

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

func TestConformance(t *testing.T) {
	modeltest.Run(t, func(t *testing.T) globalsearch.Model {
		fake := &fakeServer{replies: []reply{completion(`{"answer":"Sorrel Bank is a wind farm [Data: Reports (c-wind)].","usefulness":80}`, "stop", 120, 12)}}
		srv := httptest.NewServer(fake)
		t.Cleanup(srv.Close)
		m, err := New(srv.URL+"/v1/", "llama3.1", fast)
		require.NoError(t, err)
		return m
	})
}
