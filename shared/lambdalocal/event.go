package lambdalocal

import (
	"encoding/json"
	"fmt"
)

// eventShapes are the functions Invoke runs, each with the top-level field
// only its events have (events/*.json), in the order they are tried.
var eventShapes = []struct{ function, field string }{
	{"prepare", "request"},
	{"reduce", "mapResults"},
	{"api", "routeKey"},
	{"map", "batchIndex"},
}

// CheckEvent refuses (*EventError) an event of another function than name
// before anything is seeded or invoked; Invoke checks it too, and a caller
// checks it first when it has more to open (a model) before Invoke: the handler would otherwise read its own
// fields as missing and blame one of them ("queryId must be 1-80
// characters" for a prepare event given to map). An event of no known
// shape is left to the handler, which says what is wrong with it.
func CheckEvent(name, file string, payload []byte) error {
	known := false
	for _, s := range eventShapes {
		known = known || s.function == name
	}
	var fields map[string]json.RawMessage
	if !known || json.Unmarshal(payload, &fields) != nil {
		return nil
	}
	for _, s := range eventShapes {
		if _, ok := fields[s.field]; !ok {
			continue
		}
		if s.function == name {
			return nil
		}
		return &EventError{fmt.Sprintf("%s is %s event (it has %q), not %s event: run `globalsearch invoke %s --event %s`, or give %s %s event such as events/%s.json",
			file, anEvent(s.function), s.field, anEvent(name), s.function, file, name, anEvent(name), name)}
	}
	return nil
}

// anEvent is function with its article: "a map", "an api".
func anEvent(function string) string {
	if function == "api" {
		return "an api"
	}
	return "a " + function
}
