package globalsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func TestPricesFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    *gs.Prices
		wantErr string
	}{
		{"none", nil, nil, ""},
		{"the shared pair prices both stages", map[string]string{"GRAPHRAG_PRICE_IN": "3", "GRAPHRAG_PRICE_OUT": "15"},
			&gs.Prices{Map: gs.Price{In: 3, Out: 15}, Reduce: gs.Price{In: 3, Out: 15}}, ""},
		{"a stage's own pair wins", map[string]string{"GRAPHRAG_PRICE_IN": "3", "GRAPHRAG_PRICE_OUT": "15",
			"GRAPHRAG_MAP_PRICE_IN": "0.25", "GRAPHRAG_MAP_PRICE_OUT": "1.25"},
			&gs.Prices{Map: gs.Price{In: 0.25, Out: 1.25}, Reduce: gs.Price{In: 3, Out: 15}}, ""},
		{"each stage its own", map[string]string{"GRAPHRAG_MAP_PRICE_IN": "0.25", "GRAPHRAG_MAP_PRICE_OUT": "1.25",
			"GRAPHRAG_REDUCE_PRICE_IN": "3", "GRAPHRAG_REDUCE_PRICE_OUT": "0"},
			&gs.Prices{Map: gs.Price{In: 0.25, Out: 1.25}, Reduce: gs.Price{In: 3}}, ""},
		{"half a pair", map[string]string{"GRAPHRAG_MAP_PRICE_IN": "0.25", "GRAPHRAG_REDUCE_PRICE_IN": "3", "GRAPHRAG_REDUCE_PRICE_OUT": "15"}, nil,
			"GRAPHRAG_MAP_PRICE_IN and GRAPHRAG_MAP_PRICE_OUT (or GRAPHRAG_PRICE_IN and GRAPHRAG_PRICE_OUT) go together: give both or neither"},
		{"one stage priced", map[string]string{"GRAPHRAG_MAP_PRICE_IN": "0.25", "GRAPHRAG_MAP_PRICE_OUT": "1.25"}, nil,
			"the map model has prices and the reduce model none: price both stages (GRAPHRAG_REDUCE_PRICE_IN/OUT or GRAPHRAG_PRICE_IN/OUT) or neither"},
		{"not a price", map[string]string{"GRAPHRAG_REDUCE_PRICE_OUT": "-1"}, nil,
			`GRAPHRAG_REDUCE_PRICE_OUT: price must be a non-negative number of USD per 1,000 tokens, got "-1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := gs.PricesFromEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
