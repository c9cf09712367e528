// Package deploy checks template.yaml as CloudFormation receives it: the
// SAM translator (translate.py, installed with cfn-lint) expands it, and
// the tests assert on the result, so a change to roles, alarms, limits or
// tables that the code relies on fails here rather than in a deployment.
package deploy
