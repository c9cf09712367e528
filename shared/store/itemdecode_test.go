package store

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// filled is a T with every field set to a value of its own, so that a
// field the decoder leaves out, or reads under another name, shows.
func filled[T any]() T {
	var v T
	fill(reflect.ValueOf(&v).Elem(), 1)
	return v
}

func fill(v reflect.Value, seed int) int {
	for i := range v.NumField() {
		f := v.Field(i)
		seed++
		switch f.Kind() {
		case reflect.Struct:
			seed = fill(f, seed)
		case reflect.String:
			f.SetString(fmt.Sprintf("%s-%d", v.Type().Field(i).Name, seed))
		case reflect.Int:
			f.SetInt(int64(seed))
		case reflect.Float64:
			f.SetFloat(float64(seed) + 0.25)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{fmt.Sprintf("a-%d", seed), fmt.Sprintf("b-%d", seed)}))
		default:
			panic("fill: no value for a " + f.Kind().String())
		}
	}
	return seed
}

// sameFields asserts that every field of the item type it holds (its key
// aside) reads back into the record's field of the same name.
func sameFields(t *testing.T, stored, record any) {
	t.Helper()
	sv, rv := reflect.ValueOf(stored), reflect.ValueOf(record)
	for i := range sv.NumField() {
		name := sv.Type().Field(i).Name
		if name == "indexKey" {
			continue
		}
		got := rv.FieldByName(name)
		require.True(t, got.IsValid(), "%T has no field %s", record, name)
		assert.Equal(t, sv.Field(i).Interface(), got.Interface(), name)
	}
	assert.Equal(t, sv.NumField()-1, rv.NumField(), "%T and %T have as many fields", stored, record)
}

// roundTrip writes stored as ReplaceNamespace does and reads it back with
// decode, checking it against attributevalue's own reading of the item.
func roundTrip[I, R any](t *testing.T, stored I, decode func(item) (R, error)) {
	t.Helper()
	it, err := attributevalue.MarshalMap(stored)
	require.NoError(t, err)
	got, err := decode(it)
	require.NoError(t, err)
	sameFields(t, stored, got)
	var viaReflection I
	require.NoError(t, attributevalue.UnmarshalMap(it, &viaReflection))
	assert.Equal(t, stored, viaReflection)
}

// TestItemDecoders holds the hand decoders to the item types that write
// the items: every field, under its tag's name, in its stored shape.
func TestItemDecoders(t *testing.T) {
	t.Run("summary", func(t *testing.T) { roundTrip(t, filled[summaryItem](), decodeSummary) })
	t.Run("claim", func(t *testing.T) { roundTrip(t, filled[claimItem](), decodeClaim) })
	t.Run("chunk", func(t *testing.T) { roundTrip(t, filled[chunkItem](), decodeChunk) })
	t.Run("entity", func(t *testing.T) { roundTrip(t, filled[entityItem](), decodeEntity) })
	t.Run("relationship", func(t *testing.T) { roundTrip(t, filled[relationshipItem](), decodeRelationship) })
}

func TestItemDecodersReadMissingAndOtherShapes(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	tests := []struct {
		name    string
		it      item
		want    globalsearch.Claim
		wantErr string
	}{
		{name: "omitted fields are empty", it: item{"id": s("c1")}, want: globalsearch.Claim{ID: "c1"}},
		{name: "NULL reads as absent", it: item{"id": s("c1"), "object": &types.AttributeValueMemberNULL{Value: true},
			"sourceChunkIds": &types.AttributeValueMemberNULL{Value: true}}, want: globalsearch.Claim{ID: "c1"}},
		{name: "a string set reads as a list", it: item{"id": s("c1"), "sourceChunkIds": &types.AttributeValueMemberSS{Value: []string{"x", "y"}}},
			want: globalsearch.Claim{ID: "c1", SourceChunkIDs: []string{"x", "y"}}},
		{name: "an empty list stays a list", it: item{"id": s("c1"), "sourceChunkIds": &types.AttributeValueMemberL{}},
			want: globalsearch.Claim{ID: "c1", SourceChunkIDs: []string{}}},
		{name: "a number where a string is", it: item{"id": n("1")}, wantErr: "attribute id is *types.AttributeValueMemberN, not a string"},
		{name: "a list holding a number", it: item{"id": s("c1"), "sourceChunkIds": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x"), n("2")}}},
			wantErr: "attribute sourceChunkIds[1] is *types.AttributeValueMemberN, not a string"},
		{name: "a map where a list is", it: item{"id": s("c1"), "sourceChunkIds": &types.AttributeValueMemberM{}},
			wantErr: "attribute sourceChunkIds is *types.AttributeValueMemberM, not a list of strings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeClaim(tc.it)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestItemDecodersReadNumbers(t *testing.T) {
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	tests := []struct {
		name    string
		it      item
		want    globalsearch.Summary
		wantErr string
	}{
		{name: "integers and a fraction", it: item{"level": n("2"), "size": n("40"), "rank": n("7.5")}, want: globalsearch.Summary{Level: 2, Size: 40, Rank: 7.5}},
		{name: "an exponent", it: item{"rank": n("1e2")}, want: globalsearch.Summary{Rank: 100}},
		{name: "a fraction where an integer is", it: item{"level": n("1.5")}, wantErr: `attribute level: strconv.Atoi: parsing "1.5": invalid syntax`},
		{name: "a string where a number is", it: item{"size": &types.AttributeValueMemberS{Value: "4"}}, wantErr: "attribute size is *types.AttributeValueMemberS, not a number"},
		{name: "the first error is the one said", it: item{"level": n("x"), "rank": n("y")}, wantErr: `attribute level: strconv.Atoi: parsing "x": invalid syntax`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeSummary(tc.it)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
