// Package taskerror reads the error a failed Step Functions task hands on:
// an error name and a cause, where a Lambda task's cause is the function's
// error as JSON ({"errorMessage": ..., "errorType": ...}). It is a format
// of the platform, not a rule of the domain: the workflow reads it from a
// Catch (docs/contract.md#state-machine) and the store from the result item
// the state machine's RecordFailure wrote, so both import it, and it
// imports nothing of the module.
package taskerror

import "encoding/json"

// Message is "<name>: <message>" for a failed step whose cause may be an
// error record as JSON (as Lambda reports a function's error): its message
// when it is one, else the cause as it came, else the name alone.
func Message(name, cause string) string {
	var record struct {
		ErrorMessage string `json:"errorMessage"`
	}
	if json.Unmarshal([]byte(cause), &record) == nil && record.ErrorMessage != "" {
		return name + ": " + record.ErrorMessage
	}
	if cause == "" {
		return name
	}
	return name + ": " + cause
}
