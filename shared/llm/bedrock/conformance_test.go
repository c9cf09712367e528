package bedrock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

func TestConformance(t *testing.T) {
	modeltest.Run(t, func(t *testing.T) globalsearch.Model {
		fake := modeltest.NewConverseServer(t, modeltest.InOrder(
			ok(`{"answer":"Sorrel Bank is a wind farm [Data: Reports (c-wind)].","usefulness":80}`, "end_turn", 120, 12)))
		m, err := bedrock.New(testConfig(fake.URL), haiku, bedrock.WithMaxBackoff(time.Millisecond))
		require.NoError(t, err)
		return m
	})
}
