package globalsearch

import (
	"errors"
	"math"
	"strconv"
)

// LeafLevel selects every leaf summary whatever its level (docs/contract.md#selection).
const LeafLevel Level = -1

// AutoLevel chooses the finest candidate set whose map input fits the
// request's maxMapInputTokens (docs/contract.md#auto-level).
const AutoLevel Level = -2

// Level is a community level: LeafLevel, AutoLevel or a level number >= 0.
// It reads and writes JSON as "leaf", "auto" or a number.
type Level int

func (l Level) String() string {
	switch l {
	case LeafLevel:
		return "leaf"
	case AutoLevel:
		return "auto"
	}
	return strconv.Itoa(int(l))
}

// MarshalJSON writes "leaf", "auto" or the level number.
func (l Level) MarshalJSON() ([]byte, error) {
	if l == LeafLevel || l == AutoLevel {
		return []byte(`"` + l.String() + `"`), nil
	}
	return []byte(strconv.Itoa(int(l))), nil
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

// ParseLevel reads a level as a user types it: "leaf", "auto" or a number.
func ParseLevel(s string) (Level, error) {
	if s == "leaf" || s == "auto" {
		return parseLevel([]byte(`"` + s + `"`))
	}
	return parseLevel([]byte(s))
}

var errLevel = errors.New(`communityLevel must be "leaf", "auto" or a non-negative integer`)

func parseLevel(raw []byte) (Level, error) {
	switch string(raw) {
	case `"leaf"`:
		return LeafLevel, nil
	case `"auto"`:
		return AutoLevel, nil
	}
	n, ok := jsonInt(raw)
	if !ok || n < 0 || n > math.MaxInt32 {
		return 0, errLevel
	}
	return Level(n), nil
}
