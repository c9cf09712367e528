package cmdutil

import (
	"flag"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// LevelFlags are --level and --community-level, the two spellings on a
// command line of a request's communityLevel
// (docs/contract.md#graphrag-level): --community-level N is GraphRAG's
// own flag and means --level graphrag:N, so a GraphRAG user's command
// line selects what GraphRAG's global search selects.
type LevelFlags struct{ level, community string }

// Register registers both flags into fs; def is the default level in
// effect, which the help shows, and variable the GRAPHRAG_* variable
// that sets it.
func (l *LevelFlags) Register(fs *flag.FlagSet, def globalsearch.Level, variable string) {
	fs.StringVar(&l.level, "level", def.String(), `community level: "leaf", "auto" (the finest that fits --max-map-tokens), a level number (that level's summaries only, 0 is the coarsest) or "graphrag:N" (as --community-level N); $`+variable+` sets the default`)
	fs.StringVar(&l.community, "community-level", "", `GraphRAG's community level N, as graphrag query --community-level: the summaries of level N and the leaves of the coarser levels (the same as --level graphrag:N)`)
}

// Level is the level the flags given (set) ask for, nil when neither was
// given. Giving both is a usage error, as is a --community-level that is
// no level number: its message names the flag, not the request field.
func (l *LevelFlags) Level(set map[string]bool) (*globalsearch.Level, error) {
	switch {
	case set["level"] && set["community-level"]:
		return nil, &UsageError{Msg: "--level and --community-level exclude each other (--community-level N is --level graphrag:N)"}
	case set["community-level"]:
		v, err := globalsearch.ParseLevel(globalsearch.GraphRAGPrefix + l.community)
		if err != nil {
			return nil, &UsageError{Msg: "--community-level must be a non-negative integer, GraphRAG's community level"}
		}
		return &v, nil
	case set["level"]:
		v, err := globalsearch.ParseLevel(l.level)
		if err != nil {
			// The request's own message, as for any field a flag sets.
			return nil, &globalsearch.Error{Kind: globalsearch.KindInvalidInput, Err: err}
		}
		return &v, nil
	}
	return nil, nil
}
