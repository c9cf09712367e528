package testenv

import (
	"path/filepath"
	"testing"
)

// UseAWS points the standard AWS configuration chain of this process at
// test endpoints, as a user points it at DynamoDB Local: endpoints maps a
// service's AWS_ENDPOINT_URL_<SERVICE> variable to its URL (an empty URL
// leaves the variable empty), and the region, static test credentials and
// empty config files leave nothing of the machine's own AWS setup in
// reach. It sets process environment, so its tests do not run in parallel.
func UseAWS(t testing.TB, endpoints map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range endpoints {
		t.Setenv(k, v)
	}
	for k, v := range map[string]string{
		"AWS_REGION":                  "us-east-1",
		"AWS_ACCESS_KEY_ID":           "test",
		"AWS_SECRET_ACCESS_KEY":       "test",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
}
