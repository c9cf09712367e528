package workflow

import (
	"errors"
	"reflect"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The named errors of the workflow. aws-lambda-go reports a returned error's
// Go type name (without the pointer's `*`) as the Lambda errorType, and Step
// Functions matches Retry and Catch on that string (docs/contract.md#aws). So each type
// name below is written, character for character, in
// statemachine/globalsearch.asl.json, and a test checks both directions.
// Handlers return them unwrapped: fmt.Errorf("%w") would report wrapError.

// InvalidInputError is a request or task input that cannot run as given.
type InvalidInputError struct{ Message string }

// CorruptIndexError is an index whose hierarchy is broken (docs/contract.md#index).
type CorruptIndexError struct{ Message string }

// CorruptPayloadError is a payload object that is not the one its run
// wrote (docs/contract.md#payloads-bucket); no Retry names it.
type CorruptPayloadError struct{ Message string }

// PlanTooLargeError is a plan beyond the state machine's limits (docs/contract.md#plan-limits).
type PlanTooLargeError struct{ Message string }

// AllBatchesFailedError is a search whose every map batch failed (docs/contract.md#map-calls).
type AllBatchesFailedError struct{ Message string }

// ModelOutputError is a model answer that breaks the JSON contract (docs/contract.md#model-output).
type ModelOutputError struct{ Message string }

// ThrottledError is a model or table that refused for load after the SDK's
// own retries; the state machine's Retry tries again later.
type ThrottledError struct{ Message string }

// ModelError is any other failed model call.
type ModelError struct{ Message string }

// NotFoundError is a run, plan or batch that does not exist (or expired).
type NotFoundError struct{ Message string }

// InternalError is anything else (I/O, bugs).
type InternalError struct{ Message string }

// RatingFailedError is a dynamic selection none of whose root communities
// could be rated after every attempt (docs/contract.md#dynamic-selection):
// the run is recorded failed, and trying again would repeat those calls.
type RatingFailedError struct{ Message string }

func (e *InvalidInputError) Error() string     { return e.Message }
func (e *CorruptIndexError) Error() string     { return e.Message }
func (e *PlanTooLargeError) Error() string     { return e.Message }
func (e *CorruptPayloadError) Error() string   { return e.Message }
func (e *AllBatchesFailedError) Error() string { return e.Message }
func (e *ModelOutputError) Error() string      { return e.Message }
func (e *ThrottledError) Error() string        { return e.Message }
func (e *ModelError) Error() string            { return e.Message }
func (e *NotFoundError) Error() string         { return e.Message }
func (e *InternalError) Error() string         { return e.Message }
func (e *RatingFailedError) Error() string     { return e.Message }

// errorOf is the one table from domain kind to named error.
var errorOf = map[globalsearch.Kind]func(msg string) error{
	globalsearch.KindInvalidInput:     func(m string) error { return &InvalidInputError{m} },
	globalsearch.KindCorruptIndex:     func(m string) error { return &CorruptIndexError{m} },
	globalsearch.KindPlanTooLarge:     func(m string) error { return &PlanTooLargeError{m} },
	globalsearch.KindAllBatchesFailed: func(m string) error { return &AllBatchesFailedError{m} },
	globalsearch.KindModelOutput:      func(m string) error { return &ModelOutputError{m} },
	globalsearch.KindThrottled:        func(m string) error { return &ThrottledError{m} },
	globalsearch.KindModel:            func(m string) error { return &ModelError{m} },
	globalsearch.KindNotFound:         func(m string) error { return &NotFoundError{m} },
	// The state machine has no Catch of its own for a conflict: like
	// invalid input it ends the execution, and the ASL matches this name.
	globalsearch.KindConflict:       func(m string) error { return &InvalidInputError{m} },
	globalsearch.KindCorruptPayload: func(m string) error { return &CorruptPayloadError{m} },
	globalsearch.KindInternal:       func(m string) error { return &InternalError{m} },
}

// Named translates err into the named error of its kind, keeping its whole
// message. A nil err stays nil, and an error that is already named passes
// through.
func Named(err error) error {
	if err == nil {
		return nil
	}
	for _, e := range ErrorTypes() {
		if reflect.TypeOf(err) == reflect.TypeOf(e) {
			return err
		}
	}
	if rating := (*globalsearch.RatingError)(nil); errors.As(err, &rating) {
		return &RatingFailedError{err.Error()}
	}
	return errorOf[globalsearch.KindOf(err)](err.Error())
}

// ErrorTypes returns one zero value of every named error type, in a fixed
// order: the set the ASL may name.
func ErrorTypes() []error {
	return []error{
		&InvalidInputError{}, &CorruptIndexError{}, &PlanTooLargeError{}, &AllBatchesFailedError{},
		&ModelOutputError{}, &ThrottledError{}, &ModelError{}, &NotFoundError{}, &InternalError{},
		&RatingFailedError{}, &CorruptPayloadError{},
	}
}

// ErrorType is the Lambda errorType aws-lambda-go reports for err: the name
// of its type, or of the type it points to (lambda/errors.go).
func ErrorType(err error) string {
	t := reflect.TypeOf(err)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
