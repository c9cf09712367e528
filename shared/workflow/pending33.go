package workflow

import "github.com/graphrag-global/graphrag-global/shared/globalsearch"

// PENDING(33-api): stand-ins for the domain's step API until r-33dom
// lands; replaced by globalsearch.ReduceRound, PreparedRun's reduce fields
// and the Engine's methods.

// PlannedRound is what PlanReduceRound answers.
type PlannedRound struct{ Round, Groups int }

func reduceModeOf(globalsearch.PreparedRun) string { return ReduceSingle }

func reduceGroupsOf(globalsearch.PreparedRun) int { return 0 }

func (h *Handlers) reduceSteps() (ReduceSteps, error) {
	if h.Rounds != nil {
		return h.Rounds, nil
	}
	return nil, &InternalError{"this reduce function cannot run reduce rounds"}
}
