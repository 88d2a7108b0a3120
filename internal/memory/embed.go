package memory

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	// Model names the embedding model; vectors are cached per model.
	Model() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedderOptions configure an OpenAI-compatible embeddings endpoint
// (config keys memory.embeddings.base_url, model, api_key_env).
type EmbedderOptions struct {
	// BaseURL is the API root, /v1 included: https://api.openai.com/v1,
	// http://localhost:11434/v1.
	BaseURL string
	Model   string
	// APIKey may be empty for a local server.
	APIKey     string
	HTTPClient *http.Client
	// Timeout bounds one request, so a stalled server fails the search
	// over to keywords instead of hanging it; 0 means a minute.
	Timeout time.Duration
}

// openAIEmbedder calls POST {BaseURL}/embeddings over net/http: one
// small JSON request and answer, not worth a vendor SDK.
type openAIEmbedder struct {
	o   EmbedderOptions // HTTPClient set
	url string
}

// NewEmbedder returns an Embedder for an OpenAI-compatible endpoint.
func NewEmbedder(o EmbedderOptions) (Embedder, error) {
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("memory: embeddings base_url %q is not an absolute http(s) URL: write it like https://api.openai.com/v1", o.BaseURL)
	}
	if strings.TrimSpace(o.Model) == "" {
		return nil, errors.New("memory: embeddings model is empty: set memory.embeddings.model, e.g. text-embedding-3-small")
	}
	// The environment is never read, so an OPENAI_API_KEY meant for
	// OpenAI never reaches another server.
	o.HTTPClient = cmp.Or(o.HTTPClient, http.DefaultClient)
	o.Timeout = cmp.Or(o.Timeout, time.Minute)
	return &openAIEmbedder{o: o, url: strings.TrimRight(o.BaseURL, "/") + "/embeddings"}, nil
}

func (e *openAIEmbedder) Model() string { return e.o.Model }

// Embed implements Embedder. Vectors come back normalised to unit length,
// so that a dot product is their cosine.
func (e *openAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}{texts, e.o.Model})
	if err != nil {
		return nil, fmt.Errorf("memory: embeddings (%s): %w", e.o.Model, err)
	}
	var resp struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	// One retry of a failure worth retrying (a busy or restarting
	// server), as the SDK this replaced did; search falls back to
	// keywords when embeddings fail.
	for attempt := 0; ; attempt++ {
		retry, err := e.post(ctx, body, &resp)
		if err == nil {
			break
		}
		if !retry || attempt > 0 {
			return nil, fmt.Errorf("memory: embeddings (%s): %w", e.o.Model, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("memory: embeddings (%s): %w", e.o.Model, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(texts) {
			return nil, fmt.Errorf("memory: embeddings (%s): the server returned index %d for %d inputs", e.o.Model, d.Index, len(texts))
		}
		out[d.Index] = normalize64(d.Embedding)
	}
	for i, v := range out {
		if len(v) == 0 {
			return nil, fmt.Errorf("memory: embeddings (%s): no vector for input %d of %d", e.o.Model, i, len(texts))
		}
	}
	return out, nil
}

// post sends one request and decodes its answer into out; retry reports
// whether the failure is worth one more try.
func (e *openAIEmbedder) post(ctx context.Context, body []byte, out any) (retry bool, err error) {
	ctx, cancel := context.WithTimeoutCause(ctx, e.o.Timeout, fmt.Errorf("the server did not answer within %v", e.o.Timeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if e.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.o.APIKey)
	}
	res, err := e.o.HTTPClient.Do(req)
	if err != nil && ctx.Err() != nil {
		return false, fmt.Errorf("POST %s: %w", e.url, context.Cause(ctx))
	}
	if err != nil {
		return true, err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 2<<10))
		s := res.StatusCode
		retry := s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
		return retry, fmt.Errorf("POST %s: %s: %s", e.url, res.Status, bytes.TrimSpace(msg))
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("POST %s: %w", e.url, context.Cause(ctx))
		}
		return false, fmt.Errorf("POST %s: the answer is not an embeddings list: %w", e.url, err)
	}
	return false, nil
}

func normalize64(v []float64) []float32 {
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out
	}
	n := math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// dot is the cosine of two unit vectors; 0 when their sizes differ (a
// cache from another model configuration).
func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
