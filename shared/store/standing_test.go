package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/storetest"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

func TestStandingConformanceMinidyn(t *testing.T) {
	storetest.RunStanding(t, func(t *testing.T) globalsearch.Standing {
		client := testenv.Minidyn(t)
		return newRuns(t, client, newTables(t, client).Runs)
	})
	runStandingUnreadable(t, testenv.Minidyn(t))
}

// standingDamages are the ways a standing item can be one the runs table
// cannot read: each rewrites the item's attributes.
var standingDamages = map[string]func(item map[string]types.AttributeValue){
	"a record that is not gzip": func(item map[string]types.AttributeValue) {
		item["recordGzip"] = &types.AttributeValueMemberB{Value: []byte("not a record")}
	},
	"half a record": func(item map[string]types.AttributeValue) {
		old := item["recordGzip"].(*types.AttributeValueMemberB).Value
		item["recordGzip"] = &types.AttributeValueMemberB{Value: old[:len(old)/2]}
	},
	"no record": func(item map[string]types.AttributeValue) { delete(item, "recordGzip") },
	"a startedAt of another type": func(item map[string]types.AttributeValue) {
		item["startedAt"] = &types.AttributeValueMemberS{Value: "yesterday"}
	},
}

// runStandingUnreadable runs storetest.RunStandingUnreadable on the runs
// table of client, damaging the item with a GetItem and a PutItem.
func runStandingUnreadable(t *testing.T, client *dynamodb.Client) {
	kinds := []string{"a record that is not gzip", "half a record", "no record", "a startedAt of another type"}
	storetest.RunStandingUnreadable(t, kinds, func(t *testing.T, kind string) (globalsearch.Standing, func(string, string)) {
		table := newTables(t, client).Runs
		return newRuns(t, client, table), func(ns, name string) {
			ctx := context.Background()
			key := map[string]types.AttributeValue{
				"queryId": &types.AttributeValueMemberS{Value: "#standing#" + ns + "#" + name},
				"sk":      &types.AttributeValueMemberS{Value: "standing"},
			}
			out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
			require.NoError(t, err)
			require.NotEmpty(t, out.Item)
			standingDamages[kind](out.Item)
			_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: out.Item})
			require.NoError(t, err)
		}
	})
}

func TestStandingConformanceMoto(t *testing.T) {
	client := testenv.DynamoDBClient(t, testenv.Moto(t, testenv.MotoOptions{}))
	storetest.RunStanding(t, func(t *testing.T) globalsearch.Standing {
		return newRuns(t, client, newTables(t, client).Runs)
	})
	runStandingUnreadable(t, client)
	ttl := 5 * 24 * time.Hour
	storetest.RunStandingExpiry(t, ttl, func(t *testing.T, clock *storetest.StandingClock) globalsearch.Standing {
		return newRuns(t, client, newTables(t, client).Runs, store.WithTTL(ttl), store.WithClock(clock.Now))
	})
}

// The record is an item of the runs table under a partition no query id
// can name, with the runs' expiry (docs/contract.md#standing-questions).
func TestStandingItemKeyAndExpiry(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	runs := newRuns(t, client, tables.Runs, store.WithTTL(6*24*time.Hour), store.WithClock(func() time.Time { return now }))
	require.NoError(t, runs.SaveStandingRecord(ctx, globalsearch.StandingRecord{
		Namespace: "reports", Name: "nightly", QueryID: "q-1", StartedAt: now,
		Communities: []globalsearch.CommunityHash{{ID: "c1", Hash: "0123456789abcdef"}},
	}, false))
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tables.Runs), Key: map[string]types.AttributeValue{
		"queryId": &types.AttributeValueMemberS{Value: "#standing#reports#nightly"},
		"sk":      &types.AttributeValueMemberS{Value: "standing"},
	}})
	require.NoError(t, err)
	require.NotEmpty(t, out.Item)
	var it struct {
		QueryID   string `dynamodbav:"queryId"`
		SK        string `dynamodbav:"sk"`
		ExpiresAt int64  `dynamodbav:"expiresAt"`
	}
	require.NoError(t, attributevalue.UnmarshalMap(out.Item, &it))
	assert.Equal(t, "#standing#reports#nightly", it.QueryID)
	assert.Equal(t, "standing", it.SK)
	assert.Equal(t, now.Add(6*24*time.Hour).Unix(), it.ExpiresAt)
	assert.False(t, globalsearch.ValidQueryID(it.QueryID), "no query id collides with the record")
}

// Reduce writes the record and prepare reads it with the calls their roles
// already allow on the runs table (docs/aws.md#iam-least-privilege): reduce one GetItem (what
// is stored decides whether it may be replaced) and one UpdateItem,
// prepare one GetItem.
func TestStandingUsesTheRolesCalls(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	fake := &fakeClient{next: client}
	runs := newRuns(t, fake, newTables(t, client).Runs)
	rec := globalsearch.StandingRecord{Namespace: "default", Name: "nightly", QueryID: "q-1", StartedAt: time.Now(),
		Communities: []globalsearch.CommunityHash{{ID: "c1", Hash: "0123456789abcdef"}}}
	require.NoError(t, runs.SaveStandingRecord(ctx, rec, false))
	assert.Equal(t, map[string]int{"GetItem": 1, "UpdateItem": 1}, fake.Calls())
	fake.Reset()
	_, err := runs.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"GetItem": 1}, fake.Calls())
}
