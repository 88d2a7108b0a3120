package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
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
}

// openAIEmbedder calls POST {BaseURL}/embeddings.
type openAIEmbedder struct {
	model string
	svc   openai.EmbeddingService
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
	// The service is built without the SDK's environment defaults, so an
	// OPENAI_API_KEY meant for OpenAI never reaches another server.
	opts := []option.RequestOption{option.WithBaseURL(strings.TrimRight(o.BaseURL, "/") + "/"), option.WithMaxRetries(1)}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	return &openAIEmbedder{model: o.Model, svc: openai.NewEmbeddingService(opts...)}, nil
}

func (e *openAIEmbedder) Model() string { return e.model }

// Embed implements Embedder. Vectors come back normalised to unit length,
// so that a dot product is their cosine.
func (e *openAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	resp, err := e.svc.New(ctx, openai.EmbeddingNewParams{
		Model: e.model,
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
	})
	if err != nil {
		return nil, fmt.Errorf("memory: embeddings (%s): %w", e.model, err)
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || int(d.Index) >= len(texts) {
			return nil, fmt.Errorf("memory: embeddings (%s): the server returned index %d for %d inputs", e.model, d.Index, len(texts))
		}
		out[d.Index] = normalize64(d.Embedding)
	}
	for i, v := range out {
		if len(v) == 0 {
			return nil, fmt.Errorf("memory: embeddings (%s): no vector for input %d of %d", e.model, i, len(texts))
		}
	}
	return out, nil
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
