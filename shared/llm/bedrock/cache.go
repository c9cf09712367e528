package bedrock

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The prompt cache settings (docs/contract.md#prompt-cache): the request
// field's values, named once in globalsearch.
const (
	CacheOff        = globalsearch.PromptCacheOff
	CacheFiveMinute = globalsearch.PromptCache5m
	CacheOneHour    = globalsearch.PromptCache1h
)

// CacheFamily is what Bedrock documents for one family of models that
// takes Converse cachePoint blocks (docs/contract.md#prompt-cache).
type CacheFamily struct {
	// Match is a substring of the model id (or inference profile) that
	// names the family.
	Match string
	// MinTokens is the fewest tokens a prefix must hold for a cache point
	// to cache it; a shorter prefix is sent and billed uncached.
	MinTokens int
	// OneHour is whether the family takes the 1h TTL.
	OneHour bool
}

// CacheFamilies are the families in docs/contract.md#prompt-cache's table,
// most specific first, so "claude-3-5-haiku" is matched before "claude".
var CacheFamilies = []CacheFamily{
	{Match: "claude-haiku-4-5", MinTokens: 4096, OneHour: true},
	{Match: "claude-opus-4-5", MinTokens: 4096, OneHour: true},
	{Match: "claude-sonnet-4-5", MinTokens: 1024, OneHour: true},
	{Match: "claude-opus-4-1", MinTokens: 1024},
	{Match: "claude-opus-4", MinTokens: 1024},
	{Match: "claude-sonnet-4", MinTokens: 1024},
	{Match: "claude-3-7-sonnet", MinTokens: 1024},
	{Match: "claude-3-5-haiku", MinTokens: 2048},
	{Match: "nova-micro", MinTokens: 1000},
	{Match: "nova-lite", MinTokens: 1000},
	{Match: "nova-pro", MinTokens: 1000},
	{Match: "nova-premier", MinTokens: 1000},
}

// CacheFamilyOf is the family of modelID, and false for a model Bedrock
// does not document as caching prompts.
func CacheFamilyOf(modelID string) (CacheFamily, bool) {
	id := strings.ToLower(modelID)
	for _, f := range CacheFamilies {
		if strings.Contains(id, f.Match) {
			return f, true
		}
	}
	return CacheFamily{}, false
}

// EffectiveCache is the setting a call to modelID runs with when asked for
// want ("" is the default, 5m), and a note when that is not what was
// asked: a model that caches no prompts runs off, and one without the 1h
// TTL runs at 5m (docs/contract.md#prompt-cache).
func EffectiveCache(modelID, want string) (string, string) {
	if want == "" {
		want = CacheFiveMinute
	}
	if want == CacheOff {
		return CacheOff, ""
	}
	f, ok := CacheFamilyOf(modelID)
	if !ok {
		return CacheOff, "bedrock model " + modelID + " does not cache prompts: promptCache " + want + " is ignored"
	}
	if want == CacheOneHour && !f.OneHour {
		return CacheFiveMinute, "bedrock model " + modelID + " has no 1h prompt cache: it caches for 5m"
	}
	return want, ""
}

// WithPromptCache sets the prompt cache (off, 5m or 1h; default 5m where
// the model caches). A model that caches no prompts gets no cache point.
func WithPromptCache(setting string) Option {
	return func(o *options) { o.cache = setting }
}

// userContent is the prompt as the user message's blocks: with a cache
// point after the part no question changes (ModelRequest.CachePrefix)
// when the Model caches, else one text block.
func userContent(req globalsearch.ModelRequest, cache string) []types.ContentBlock {
	if cache == "" || cache == CacheOff || req.CachePrefix <= 0 || req.CachePrefix >= len(req.Prompt) {
		return []types.ContentBlock{&types.ContentBlockMemberText{Value: req.Prompt}}
	}
	point := types.CachePointBlock{Type: types.CachePointTypeDefault}
	if cache == CacheOneHour {
		point.Ttl = types.CacheTTLOneHour
	}
	return []types.ContentBlock{
		&types.ContentBlockMemberText{Value: req.Prompt[:req.CachePrefix]},
		&types.ContentBlockMemberCachePoint{Value: point},
		&types.ContentBlockMemberText{Value: req.Prompt[req.CachePrefix:]},
	}
}

// readUsage copies Bedrock's usage into resp. Bedrock's inputTokens leaves
// out the tokens read from and written to the cache; InputTokens here is
// every input token, as the estimates count them, with the cached ones
// also in CacheReadInputTokens and CacheWriteInputTokens
// (docs/contract.md#prompt-cache).
func readUsage(resp *globalsearch.ModelResponse, u *types.TokenUsage) {
	if u == nil {
		return
	}
	read, write := int(aws.ToInt32(u.CacheReadInputTokens)), int(aws.ToInt32(u.CacheWriteInputTokens))
	resp.InputTokens = int(aws.ToInt32(u.InputTokens)) + read + write
	resp.OutputTokens = int(aws.ToInt32(u.OutputTokens))
	resp.CacheReadInputTokens, resp.CacheWriteInputTokens = read, write
}

// PromptCache is the prompt cache the Model's calls run with when a run
// asks for want (off, 5m or 1h; "" for the Model's own, WithPromptCache)
// and, when that is not the one asked for, why: the note a run's
// diagnostics carry (docs/contract.md#prompt-cache).
func (m *Model) PromptCache(want string) (string, string) {
	if want == "" {
		return m.cache, m.cacheNote
	}
	return EffectiveCache(m.modelID, want)
}

// callCache is the prompt cache of req's call: the run's
// (ModelRequest.PromptCache) over the Model's own, so one deployed
// function serves runs of different settings.
func (m *Model) callCache(req globalsearch.ModelRequest) string {
	cache, _ := m.PromptCache(req.PromptCache)
	return cache
}

// WithServiceTier sets Bedrock's serviceTier for the calls of a stage
// (docs/contract.md#service-tiers): default, priority, flex or reserved;
// "" sends none, so the model's own default applies.
func WithServiceTier(stage globalsearch.Stage, tier string) Option {
	return func(o *options) {
		if tier == "" {
			return
		}
		if o.tiers == nil {
			o.tiers = map[globalsearch.Stage]string{}
		}
		o.tiers[stage] = tier
	}
}

func checkTiers(tiers map[globalsearch.Stage]string) error {
	for stage, tier := range tiers {
		if !slices.Contains(types.ServiceTierType("").Values(), types.ServiceTierType(tier)) {
			return globalsearch.Errorf(globalsearch.KindInvalidInput, "%sServiceTier must be one of default, priority, flex, reserved (got %q)", stage, tier)
		}
	}
	return nil
}

// serviceTier is the tier req's call asks for: the run's for its stage
// (ModelRequest.ServiceTier), else the Model's own (WithServiceTier); the
// rating calls of a dynamic selection go with the map's. A tier the model
// does not offer is Bedrock's to refuse, and its error is the call's
// (docs/contract.md#service-tiers).
func (m *Model) serviceTier(req globalsearch.ModelRequest) *types.ServiceTier {
	if req.ServiceTier != "" {
		return &types.ServiceTier{Type: types.ServiceTierType(req.ServiceTier)}
	}
	stage := req.Stage
	if stage == globalsearch.StageRate {
		stage = globalsearch.StageMap
	}
	tier, ok := m.tiers[stage]
	if !ok {
		return nil
	}
	return &types.ServiceTier{Type: types.ServiceTierType(tier)}
}

// TakesServiceTier implements globalsearch.ServiceTierTaker: every
// Converse call may name one.
func (m *Model) TakesServiceTier() bool { return true }

var (
	_ globalsearch.PromptCacher     = (*Model)(nil)
	_ globalsearch.ServiceTierTaker = (*Model)(nil)
)
