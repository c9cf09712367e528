package globalsearch

import (
	"context"
	"fmt"
)

// TokenCounter counts the input tokens a model request would cost the
// model, by its own tokenizer and without running it (Bedrock's
// CountTokens).
type TokenCounter interface {
	CountTokens(ctx context.Context, req ModelRequest) (int, error)
}

// CountedSamples plans p as a dry run does (no model call, nothing saved)
// and asks counter for the input tokens of each batch's map call, the very
// request MapBatch would send: calibration samples that cost no inference
// (docs/contract.md#calibrate). The first batch is counted alone, so a
// model that counts nothing fails once; the rest go at most
// p.MapConcurrency at a time. Any failed count fails the whole.
func (e *Engine) CountedSamples(ctx context.Context, p Params, counter TokenCounter) ([]CalibrationSample, error) {
	if err := p.validate(e.prompts()); err != nil {
		return nil, err
	}
	plan, err := e.Plan(ctx, p)
	if err != nil {
		return nil, err
	}
	if len(plan.Batches) == 0 {
		return nil, Errorf(KindInvalidInput, "the plan of namespace %s at level %s has no batch to count", p.Namespace, p.CommunityLevel)
	}
	countCodePoints(&plan)
	prompts := e.prompts()
	sys := codePointsOf(prompts.System)
	samples := make([]CalibrationSample, len(plan.Batches))
	count := func(ctx context.Context, i int) error {
		b := plan.Batches[i]
		req := prompts.Map.mapRequest(p.Query, b.Content, p.MapOutputReserve)
		req.System = prompts.System
		n, err := counter.CountTokens(ctx, req)
		if err != nil {
			return fmt.Errorf("count the input tokens of map batch %d: %w", i, err)
		}
		samples[i] = CalibrationSample{ASCII: b.ASCIICodePoints + sys.ASCII, NonASCII: b.NonASCIICodePoints + sys.NonASCII,
			Reported: n, Estimated: b.EstimatedTokens}
		return nil
	}
	if err := count(ctx, 0); err != nil {
		return nil, err
	}
	errs := forEachBatch(ctx, len(plan.Batches)-1, p.MapConcurrency, 1, func(ctx context.Context, i, _ int) error {
		return count(ctx, i+1)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return samples, nil
}
