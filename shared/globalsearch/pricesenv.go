package globalsearch

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The variables that price the models (docs/contract.md#cost), in USD per
// 1,000 tokens: a stage's own, else the shared pair.
const (
	EnvPriceIn        = "GRAPHRAG_PRICE_IN"
	EnvPriceOut       = "GRAPHRAG_PRICE_OUT"
	EnvMapPriceIn     = "GRAPHRAG_MAP_PRICE_IN"
	EnvMapPriceOut    = "GRAPHRAG_MAP_PRICE_OUT"
	EnvReducePriceIn  = "GRAPHRAG_REDUCE_PRICE_IN"
	EnvReducePriceOut = "GRAPHRAG_REDUCE_PRICE_OUT"
)

// ParsePrice reads a price as a variable or a flag gives it: a
// non-negative, finite number of USD per 1,000 tokens.
func ParsePrice(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("price must be a non-negative number of USD per 1,000 tokens, got %q", s)
	}
	return v, nil
}

// PricesFromEnv reads the models' prices through lookup
// (docs/contract.md#cost): each stage takes its own pair
// (GRAPHRAG_MAP_PRICE_IN/OUT, GRAPHRAG_REDUCE_PRICE_IN/OUT), and what it
// lacks from the shared GRAPHRAG_PRICE_IN/OUT. nil means no price at all.
// A price alone without its pair, or one stage priced and the other not,
// is refused: a cost that silently leaves out part of the bill would pass
// a cost ceiling it should not.
func PricesFromEnv(lookup func(string) (string, bool)) (*Prices, error) {
	read := func(name string) (float64, bool, error) {
		v, ok := lookup(name)
		if !ok || strings.TrimSpace(v) == "" {
			return 0, false, nil
		}
		usd, err := ParsePrice(v)
		if err != nil {
			return 0, false, Errorf(KindInvalidInput, "%s: %w", name, err)
		}
		return usd, true, nil
	}
	stage := func(in, out string) (Price, bool, error) {
		var p Price
		var set [2]bool
		targets := [2]*float64{&p.In, &p.Out}
		for i, names := range [][2]string{{in, EnvPriceIn}, {out, EnvPriceOut}} {
			for _, name := range names {
				usd, ok, err := read(name)
				if err != nil {
					return Price{}, false, err
				}
				if ok {
					*targets[i], set[i] = usd, true
					break
				}
			}
		}
		if set[0] != set[1] {
			return Price{}, false, Errorf(KindInvalidInput, "%s and %s (or %s and %s) go together: give both or neither", in, out, EnvPriceIn, EnvPriceOut)
		}
		return p, set[0], nil
	}
	mapPrice, mapSet, err := stage(EnvMapPriceIn, EnvMapPriceOut)
	if err != nil {
		return nil, err
	}
	reducePrice, reduceSet, err := stage(EnvReducePriceIn, EnvReducePriceOut)
	if err != nil {
		return nil, err
	}
	switch {
	case !mapSet && !reduceSet:
		return nil, nil
	case mapSet != reduceSet:
		priced, unpriced := "map", "reduce"
		if reduceSet {
			priced, unpriced = unpriced, priced
		}
		return nil, Errorf(KindInvalidInput, "the %s model has prices and the %s model none: price both stages (%s) or neither",
			priced, unpriced, fmt.Sprintf("GRAPHRAG_%s_PRICE_IN/OUT or %s/OUT", strings.ToUpper(unpriced), EnvPriceIn))
	}
	return &Prices{Map: mapPrice, Reduce: reducePrice}, nil
}
