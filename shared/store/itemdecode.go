package store

import (
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The index's records are decoded by hand, not by attributevalue: a
// search reads every summary and claim of a version, and at 100,000
// summaries reflection over 300,000 items was 0.7 s of prepare's CPU
// (docs/scale.md#first-map-call-components). The attribute names are the
// item types' tags in index.go, which write the items; TestItemDecoders
// holds the two to the same names and shapes.

// itemFields reads an item's attributes as attributevalue would into the
// item types: an absent or NULL attribute is the zero value, any other
// type than the field's is an error naming the attribute.
type itemFields struct {
	it  item
	err error
}

func (f *itemFields) fail(name string, av types.AttributeValue, want string) {
	if f.err == nil {
		f.err = fmt.Errorf("attribute %s is %T, not %s", name, av, want)
	}
}

func (f *itemFields) str(name string) string {
	switch av := f.it[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return ""
	case *types.AttributeValueMemberS:
		return av.Value
	default:
		f.fail(name, av, "a string")
		return ""
	}
}

// number is an N attribute's text ("" when absent); parse reads it.
func (f *itemFields) number(name string) string {
	switch av := f.it[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return ""
	case *types.AttributeValueMemberN:
		return av.Value
	default:
		f.fail(name, av, "a number")
		return ""
	}
}

func (f *itemFields) int(name string) int {
	s := f.number(name)
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("attribute %s: %w", name, err)
	}
	return n
}

func (f *itemFields) float(name string) float64 {
	s := f.number(name)
	if s == "" {
		return 0
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("attribute %s: %w", name, err)
	}
	return n
}

// strings reads a list of strings, or a string set (attributevalue reads
// either into a []string).
func (f *itemFields) strings(name string) []string {
	switch av := f.it[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return nil
	case *types.AttributeValueMemberSS:
		return av.Value
	case *types.AttributeValueMemberL:
		out := make([]string, len(av.Value))
		for i, e := range av.Value {
			s, ok := e.(*types.AttributeValueMemberS)
			if !ok {
				f.fail(fmt.Sprintf("%s[%d]", name, i), e, "a string")
				return nil
			}
			out[i] = s.Value
		}
		return out
	default:
		f.fail(name, av, "a list of strings")
		return nil
	}
}

func decodeSummary(it item) (globalsearch.Summary, error) {
	f := itemFields{it: it}
	s := globalsearch.Summary{ID: f.str("id"), Level: f.int("level"), ParentCommunityID: f.str("parentCommunityId"),
		Title: f.str("title"), Summary: f.str("summary"), Rank: f.float("rank"), Size: f.int("size"),
		ShortSummary: f.str("shortSummary")}
	return s, f.err
}

func decodeClaim(it item) (globalsearch.Claim, error) {
	f := itemFields{it: it}
	c := globalsearch.Claim{ID: f.str("id"), CommunityID: f.str("communityId"), Subject: f.str("subject"),
		Object: f.str("object"), Description: f.str("description"), SourceChunkIDs: f.strings("sourceChunkIds")}
	return c, f.err
}

func decodeChunk(it item) (globalsearch.Chunk, error) {
	f := itemFields{it: it}
	c := globalsearch.Chunk{ID: f.str("id"), Text: f.str("text"), DocumentID: f.str("documentId"),
		TextUnitID: f.str("textUnitId"), DocumentTitle: f.str("documentTitle")}
	return c, f.err
}
