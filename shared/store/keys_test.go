package store

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Struct tags cannot name a constant: the key types must still encode to
// the attribute names the tables (and the template) are keyed by.
func TestKeyTypesUseTheKeyAttributes(t *testing.T) {
	index, err := attributevalue.MarshalMap(indexKey{Namespace: "n", SK: "s"})
	require.NoError(t, err)
	run, err := attributevalue.MarshalMapWithOptions(runKey{QueryID: "q", SK: "s"}, jsonTags)
	require.NoError(t, err)
	full, err := attributevalue.MarshalMapWithOptions(runItem{QueryID: "q", SK: "s", ExpiresAt: 1}, jsonTags)
	require.NoError(t, err)
	tests := []struct {
		name string
		item item
		want []string
	}{
		{"index key", index, []string{attrNamespace, attrSK}},
		{"runs key", run, []string{attrQueryID, attrSK}},
		{"runs item", full, []string{attrQueryID, attrSK, TTLAttribute}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for k := range tc.item {
				got = append(got, k)
			}
			assert.ElementsMatch(t, tc.want, got)
		})
	}
}
