package store

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// MaxItemBytes is DynamoDB's item size limit (400 KB, counted as KiB).
const MaxItemBytes = 400 * 1024

// itemSize estimates an item's size by DynamoDB's published rules, rounding
// up where they are approximate, so an item refused here would be refused
// by DynamoDB too and an item accepted here is not refused by it.
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		// About one byte per two significant digits plus one; the digit
		// count bounds that from above.
		return len(v.Value)/2 + 2
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += len(s)/2 + 2
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

// checkSize refuses an item over the limit, naming it: an item is never
// truncated to fit.
func checkSize(what string, item map[string]types.AttributeValue) error {
	if n := itemSize(item); n > MaxItemBytes {
		return globalsearch.Errorf(globalsearch.KindInvalidInput,
			"%s is %d bytes as a DynamoDB item, over the %d-byte (400 KB) item limit", what, n, MaxItemBytes)
	}
	return nil
}
