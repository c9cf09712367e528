package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
)

// These are flag.Values that remember whether they were given, so that a
// flag left out leaves its field to a default the flag set cannot know
// (an environment variable, a guess from the model's name).

// TriState is a boolean flag that may be left unset: --x, --x=false, or
// neither (the caller guesses).
type TriState struct{ Given, On bool }

func (t *TriState) String() string {
	if t == nil || !t.Given {
		return ""
	}
	return strconv.FormatBool(t.On)
}

func (t *TriState) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	t.Given, t.On = true, v
	return nil
}

// IsBoolFlag lets the flag stand alone.
func (t *TriState) IsBoolFlag() bool { return true }

// List is a flag that may be repeated, each value a comma-separated list.
type List []string

func (l *List) String() string { return strings.Join(*l, ",") }

func (l *List) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// IntOrAuto is an integer flag that may instead say "auto": N takes the
// number (Auto false), or 0 with Auto true. The number is read as the
// flag package's integers are; the caller checks its range. What names
// the number in the error of a value that is neither.
type IntOrAuto struct {
	N    *int
	Auto *bool
	What string
}

func (c IntOrAuto) String() string {
	switch {
	case c.Auto != nil && *c.Auto:
		return "auto"
	case c.N != nil:
		return strconv.Itoa(*c.N)
	}
	return "0"
}

func (c IntOrAuto) Set(s string) error {
	if s == "auto" {
		*c.N, *c.Auto = 0, true
		return nil
	}
	n, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return fmt.Errorf(`want a number of %s or "auto"`, c.What)
	}
	*c.N, *c.Auto = int(n), false
	return nil
}
