package bedrock

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type recordingClient struct{ got *http.Request }

func (c *recordingClient) Do(req *http.Request) (*http.Response, error) {
	c.got = req
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
}

// The body net/http sends reads but offers no WriteTo, whatever the SDK
// wrapped it in; a request without a body keeps none.
func TestReadOnlyBodies(t *testing.T) {
	cases := []struct {
		name string
		body io.ReadCloser
		want string
	}{
		{"a body with WriteTo", io.NopCloser(bytes.NewReader([]byte(`{"q":1}`))), `{"q":1}`},
		{"no body", http.NoBody, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next := &recordingClient{}
			co := &bedrockruntime.Options{HTTPClient: next}
			withReadOnlyBodies(co)
			req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/model/m/converse-stream", tc.body)
			require.NoError(t, err)
			_, err = co.HTTPClient.Do(req)
			require.NoError(t, err)
			if tc.body == http.NoBody {
				assert.Equal(t, http.NoBody, next.got.Body, "an empty body is left as net/http knows it")
			} else {
				_, writesTo := next.got.Body.(io.WriterTo)
				assert.False(t, writesTo, "net/http would copy through WriteTo")
			}
			data, err := io.ReadAll(next.got.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(data))
			require.NoError(t, next.got.Body.Close())
		})
	}
}

func TestReadOnlyBodiesDefaultsTheClient(t *testing.T) {
	co := &bedrockruntime.Options{}
	withReadOnlyBodies(co)
	wrapped, ok := co.HTTPClient.(readOnlyBodies)
	require.True(t, ok)
	assert.NotNil(t, wrapped.next)
}
