package limits

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strings"
)

// DynamoDB's sizes (docs/contract.md#limits-model).
const (
	// MaxItemSize is the largest item DynamoDB stores: 400 KB, counting
	// attribute names and values.
	MaxItemSize = 400 * 1024
	writeUnit   = 1024
	readUnit    = 4096
)

// rawItem is an item or key in DynamoDB's wire JSON.
type rawItem = map[string]json.RawMessage

// itemSize is the size DynamoDB bills an item by: the UTF-8 bytes of each
// attribute name plus its value's size. An undecodable value counts its
// JSON bytes (the emulator then refuses it).
func itemSize(it rawItem) int {
	n := 0
	for name, raw := range it {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			n += len(name) + len(raw)
			continue
		}
		n += len(name) + valueSize(v)
	}
	return n
}

// valueSize follows DynamoDB's item size rules: strings and binaries by
// their bytes, numbers by about one byte per two digits plus one, booleans
// and nulls one byte, and lists and maps three bytes plus one per element
// beside the elements' own sizes.
func valueSize(v any) int {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return 0
	}
	for typ, val := range m {
		switch typ {
		case "S":
			s, _ := val.(string)
			return len(s)
		case "N":
			s, _ := val.(string)
			return numberSize(s)
		case "B":
			return binarySize(val)
		case "BOOL", "NULL":
			return 1
		case "SS", "NS", "BS":
			return setSize(typ, val)
		case "L":
			l, _ := val.([]any)
			n := 3
			for _, e := range l {
				n += 1 + valueSize(e)
			}
			return n
		case "M":
			mm, _ := val.(map[string]any)
			n := 3
			for k, e := range mm {
				n += 1 + len(k) + valueSize(e)
			}
			return n
		}
	}
	return 0
}

func numberSize(s string) int {
	digits := len(strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(s), "0"))
	return (digits+1)/2 + 1
}

func binarySize(val any) int {
	s, _ := val.(string)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return len(s)
	}
	return len(b)
}

func setSize(typ string, val any) int {
	l, _ := val.([]any)
	n := 0
	for _, e := range l {
		s, _ := e.(string)
		switch typ {
		case "SS":
			n += len(s)
		case "NS":
			n += numberSize(s)
		default:
			n += binarySize(s)
		}
	}
	return n
}

// units is size in units of unit bytes, rounded up, at least one.
func units(size, unit int) float64 {
	return math.Max(1, math.Ceil(float64(size)/float64(unit)))
}
