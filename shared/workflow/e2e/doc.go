// Package e2e runs the deployed search workflow end to end, in tests only:
// the real state machine (statemachine/globalsearch.asl.json) executed by
// moto's Step Functions interpreter, invoking the real prepare, map and
// reduce handlers of shared/workflow through a fake Lambda Invoke API, with
// the runs and index tables in the same moto and the model behind the real
// Bedrock adapter talking to a fake Converse endpoint. Faults (failed or
// garbage model answers, Lambda throttles) are injected per case, so the
// ASL's Retry, Catch and error names are exercised the way AWS runs them.
//
// A smoke test also builds one function's bootstrap for the host and runs
// it under the Lambda Runtime Interface Emulator (aws-lambda-rie).
//
// The package has no non-test code; this file exists for its doc comment.
package e2e
