package globalsearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// LeafLevel selects every leaf summary whatever its level (docs/contract.md#selection).
const LeafLevel Level = -1

// AutoLevel chooses the finest candidate set whose map input fits the
// request's maxMapInputTokens (docs/contract.md#auto-level).
const AutoLevel Level = -2

// graphRAGBase is where GraphRAG's community levels start, downwards:
// GraphRAGLevel(n) is graphRAGBase-n. One integer keeps Level comparable
// with ==, so a request, a standing question and a stored run compare
// their selection as they always did.
const graphRAGBase Level = -3

// GraphRAGPrefix starts the request form of GraphRAG's community level
// (docs/contract.md#graphrag-level): "graphrag:2".
const GraphRAGPrefix = "graphrag:"

// Level is a community level: LeafLevel, AutoLevel, a level number >= 0
// (that level's summaries only) or GraphRAGLevel(n) (what GraphRAG's
// global search maps at community level n). It reads and writes JSON as
// "leaf", "auto", a number or "graphrag:n".
type Level int

// GraphRAGLevel is GraphRAG's community level n (docs/contract.md#graphrag-level):
// the summaries of level n and the leaves of the coarser levels.
func GraphRAGLevel(n int) Level { return graphRAGBase - Level(n) }

// GraphRAG returns n when l is GraphRAGLevel(n).
func (l Level) GraphRAG() (n int, ok bool) {
	if l > graphRAGBase {
		return 0, false
	}
	return int(graphRAGBase - l), true
}

// Number returns the level number a fixed or GraphRAG level names: the
// level a search that selects nothing has no summaries at.
func (l Level) Number() (n int, ok bool) {
	if l >= 0 {
		return int(l), true
	}
	return l.GraphRAG()
}

func (l Level) String() string {
	switch l {
	case LeafLevel:
		return "leaf"
	case AutoLevel:
		return "auto"
	}
	if n, ok := l.GraphRAG(); ok {
		return GraphRAGPrefix + strconv.Itoa(n)
	}
	return strconv.Itoa(int(l))
}

// MarshalJSON writes "leaf", "auto", "graphrag:n" or the level number.
func (l Level) MarshalJSON() ([]byte, error) {
	if l >= 0 {
		return []byte(strconv.Itoa(int(l))), nil
	}
	return []byte(strconv.Quote(l.String())), nil
}

// UnmarshalJSON reads what parseLevel accepts.
func (l *Level) UnmarshalJSON(data []byte) error {
	v, err := parseLevel(data)
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ParseLevel reads a level as a user types it: "leaf", "auto", a number
// or "graphrag:" and a number.
func ParseLevel(s string) (Level, error) {
	if s == "leaf" || s == "auto" || strings.HasPrefix(s, GraphRAGPrefix) {
		raw, _ := json.Marshal(s)
		return parseLevel(raw)
	}
	return parseLevel([]byte(s))
}

// LevelRule is what a community level may be, in a message that names
// the field or argument it was given in.
const LevelRule = `"leaf", "auto", a non-negative integer N or "graphrag:N" (GraphRAG's community level N)`

var errLevel = errors.New("communityLevel must be " + LevelRule)

// graphRAGNumber is the number of "graphrag:n": digits without a sign or
// a leading zero, so that each level has one spelling.
var graphRAGNumber = regexp.MustCompile(`^(0|[1-9][0-9]{0,9})$`)

func parseLevel(raw []byte) (Level, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, errLevel
		}
		switch {
		case s == "leaf":
			return LeafLevel, nil
		case s == "auto":
			return AutoLevel, nil
		case strings.HasPrefix(s, GraphRAGPrefix) && graphRAGNumber.MatchString(s[len(GraphRAGPrefix):]):
			n, err := strconv.ParseInt(s[len(GraphRAGPrefix):], 10, 64)
			if err != nil || n > math.MaxInt32 {
				return 0, errLevel
			}
			return GraphRAGLevel(int(n)), nil
		}
		return 0, errLevel
	}
	n, ok := jsonInt(raw)
	if !ok || n < 0 || n > math.MaxInt32 {
		return 0, errLevel
	}
	return Level(n), nil
}

// LevelSplit is what GraphRAG's community level selected
// (docs/contract.md#graphrag-level): the summaries of its level and the
// leaves of the coarser levels, which the plan report shows apart.
type LevelSplit struct {
	Level       Level `json:"level"`
	AtLevel     int   `json:"atLevel"`
	LeavesAbove int   `json:"leavesAbove"`
}

// Line is the split as plan prints it.
func (s LevelSplit) Line() string {
	n, _ := s.Level.GraphRAG()
	return fmt.Sprintf("level %s (GraphRAG's community level %d): %s of level %d and %s of the coarser levels",
		s.Level, n, Plural(s.AtLevel, "summary", "summaries"), n, Plural(s.LeavesAbove, "leaf", "leaves"))
}

// splitOf is the split of selected, the summaries level selected; nil
// for any level but GraphRAG's.
func splitOf(level Level, selected []*Summary) *LevelSplit {
	n, ok := level.GraphRAG()
	if !ok {
		return nil
	}
	s := &LevelSplit{Level: level}
	for _, sum := range selected {
		if sum.Level == n {
			s.AtLevel++
		} else {
			s.LeavesAbove++
		}
	}
	return s
}
