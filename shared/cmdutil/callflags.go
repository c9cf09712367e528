package cmdutil

import (
	"cmp"
	"flag"
	"fmt"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// CallFlags are the flags of the request fields that are one word of a
// list (docs/contract.md#request): --prompt-cache, --map-service-tier,
// --reduce-service-tier and --seed-policy. run and plan send them as the
// request's fields; serve and mcp make them the default of every request
// (Defaults). Their values are the request's to judge, so a bad one gets
// the request field's message, which names the values.
type CallFlags struct{ values [len(callFlags)]string }

// callFlag is one of the flags: its name, the request field it sets and
// where the field sits in a Request and in Defaults.
type callFlag struct {
	name, field, what string
	values            []string
	request           func(*globalsearch.Request) **string
	def               func(*globalsearch.Defaults) *string
}

var callFlags = [...]callFlag{
	{"prompt-cache", "promptCache", "Bedrock's prompt cache of the model calls (docs/contract.md#prompt-cache; other models ignore it, with a note)",
		globalsearch.PromptCaches, func(r *globalsearch.Request) **string { return &r.PromptCache }, func(d *globalsearch.Defaults) *string { return &d.PromptCache }},
	{"map-service-tier", "mapServiceTier", "Bedrock's service tier of the map and rating calls (docs/contract.md#service-tiers)",
		globalsearch.ServiceTiers, func(r *globalsearch.Request) **string { return &r.MapServiceTier }, func(d *globalsearch.Defaults) *string { return &d.MapServiceTier }},
	{"reduce-service-tier", "reduceServiceTier", "Bedrock's service tier of the reduce calls (docs/contract.md#service-tiers)",
		globalsearch.ServiceTiers, func(r *globalsearch.Request) **string { return &r.ReduceServiceTier }, func(d *globalsearch.Defaults) *string { return &d.ReduceServiceTier }},
	{"seed-policy", "seedPolicy", `the shuffle seed of a search that names none: "question" draws one per question, "namespace" derives one from the namespace version, so every question packs the same batches (docs/contract.md#seed-policy)`,
		globalsearch.SeedPolicies, func(r *globalsearch.Request) **string { return &r.SeedPolicy }, func(d *globalsearch.Defaults) *string { return &d.SeedPolicy }},
}

// Register registers the flags into fs, each help naming its values, the
// default d holds (this environment's) and the variable that sets it.
func (c *CallFlags) Register(fs *flag.FlagSet, d globalsearch.Defaults) {
	for i, f := range callFlags {
		def := cmp.Or(*f.def(&d), "the model's own")
		if f.field == "seedPolicy" {
			def = cmp.Or(*f.def(&d), globalsearch.SeedPolicyQuestion)
		}
		fs.StringVar(&c.values[i], f.name, "", fmt.Sprintf("%s: %s (default %s; $%s sets the default)",
			f.what, strings.Join(f.values, ", "), def, globalsearch.DefaultVariable(f.field)))
	}
}

// Request sets the request's fields of the flags given (set).
func (c *CallFlags) Request(set map[string]bool, r *globalsearch.Request) {
	for i, f := range callFlags {
		if set[f.name] {
			*f.request(r) = &c.values[i]
		}
	}
}

// Defaults makes the flags given (set) the defaults of every request,
// checked by the request fields' rules: a bad value is refused at start
// with the field's message.
func (c *CallFlags) Defaults(set map[string]bool, d *globalsearch.Defaults) error {
	var req globalsearch.Request
	c.Request(set, &req)
	if req == (globalsearch.Request{}) {
		return nil
	}
	req.Query = "call settings"
	p, err := req.Params(*d)
	if err != nil {
		return err
	}
	d.PromptCache, d.MapServiceTier, d.ReduceServiceTier, d.SeedPolicy = p.PromptCache, p.MapServiceTier, p.ReduceServiceTier, p.SeedPolicy
	return nil
}
