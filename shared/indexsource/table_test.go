package indexsource

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMissingTable: writing to, deleting from or searching a table that
// does not exist names the table and how to create it; create makes it.
func TestMissingTable(t *testing.T) {
	ctx := context.Background()
	s := minidynEnv(t, "absent")
	records := smallIndex().Records
	wantMissing := func(t *testing.T, err error) {
		t.Helper()
		assert.ErrorContains(t, err, `the DynamoDB table "absent" does not exist`)
		assert.ErrorContains(t, err, "--create-table")
	}

	wantMissing(t, ReplaceInTable(ctx, "absent", "carol", records, false))
	wantMissing(t, DeleteNamespace(ctx, "absent", "carol"))
	idx, _, err := Source{Table: "absent"}.Open(ctx)
	require.NoError(t, err, "the table is first read by a search")
	_, err = idx.Open(ctx, "carol")
	wantMissing(t, err)

	require.NoError(t, ReplaceInTable(ctx, "absent", "carol", records, true))
	sums, err := s.Summaries(ctx, "carol")
	require.NoError(t, err)
	assert.Len(t, sums, 3)
	require.NoError(t, DeleteNamespace(ctx, "absent", "carol"))
	sums, err = s.Summaries(ctx, "carol")
	require.NoError(t, err)
	assert.Empty(t, sums)
}

// TestMissingRegion: a table with no AWS region configured is invalid
// input that says what to set.
func TestMissingRegion(t *testing.T) {
	minidynEnv(t, "idx")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	_, err := OpenTable(context.Background(), "idx", false)
	assert.ErrorContains(t, err, "DynamoDB needs an AWS region")
}
