package globalsearch

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// tokenizerField is the request table's row of docs/contract.md#token-estimate's
// option. A run stores the estimate as "", the zero value, so that a
// request naming it and one naming nothing under an estimate default are
// the same request, and a plan of the estimate reads as it always did.
var tokenizerField = requestField{
	name: "tokenizer", env: "GRAPHRAG_TOKENIZER",
	parse: func(raw json.RawMessage, p *Params) error {
		s, err := parseTokenizer(raw)
		p.Tokenizer = runTokenizer(s)
		return err
	},
	setDefault: func(raw json.RawMessage, d *Defaults) (err error) {
		d.Tokenizer, err = parseTokenizer(raw)
		return err
	},
	useDefault: func(d Defaults, p *Params) { p.Tokenizer = runTokenizer(d.Tokenizer) },
}

func parseTokenizer(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || !tokens.Valid(s) {
		return "", errors.New("tokenizer must be one of " + strings.Join(tokens.Names, ", "))
	}
	return s, nil
}

func runTokenizer(s string) string {
	if s == tokens.NameEstimate {
		return ""
	}
	return s
}

// ForModel is d with the tokenizer default of model's family filled in
// where the deployment chose none (docs/contract.md#token-estimate). It is
// the one place that rule is applied: the CLI calls it with --model, the
// functions with MODEL_ID.
func (d Defaults) ForModel(model string) Defaults {
	if d.Tokenizer == "" {
		d.Tokenizer = tokens.DefaultFor(model)
	}
	return d
}

// counter is the run's Counter: its tokenizer option, with the calibrated
// rates of the engine's model. A binary built without the exact
// vocabularies refuses an exact option here, before any read.
func (e *Engine) counter(p Params) (tokens.Counter, error) {
	c, err := tokens.For(p.Tokenizer, e.ModelID)
	if err != nil {
		return nil, Errorf(KindInternal, "%w", err)
	}
	return c, nil
}
