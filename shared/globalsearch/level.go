package globalsearch

import (
	"errors"
	"math"
	"strconv"
)

// LeafLevel selects every leaf summary whatever its level (docs/contract.md#selection).
const LeafLevel Level = -1

// Level is a community level: LeafLevel or a level number >= 0. It reads and
// writes JSON as "leaf" or a number.
type Level int

func (l Level) String() string {
	if l == LeafLevel {
		return "leaf"
	}
	return strconv.Itoa(int(l))
}

// MarshalJSON writes "leaf" or the level number.
func (l Level) MarshalJSON() ([]byte, error) {
	if l == LeafLevel {
		return []byte(`"leaf"`), nil
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

// ParseLevel reads a level as a user types it: "leaf" or a number.
func ParseLevel(s string) (Level, error) {
	if s == "leaf" {
		return LeafLevel, nil
	}
	return parseLevel([]byte(s))
}

var errLevel = errors.New(`communityLevel must be "leaf" or a non-negative integer`)

func parseLevel(raw []byte) (Level, error) {
	if string(raw) == `"leaf"` {
		return LeafLevel, nil
	}
	n, ok := jsonInt(raw)
	if !ok || n < 0 || n > math.MaxInt32 {
		return 0, errLevel
	}
	return Level(n), nil
}
