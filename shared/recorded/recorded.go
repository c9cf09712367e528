// Package recorded reads the results runs recorded, for calibration to fit
// the tokenizer's rates from (docs/contract.md#calibrate): files as
// `run --json` writes them, read a value at a time under a size cap, and
// the results a runs store holds by query id. It imports no AWS package:
// the runs table arrives as a Runs.
package recorded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// MaxFileBytes bounds one results file: a result of the largest plan the
// state machine runs is a few MiB.
const MaxFileBytes = 256 << 20

// ReadFile reads the results of one file ("-": stdin): one JSON result,
// or several one after another. Anything else is invalid input naming the
// file, so a plan or a misnamed file never counts as a result without
// calls.
func ReadFile(name string, stdin io.Reader) ([]globalsearch.Result, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "read results: %v", err)
		}
		defer f.Close()
		r = f
	}
	return Decode(r, name, MaxFileBytes)
}

// Decode decodes the results of r (named name in messages) one value at a
// time, reading at most limit+1 bytes: a file past the limit is refused
// when the limit is reached and one that is not JSON at its first bad
// value, so neither is held whole (docs/contract.md#calibrate; reading
// /dev/zero whole first took 623 MB).
func Decode(r io.Reader, name string, limit int64) ([]globalsearch.Result, error) {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	tooLarge := func() error {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "%s is larger than %d MiB: no result is that large", name, limit>>20)
	}
	dec := json.NewDecoder(&squeezeSpace{r: lr})
	var out []globalsearch.Result
	for n := 1; ; n++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if lr.N <= 0 {
			return nil, tooLarge() // whatever the decoder made of the cut
		}
		if errors.Is(err, io.EOF) {
			break
		}
		var syntax *json.SyntaxError
		if err != nil && !errors.As(err, &syntax) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "read results from %s: %v", name, err)
		}
		if err != nil {
			return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "%s: value %d is not JSON: %v", name, n, err)
		}
		res, err := decodeResult(raw)
		if err != nil {
			return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "%s: value %d is not a result as run --json writes it: %v", name, n, err)
		}
		out = append(out, res)
	}
	if len(out) == 0 {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "%s holds no result", name)
	}
	return out, nil
}

// squeezeSpace passes JSON on with every run of whitespace outside strings
// cut to one byte. json.Decoder keeps the whitespace before a value in its
// buffer until the value ends, so 256 MiB of spaces would be held whole;
// squeezed, what it holds is the values, which mean the same.
type squeezeSpace struct {
	r                        io.Reader
	inString, escaped, space bool
}

func (s *squeezeSpace) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		kept := 0
		for _, c := range p[:n] {
			switch {
			case s.inString:
				s.inString = s.escaped || c != '"'
				s.escaped = !s.escaped && c == '\\'
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				if s.space {
					continue
				}
				s.space = true
			default:
				s.space, s.inString = false, c == '"'
			}
			p[kept] = c
			kept++
		}
		if kept > 0 || err != nil || n == 0 {
			return kept, err
		}
	}
}

// decodeResult decodes one result: an object with a query id and
// diagnostics. Unknown fields are allowed, so a newer version's results
// still read.
func decodeResult(raw json.RawMessage) (globalsearch.Result, error) {
	var probe struct {
		QueryID     string          `json:"queryId"`
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return globalsearch.Result{}, err
	}
	if probe.QueryID == "" || len(probe.Diagnostics) == 0 {
		return globalsearch.Result{}, errors.New("it has no queryId or no diagnostics")
	}
	var res globalsearch.Result
	err := json.Unmarshal(raw, &res)
	return res, err
}

// Runs is what FromRuns reads of a runs store (store.Runs, memstore).
type Runs interface {
	Result(ctx context.Context, queryID string) (globalsearch.Result, error)
}

// FromRuns reads the results of ids from runs, the runs table named table
// (in messages). An id without a result is invalid input: the caller named
// it; any other error of runs comes back wrapped, for the caller to say
// what the table lacks.
func FromRuns(ctx context.Context, runs Runs, table string, ids []string) ([]globalsearch.Result, error) {
	out := make([]globalsearch.Result, 0, len(ids))
	for _, id := range ids {
		res, err := runs.Result(ctx, id)
		if err != nil {
			if errors.Is(err, globalsearch.ErrNotFound) {
				return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "query id %s has no result in table %s", id, table)
			}
			return nil, fmt.Errorf("read result of %s: %w", id, err)
		}
		out = append(out, res)
	}
	return out, nil
}
