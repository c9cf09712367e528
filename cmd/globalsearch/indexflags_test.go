package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIndexOptionsOneSource: the index flags exclude each other before
// anything is opened (shared/indexsource tests the opening).
func TestIndexOptionsOneSource(t *testing.T) {
	_, _, err := (&indexOptions{table: "idx", file: "x.json"}).open(context.Background(), nil)
	var usage *usageError
	assert.ErrorAs(t, err, &usage)
}
