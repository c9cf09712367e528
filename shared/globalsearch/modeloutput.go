package globalsearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExtractJSON reads the JSON value in a model's output (docs/contract.md#model-output): the
// first fenced block's body if there is one, parsed whole, else the slice
// from the first '{' or '[' to the last '}' or ']'. A null counts as no
// value. Numbers stay json.Number so that "80" and 80 can be told apart.
func ExtractJSON(text string) (any, error) {
	body := text
	if fenced, ok := firstFence(text); ok {
		body = fenced
	}
	if v, ok := parseJSON(body); ok {
		return v, nil
	}
	if start := strings.IndexAny(body, "{["); start >= 0 {
		if end := strings.LastIndexAny(body, "}]"); end > start {
			if v, ok := parseJSON(body[start : end+1]); ok {
				return v, nil
			}
		}
	}
	return nil, &Error{Kind: KindModelOutput, Err: fmt.Errorf("model output is not valid JSON: %s", preview(text))}
}

const fence = "```"

func firstFence(text string) (string, bool) {
	open := strings.Index(text, fence)
	if open < 0 {
		return "", false
	}
	rest := text[open+len(fence):]
	// An info string such as "json" runs to the end of the fence's line.
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
		rest = rest[nl+1:]
	} else {
		rest = strings.TrimPrefix(rest, "json")
	}
	if end := strings.Index(rest, fence); end >= 0 {
		rest = rest[:end]
	}
	return rest, true
}

func parseJSON(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || v == nil {
		return nil, false
	}
	// "Parsed whole" means nothing but space after the value.
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// preview is the first 200 code points of s, marked when cut.
func preview(s string) string {
	if utf8.RuneCountInString(s) <= 200 {
		return s
	}
	n := 0
	for i := range s {
		if n == 200 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// trimAnswer trims Unicode space and the byte order mark (docs/contract.md#model-output).
func trimAnswer(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
}

func outputError(msg string) error {
	return &Error{Kind: KindModelOutput, Err: errors.New(msg)}
}

// ParseMapOutput validates a map answer (docs/contract.md#model-output) and returns the trimmed
// answer and its usefulness.
func ParseMapOutput(text string) (answer string, usefulness float64, err error) {
	v, err := ExtractJSON(text)
	if err != nil {
		return "", 0, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", 0, outputError("map output must be a JSON object")
	}
	rawAnswer, hasAnswer := obj["answer"]
	rawScore, hasScore := obj["usefulness"]
	if !hasAnswer || !hasScore {
		return "", 0, outputError("map output must contain answer and usefulness fields")
	}
	s, ok := rawAnswer.(string)
	if !ok {
		return "", 0, outputError("map output answer must be a string")
	}
	num, ok := rawScore.(json.Number)
	if !ok {
		return "", 0, outputError("map output usefulness must be a number")
	}
	u, err := num.Float64()
	if err != nil {
		return "", 0, outputError("map output usefulness must be a number from 0 to 100")
	}
	if s, err = checkMapAnswer(s, u); err != nil {
		return "", 0, err
	}
	return s, u, nil
}

// checkMapAnswer applies the map answer's value rules (docs/contract.md#model-output) to an
// answer however it arrived (from the model, or from the map-answer
// cache) and returns the answer trimmed.
func checkMapAnswer(answer string, u float64) (string, error) {
	if math.IsNaN(u) || math.IsInf(u, 0) || u < 0 || u > 100 {
		return "", outputError("map output usefulness must be a number from 0 to 100")
	}
	answer = trimAnswer(answer)
	if u > 0 && answer == "" {
		return "", outputError("map output answer must not be empty when usefulness is above 0")
	}
	return answer, nil
}

// ParseReduceOutput validates a reduce answer (docs/contract.md#reduce-call).
func ParseReduceOutput(text string) (string, error) {
	v, err := ExtractJSON(text)
	if err != nil {
		return "", err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", outputError("reduce output must contain an answer field")
	}
	raw, ok := obj["answer"]
	if !ok {
		return "", outputError("reduce output must contain an answer field")
	}
	s, ok := raw.(string)
	if !ok || trimAnswer(s) == "" {
		return "", outputError("reduce output contains an invalid answer")
	}
	return trimAnswer(s), nil
}
