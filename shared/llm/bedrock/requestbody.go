package bedrock

import (
	"io"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
)

// The SDK hands net/http a request body whose WriteTo answers io.EOF once
// the SDK has closed it, and it closes it as soon as the response headers
// are back. net/http checks a sent body for extra bytes with io.Copy,
// which prefers WriteTo, and takes that io.EOF as a write error: it tears
// the connection down under a ConverseStream that is still being read
// ("decode event: … use of closed network connection"). A body that only
// reads takes the Read path, whose io.EOF after close is the normal end.
type readOnlyBodies struct{ next bedrockruntime.HTTPClient }

func (c readOnlyBodies) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = readOnlyBody{req.Body}
	}
	return c.next.Do(req)
}

// readOnlyBody hides every method of its body but Read and Close.
type readOnlyBody struct{ body io.ReadCloser }

func (b readOnlyBody) Read(p []byte) (int, error) { return b.body.Read(p) }
func (b readOnlyBody) Close() error               { return b.body.Close() }

// withReadOnlyBodies wraps the client's HTTP client, the SDK's default when
// the configuration names none.
func withReadOnlyBodies(co *bedrockruntime.Options) {
	next := co.HTTPClient
	if next == nil {
		next = awshttp.NewBuildableClient()
	}
	co.HTTPClient = readOnlyBodies{next: next}
}
