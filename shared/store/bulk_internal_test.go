package store

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
)

func TestFixedWidthNames(t *testing.T) {
	tests := []struct {
		name                   string
		names                  map[string]string
		key, projection        *string
		wantNames              map[string]string
		wantKey, wantProjected *string
	}{
		{"no projection", map[string]string{"#0": "queryId"}, aws.String("#0 = :0"), nil,
			map[string]string{"#n000": "queryId"}, aws.String("#n000 = :0"), nil},
		{"ten names and more", map[string]string{"#1": "batch", "#12": "sources", "#0": "queryId"},
			aws.String("#0 = :0"), aws.String("#1.#12, #1"),
			map[string]string{"#n000": "queryId", "#n001": "batch", "#n012": "sources"},
			aws.String("#n000 = :0"), aws.String("#n001.#n012, #n001")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			names, key, projection := fixedWidthNames(tc.names, tc.key, tc.projection)
			assert.Equal(t, tc.wantNames, names)
			assert.Equal(t, tc.wantKey, key)
			assert.Equal(t, tc.wantProjected, projection)
		})
	}
}
