package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
)

// Environment variables the model flags read.
const (
	envPriceIn      = "GRAPHRAG_PRICE_IN"
	envPriceOut     = "GRAPHRAG_PRICE_OUT"
	envOpenAIAPIKey = "OPENAI_API_KEY"
	envTimeout      = "GRAPHRAG_MODEL_TIMEOUT"
)

// defaultModelTimeout bounds one model call (one attempt). It is generous:
// a local model on a CPU can take minutes over an 8,000-token prompt, and a
// false timeout wastes the whole call; a hung server still fails in bounded
// time.
const defaultModelTimeout = 5 * time.Minute

const modelUsage = "offline | bedrock:<model-or-inference-profile-id> | openai:<model>@<base-url> | azure:<deployment>@<endpoint>"

// The model providers --model names.
const (
	providerOffline = "offline"
	providerBedrock = "bedrock"
	providerOpenAI  = "openai"
	providerAzure   = "azure"
)

// modelSpec is a parsed --model value.
type modelSpec struct {
	provider string
	model    string // bedrock model or profile id; openai model name; azure deployment
	baseURL  string // openai base URL; azure endpoint
}

// modelOptions are the flags that choose and price the model.
type modelOptions struct {
	spec              string
	priceIn, priceOut priceFlag
	timeout           durationFlag
	kinds             modelKindOptions
	stages            stageOptions
	// envRead is set once resolve has applied GRAPHRAG_PRICE_IN/OUT.
	envRead bool
}

// priceFlag is a USD price per 1,000 tokens; set says whether it was given,
// so "no price" and "free" stay apart.
type priceFlag struct {
	usd float64
	set bool
}

func (p *priceFlag) String() string {
	if p == nil || !p.set {
		return ""
	}
	return strconv.FormatFloat(p.usd, 'g', -1, 64)
}

func (p *priceFlag) Set(s string) error {
	v, err := parsePrice(s)
	if err != nil {
		return err
	}
	p.usd, p.set = v, true
	return nil
}

// durationFlag is a positive duration; set says whether it was given.
type durationFlag struct {
	d   time.Duration
	set bool
}

func (f *durationFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	d, err := parseTimeout(s)
	if err != nil {
		return err
	}
	f.d, f.set = d, true
	return nil
}

func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("model timeout must be a positive duration such as 90s or 5m, got %q", s)
	}
	return d, nil
}

// parsePrice is the rule of docs/contract.md#cost, as the variables read it.
func parsePrice(s string) (float64, error) { return globalsearch.ParsePrice(s) }

func (o *modelOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.spec, "model", providerOffline, "model: "+modelUsage)
	fs.Var(&o.priceIn, "price-in", "USD per 1,000 input tokens, to print a cost (default $"+envPriceIn+")")
	fs.Var(&o.priceOut, "price-out", "USD per 1,000 output tokens, to print a cost (default $"+envPriceOut+")")
	fs.Var(&o.timeout, "model-timeout", "longest wait for one model call, e.g. 90s (default $"+envTimeout+", else "+defaultModelTimeout.String()+")")
	o.kinds.register(fs)
	o.stages.register(fs)
}

// resolve fills the prices not given as flags from GRAPHRAG_PRICE_IN/OUT and
// checks they come as a pair. open calls it; a command that prices without
// opening a model (plan) must call it before cost for the
// environment to count. Calling it again does nothing.
func (o *modelOptions) resolve(env *cliEnv) error {
	if o.envRead {
		return nil
	}
	if err := o.checkStageSpecs(); err != nil {
		return err
	}
	// A kind flag must apply to the model of some stage.
	if err := o.kinds.check(o.mapSpec()); err != nil && o.kinds.check(o.reduceSpec()) != nil {
		return err
	}
	for _, p := range []struct {
		flag *priceFlag
		name string
	}{{&o.priceIn, envPriceIn}, {&o.priceOut, envPriceOut}} {
		if p.flag.set {
			continue
		}
		v, ok := env.lookupEnv(p.name)
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		usd, err := parsePrice(v)
		if err != nil {
			return &usageError{fmt.Sprintf("%s: %v", p.name, err)}
		}
		*p.flag = priceFlag{usd: usd, set: true}
	}
	if !o.timeout.set {
		o.timeout.d = defaultModelTimeout
		if v, ok := env.lookupEnv(envTimeout); ok && strings.TrimSpace(v) != "" {
			d, err := parseTimeout(v)
			if err != nil {
				return &usageError{fmt.Sprintf("%s: %v", envTimeout, err)}
			}
			o.timeout.d = d
		}
	}
	o.envRead = true
	// One price alone would print a cost that silently leaves out half the
	// bill.
	if o.priceIn.set != o.priceOut.set {
		return &usageError{"--price-in and --price-out (or " + envPriceIn + " and " + envPriceOut + ") go together: give both or neither"}
	}
	return nil
}

// parseModelSpec parses a --model value; a bad one is a usageError that says
// what was expected.
func parseModelSpec(s string) (modelSpec, error) {
	s = strings.TrimSpace(s)
	if s == providerOffline {
		return modelSpec{provider: providerOffline}, nil
	}
	provider, rest, found := strings.Cut(s, ":")
	if !found {
		return modelSpec{}, &usageError{fmt.Sprintf("unknown --model %q; want %s", s, modelUsage)}
	}
	switch provider {
	case providerBedrock:
		if rest == "" || strings.ContainsAny(rest, " \t\n") {
			return modelSpec{}, &usageError{fmt.Sprintf(
				"--model %q: want bedrock:<model-or-inference-profile-id>, e.g. bedrock:anthropic.claude-3-5-haiku-20241022-v1:0", s)}
		}
		return modelSpec{provider: providerBedrock, model: rest}, nil
	case providerOpenAI:
		// The model is before the first '@': model names carry ':' and '/'
		// (llama3.1:8b, meta-llama/Llama-3.1-8B-Instruct) but not '@'.
		model, base, found := strings.Cut(rest, "@")
		example := "e.g. openai:llama3.1@http://localhost:11434/v1"
		if !found || model == "" || base == "" {
			return modelSpec{}, &usageError{fmt.Sprintf("--model %q: want openai:<model>@<base-url>, %s", s, example)}
		}
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return modelSpec{}, &usageError{fmt.Sprintf("--model %q: base URL %q must be an http(s) URL, %s", s, base, example)}
		}
		return modelSpec{provider: providerOpenAI, model: model, baseURL: strings.TrimRight(base, "/")}, nil
	case providerAzure:
		return parseAzureSpec(s, rest)
	}
	return modelSpec{}, &usageError{fmt.Sprintf("unknown model provider %q in --model %q; want %s", provider, s, modelUsage)}
}

// open builds the model the flags name, each call bounded by the model
// timeout.
func (o *modelOptions) open(ctx context.Context, env *cliEnv) (globalsearch.Model, error) {
	return o.openSpec(ctx, env, o.spec)
}

// openSpec is open for the model specText names (a stage's, or --model).
func (o *modelOptions) openSpec(ctx context.Context, env *cliEnv, specText string) (globalsearch.Model, error) {
	spec, err := parseModelSpec(specText)
	if err != nil {
		return nil, err
	}
	if err := o.resolve(env); err != nil {
		return nil, err
	}
	m, err := o.build(ctx, env, spec)
	if err != nil {
		return nil, err
	}
	return globalsearch.TimeoutModel{Model: m, Name: strings.TrimSpace(specText), Timeout: o.timeout.d}, nil
}

func (o *modelOptions) build(ctx context.Context, env *cliEnv, spec modelSpec) (globalsearch.Model, error) {
	switch spec.provider {
	case providerBedrock:
		// Region, credentials, profile and endpoint (AWS_ENDPOINT_URL_BEDROCK_RUNTIME)
		// come from the standard AWS environment and config files.
		const what = "--model bedrock:..."
		cfg, err := awsConfig(ctx, what)
		if err != nil {
			return nil, err
		}
		if err := checkAWSCredentials(ctx, cfg, what); err != nil {
			return nil, err
		}
		return bedrock.New(cfg, spec.model, o.kinds.bedrockOptions()...)
	case providerOpenAI:
		opts := o.kinds.openaiOptions()
		// Sent only when set: local servers need no key.
		if key, ok := env.lookupEnv(envOpenAIAPIKey); ok && key != "" {
			opts = append(opts, openai.WithAPIKey(key))
		}
		return openai.New(spec.baseURL, spec.model, opts...)
	case providerAzure:
		return o.kinds.openAzure(env, spec)
	}
	return offline.New(), nil
}
