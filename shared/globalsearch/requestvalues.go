package globalsearch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// This file reads the raw JSON of a request: the object itself, then each
// field's value by its rule, every failure in the field's own words
// (docs/contract.md#request).

// decodeObject reads a request body into its raw fields.
func decodeObject(data []byte) (map[string]json.RawMessage, error) {
	// The strict check comes first: it reads any input in memory linear in
	// its size and nests at most strictjson.MaxDepth levels, and it says
	// where a request that is not JSON breaks (docs/contract.md#strict-json).
	// encoding/json would also stop at the end of the object and keep the
	// last of two equal keys: a stray '}' or a field given twice would pass
	// unseen.
	if err := strictjson.Check(data); err != nil {
		var se *strictjson.Error
		errors.As(err, &se)
		switch {
		case se == nil:
			return nil, Errorf(KindInvalidInput, "request is not valid JSON: %w", err)
		case errors.Is(err, strictjson.ErrDuplicateKey) && se.Path == "":
			return nil, Errorf(KindInvalidInput, "request field %s is given more than once", EchoQuoted(se.Key))
		case errors.Is(err, strictjson.ErrTrailingData):
			return nil, Errorf(KindInvalidInput, "request must be a single JSON object: %w", err)
		case errors.Is(err, strictjson.ErrTooDeep), errors.Is(err, strictjson.ErrDuplicateKey), errors.Is(err, strictjson.ErrByteOrderMark),
			errors.Is(err, strictjson.ErrNotUTF8):
			return nil, Errorf(KindInvalidInput, "request: %w", err)
		}
		if msg, ok := notANumber(data, se); ok {
			return nil, Errorf(KindInvalidInput, "%s", msg)
		}
		return nil, Errorf(KindInvalidInput, "request is not valid JSON: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return nil, Errorf(KindInvalidInput, "request must be a JSON object, not %s", strictjson.Kind(data))
	}
	return fields, nil
}

// notANumber is the message of a request field whose value is NaN or
// Infinity, which some encoders write for a float and JSON has no word
// for: the field's own message, as for any other value it refuses
// (docs/contract.md#request).
func notANumber(data []byte, se *strictjson.Error) (string, bool) {
	i := int(se.Offset)
	if i < 0 || i > len(data) {
		return "", false
	}
	rest := bytes.TrimPrefix(data[i:], []byte("-"))
	if !bytes.HasPrefix(rest, []byte("NaN")) && !bytes.HasPrefix(rest, []byte("Infinity")) {
		return "", false
	}
	for _, f := range requestFields {
		if f.name == se.Path {
			var p Params
			if err := f.parse(json.RawMessage(`NaN`), &p); err != nil {
				return err.Error(), true
			}
		}
	}
	return "", false
}

func parseQuery(raw json.RawMessage) (string, error) {
	if raw == nil {
		return "", errors.New("query must not be empty")
	}
	var s string
	if string(raw) == "null" || json.Unmarshal(raw, &s) != nil {
		return "", errors.New("query must be a string")
	}
	s = strings.TrimSpace(s)
	// A query of zero-width, format or control characters reads as blank
	// to its author and would still cost every model call of a search.
	if !strings.ContainsFunc(s, visible) {
		return "", errors.New("query must not be empty")
	}
	if utf8.RuneCountInString(s) > MaxQueryRunes {
		return "", fmt.Errorf("query must be at most %d characters", MaxQueryRunes)
	}
	return s, nil
}

// visible reports whether r shows as a character (docs/contract.md#request): a letter,
// mark, digit, punctuation or symbol that Unicode does not mark as
// ignorable (variation selectors, the Hangul fillers, the grapheme
// joiner). Spaces, separators, control and format characters (zero-width
// spaces and joiners, bidi controls, tag characters) are not.
func visible(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) &&
		!unicode.In(r, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// breaksText reports whether r is what docs/contract.md#request calls a line break or
// control character: a control (Cc, which holds \n, \r, NEL and the
// terminal escape), a line or paragraph separator (Zl, Zp: U+2028,
// U+2029) or a format character (Cf: bidi controls, zero-width spaces,
// the BOM, tag characters), which can reorder or hide text from whoever
// reads it. The zero-width joiner and non-joiner are format characters
// that Persian, Indic and emoji text need to be written at all, and they
// hide nothing, so they are text.
func breaksText(r rune) bool {
	if r == '\u200c' || r == '\u200d' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// parseResponseType reads docs/contract.md#request's free text. It goes into the reduce
// prompt's instructions, so a line break or other control character
// (breaksText), which could start or hide instructions of its own, is
// refused rather than passed on.
func parseResponseType(raw json.RawMessage) (string, error) {
	const msg = "responseType must be 1-100 characters of text without line breaks or control characters"
	var s string
	if string(raw) == "null" || json.Unmarshal(raw, &s) != nil {
		return "", errors.New(msg)
	}
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > MaxResponseTypeRunes || strings.ContainsFunc(s, breaksText) {
		return "", errors.New(msg)
	}
	return s, nil
}

func parseNamespace(raw json.RawMessage) (string, error) {
	return parseString(raw, namespacePattern, "namespace "+NamespaceRule)
}

func parseString(raw json.RawMessage, pattern *regexp.Regexp, msg string) (string, error) {
	var s string
	if string(raw) == "null" || json.Unmarshal(raw, &s) != nil || !pattern.MatchString(s) {
		return "", errors.New(msg)
	}
	return s, nil
}

func parseCount(raw json.RawMessage, min int64, msg string) (int, error) {
	n, err := parseInt64(raw, min, msg)
	if err != nil || n > math.MaxInt32 {
		return 0, errors.New(msg)
	}
	return int(n), nil
}

func parseInt64(raw json.RawMessage, min int64, msg string) (int64, error) {
	n, ok := jsonInt(raw)
	if !ok || n < min {
		return 0, errors.New(msg)
	}
	return n, nil
}

// jsonInt reads an integer field by the rule an index file's integers are
// read by (strictjson.Int, docs/contract.md#strict-json): digits only, so
// 1e2 and 5.0 are refused here as they are there; -0 is 0.
func jsonInt(raw []byte) (int64, bool) { return strictjson.Int(raw) }
