package globalsearch

import (
	"encoding/json"
	"strings"
)

// Defaults are the values a request field takes when it is absent: a
// deployment's configured defaults, else docs/contract.md#request's.
type Defaults struct {
	Namespace           string
	CommunityLevel      Level
	MapTokenBudget      int
	ReduceTokenBudget   int
	MapOutputReserve    int
	ReduceOutputReserve int
	MapConcurrency      int
	// Batching is the request's batching when it names none:
	// BatchingGreedy or BatchingStable.
	Batching string
	// ReduceMode is the request's reduceMode when it names none:
	// ReduceModeSingle or ReduceModeTree.
	ReduceMode string
	// MaxModelCalls is the deployment's ceiling: a request may lower it,
	// never raise it. 0 is no ceiling.
	MaxModelCalls int
	// MaxMapInputTokens is the default ceiling of communityLevel "auto"
	// (docs/contract.md#auto-level); 0 is none.
	MaxMapInputTokens int
	// MaxCostUSD is the deployment's cost ceiling per run
	// (docs/contract.md#cost-ceiling): a request may lower it, never raise
	// it. 0 is none.
	MaxCostUSD float64
	// Tokenizer is the deployment's tokenizer option; "" is the model
	// family's default, which ForModel fills in (docs/contract.md#token-estimate).
	Tokenizer string
	// PromptCache, MapServiceTier, ReduceServiceTier and SeedPolicy are
	// the defaults of the request fields of the same names
	// (docs/contract.md#request); "" leaves the model's own cache and tier,
	// and the seed policy "question".
	PromptCache, MapServiceTier, ReduceServiceTier, SeedPolicy string
	// Prompts are the prompts the budgets are checked against
	// (docs/contract.md#budgets): the engine's, which a prompts directory
	// may set (docs/contract.md#custom-prompts); a zero part is the
	// project's own.
	Prompts Prompts
}

// DefaultMaxModelCalls is the ceiling on one run's model calls when the
// deployment sets none: four times the 124 calls the largest import of the
// real corpus (full reports, whole text units) plans at the default
// budgets, so no default request meets it, while a run that would loop
// over thousands of tiny batches is refused before it spends.
const DefaultMaxModelCalls = 500

// SpecDefaults are the defaults of docs/contract.md#request.
var SpecDefaults = Defaults{
	Namespace:           "default",
	CommunityLevel:      LeafLevel,
	MapTokenBudget:      8000,
	ReduceTokenBudget:   8000,
	MapOutputReserve:    512,
	ReduceOutputReserve: 1024,
	MapConcurrency:      4,
	Batching:            BatchingGreedy,
	ReduceMode:          ReduceModeSingle,
	MaxModelCalls:       DefaultMaxModelCalls,
}

// DefaultsFromEnv reads a deployment's defaults from GRAPHRAG_* variables
// through lookup (os.LookupEnv). A set variable is checked by the same rule
// as the request field it stands for, so a bad deployment fails at start.
func DefaultsFromEnv(lookup func(string) (string, bool)) (Defaults, error) {
	d := SpecDefaults
	for _, f := range requestFields {
		if f.env == "" {
			continue
		}
		v, ok := lookup(f.env)
		if !ok || v == "" {
			continue
		}
		raw := []byte(v)
		if stringDefault(f.name) || (f.name == "communityLevel" && (v == "leaf" || v == "auto" || strings.HasPrefix(v, GraphRAGPrefix))) {
			raw, _ = json.Marshal(v)
		}
		if err := f.setDefault(raw, &d); err != nil {
			return Defaults{}, Errorf(KindInvalidInput, "%s: %w", f.env, err)
		}
	}
	return d, nil
}

// DefaultVariable is the GRAPHRAG_* variable that sets the default of the
// request field named field (docs/contract.md#request), "" for a field
// without a deployment default, so that a help text names the variable
// from the same table DefaultsFromEnv reads.
func DefaultVariable(field string) string {
	for _, f := range requestFields {
		if f.name == field {
			return f.env
		}
	}
	return ""
}

// FileDefaults are the defaults a search of one index file resolves a
// request with: the deployment's (DefaultsFromEnv) for model
// (Defaults.ForModel), except that the file's namespace, when it names one,
// wins over GRAPHRAG_NAMESPACE, since the file holds no other namespace.
func FileDefaults(lookup func(string) (string, bool), fileNamespace, model string) (Defaults, error) {
	d, err := DefaultsFromEnv(lookup)
	if err != nil {
		return Defaults{}, err
	}
	d = d.ForModel(model)
	if fileNamespace != "" {
		d.Namespace = fileNamespace
	}
	return d, nil
}
