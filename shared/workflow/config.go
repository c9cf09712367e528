package workflow

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The environment variables template.yaml gives the functions.
const (
	EnvRunsTable       = "RUNS_TABLE"
	EnvRunsTTLDays     = "RUNS_TTL_DAYS"
	EnvIndexTable      = "INDEX_TABLE"
	EnvModelID         = "MODEL_ID"
	EnvStateMachineARN = "STATE_MACHINE_ARN"
	// EnvMapMaxConcurrency caps the map concurrency of every plan, at
	// most MaxMapConcurrency (prepare only).
	EnvMapMaxConcurrency = "MAP_MAX_CONCURRENCY"
	// EnvMaxBatches is the largest plan prepare accepts (at most
	// MaxBatchesLimit).
	EnvMaxBatches = "MAX_BATCHES"
	// EnvMapCacheTable names the map-answer cache table (docs/contract.md#map-cache); the
	// map function needs it with EnvMapCacheTTLDays, the days an entry lives.
	EnvMapCacheTable   = "MAP_CACHE_TABLE"
	EnvMapCacheTTLDays = "MAP_CACHE_TTL_DAYS"
	// EnvPayloadBucket names the bucket of the batch texts
	// (docs/contract.md#payloads-bucket): prepare writes them, map reads them.
	EnvPayloadBucket = "PAYLOAD_BUCKET"
)

// MaxMapConcurrency is the most map calls one run may have in flight
// (docs/contract.md#quota): the inline Map runs at most 40 iterations at
// once, whatever its MaxConcurrency asks, so one cap for both Maps keeps a
// plan's concurrency and time true in either.
const MaxMapConcurrency = 40

// MaxExecution is the longest an execution of the state machine lasts: its
// TimeoutSeconds (statemachine's TestRunsOutliveExecutions ties the two).
// Nothing else bounds the map stage of a large plan at a low concurrency,
// and a run's items must outlive it (docs/contract.md#tables), so the runs
// TTL must be longer.
const MaxExecution = 3 * 24 * time.Hour

// Config is a function's configuration, as template.yaml sets it.
type Config struct {
	RunsTable string
	RunsTTL   time.Duration
	Defaults  globalsearch.Defaults // GRAPHRAG_* (docs/contract.md#request deployment defaults)
	// Prices are the models' prices (GRAPHRAG_*_PRICE_*, docs/contract.md#cost),
	// nil when the deployment sets none: prepare holds maxCostUsd to them,
	// reduce prices the result with them.
	Prices *globalsearch.Prices
	// Quota is the map model's quota (GRAPHRAG_MODEL_*_PER_MINUTE,
	// GRAPHRAG_MAP_CALL_SECONDS; docs/contract.md#quota), zero when the
	// deployment states none: prepare sizes the map concurrency from it.
	Quota globalsearch.Quota

	// Set for the functions that name them in ConfigFromEnv's need.
	IndexTable        string
	ModelID           string
	StateMachineARN   string
	MapMaxConcurrency int
	MaxBatches        int
	MapCacheTable     string
	MapCacheTTL       time.Duration
	PayloadBucket     string
}

// ConfigFromEnv reads the configuration every function shares (the runs
// table, its TTL, the request defaults) and the variables in need, through
// lookup (os.LookupEnv). Every problem is reported at once, so a broken
// deployment fails its first invocation with the whole list.
func ConfigFromEnv(lookup func(string) (string, bool), need ...string) (Config, error) {
	var c Config
	var errs []error
	get := func(name string) string {
		v, ok := lookup(name)
		if !ok || v == "" {
			errs = append(errs, fmt.Errorf("%s is not set", name))
		}
		return v
	}
	days := func(name string) time.Duration {
		v := get(name)
		if v == "" {
			return 0
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("%s must be a positive number of days, not %q", name, v))
		}
		return time.Duration(n) * 24 * time.Hour
	}
	c.RunsTable = get(EnvRunsTable)
	c.RunsTTL = days(EnvRunsTTLDays)
	if c.RunsTTL > 0 && c.RunsTTL <= MaxExecution {
		errs = append(errs, fmt.Errorf("%s must be more than the %d days an execution may last (the state machine's TimeoutSeconds), so a run never outlives its items; not %d",
			EnvRunsTTLDays, MaxExecution/(24*time.Hour), c.RunsTTL/(24*time.Hour)))
	}
	var err error
	if c.Defaults, err = globalsearch.DefaultsFromEnv(lookup); err != nil {
		errs = append(errs, err)
	}
	if c.Prices, err = globalsearch.PricesFromEnv(lookup); err != nil {
		errs = append(errs, err)
	}
	if c.Quota, err = globalsearch.QuotaFromEnv(lookup); err != nil {
		errs = append(errs, err)
	}
	for _, name := range need {
		switch name {
		case EnvIndexTable:
			c.IndexTable = get(name)
		case EnvModelID:
			c.ModelID = get(name)
		case EnvStateMachineARN:
			c.StateMachineARN = get(name)
		case EnvMapMaxConcurrency:
			if c.MapMaxConcurrency = positive(name, get(name), &errs); c.MapMaxConcurrency > MaxMapConcurrency {
				errs = append(errs, fmt.Errorf("%s must be at most %d (the inline Map runs no more at once), not %d", name, MaxMapConcurrency, c.MapMaxConcurrency))
			}
		case EnvMaxBatches:
			if c.MaxBatches = positive(name, get(name), &errs); c.MaxBatches > MaxBatchesLimit {
				errs = append(errs, fmt.Errorf("%s must be at most %d (the runs table keys batches by a six-digit index), not %d", name, MaxBatchesLimit, c.MaxBatches))
			}
		case EnvMapCacheTable:
			c.MapCacheTable = get(name)
			c.MapCacheTTL = days(EnvMapCacheTTLDays)
		case EnvPayloadBucket:
			c.PayloadBucket = get(name)
		default:
			errs = append(errs, fmt.Errorf("unknown configuration variable %s", name))
		}
	}
	// Every function reads the model id where it is set, needed or not:
	// the tokenizer default and the calibrated rates follow the model's
	// family (docs/contract.md#token-estimate), in the API as in prepare.
	if c.ModelID == "" {
		c.ModelID, _ = lookup(EnvModelID)
	}
	c.Defaults = c.Defaults.ForModel(c.ModelID)
	return c, errors.Join(errs...)
}

// positive parses a positive integer variable; "" was reported as unset.
func positive(name, v string, errs *[]error) int {
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		*errs = append(*errs, fmt.Errorf("%s must be a positive integer, not %q", name, v))
		return 0
	}
	return n
}
