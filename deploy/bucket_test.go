package deploy_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// TestPayloadBucket: the bucket of the batch texts
// (docs/contract.md#payloads-bucket) is encrypted, closed to the public and
// to plain HTTP, and expires a run's objects with the runs table's TTL, on
// the prefix the store writes under; prepare and map, the only functions
// that reach it, are told its name.
func TestPayloadBucket(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ttlDays string // "" = the template's default
	}{
		{"default TTL", ""},
		{"TTL set", "12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var overrides map[string]string
			if tc.ttlDays != "" {
				overrides = map[string]string{"RunsTtlDays": tc.ttlDays}
			}
			s := translate(t, overrides)
			b := s.resource(t, "PayloadBucket", "AWS::S3::Bucket")
			sse := list(path(b, "BucketEncryption", "ServerSideEncryptionConfiguration"))
			require.Len(t, sse, 1)
			assert.Equal(t, "AES256", path(sse[0], "ServerSideEncryptionByDefault", "SSEAlgorithm"))
			for _, k := range []string{"BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"} {
				assert.Equal(t, true, path(b, "PublicAccessBlockConfiguration", k), k)
			}
			rules := list(path(b, "LifecycleConfiguration", "Rules"))
			require.Len(t, rules, 1)
			assert.Equal(t, "Enabled", path(rules[0], "Status"))
			assert.Equal(t, store.PayloadPrefix, path(rules[0], "Prefix"), "the rule covers what the store writes")
			assert.Equal(t, s.params["RunsTtlDays"], fmt.Sprint(path(rules[0], "ExpirationInDays")), "objects expire with the run")

			policy := s.resource(t, "PayloadBucketPolicy", "AWS::S3::BucketPolicy")
			assert.Equal(t, "${PayloadBucket}", render(path(policy, "Bucket")))
			statements := list(path(policy, "PolicyDocument", "Statement"))
			require.Len(t, statements, 1)
			st := statements[0]
			assert.Equal(t, "Deny", path(st, "Effect"))
			assert.Equal(t, "*", path(st, "Principal"))
			assert.Equal(t, "s3:*", path(st, "Action"))
			var resources []string
			for _, r := range list(path(st, "Resource")) {
				resources = append(resources, render(r))
			}
			assert.ElementsMatch(t, []string{"${PayloadBucket.Arn}", "${PayloadBucket.Arn}/*"}, resources)
			assert.Equal(t, "false", path(st, "Condition", "Bool", "aws:SecureTransport"), "TLS only")

			set := map[string]string{}
			for _, id := range s.ofType("AWS::Lambda::Function") {
				if v := path(s.resources[id].Properties, "Environment", "Variables", workflow.EnvPayloadBucket); v != nil {
					set[id] = render(v)
				}
			}
			assert.Equal(t, map[string]string{"PrepareFunction": "${PayloadBucket}", "MapFunction": "${PayloadBucket}", "ReduceFunction": "${PayloadBucket}"}, set)
		})
	}
}
