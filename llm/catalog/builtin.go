package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
)

// builtinJSON is the built-in provider and model table. Keys match the
// fields of Provider and Model (encoding/json ignores case).
//
// Images marks the models their vendors document as taking image input
// (DeepSeek's API takes none; for Ollama it depends on the model pulled,
// which images: true under models: in config.yaml says). Prices are list
// prices in USD per million tokens; where a vendor charges nothing extra
// for writing its cache (OpenAI, DeepSeek, Gemini), cacheWrite equals
// input, so the cache writes an adapter reports are priced as the
// ordinary input they are. Anthropic's ids are the API's aliases (dated
// ids resolve to them), cache writes at the 5-minute TTL rate, Sonnet's
// 1M-token beta window not modelled. OpenRouter passes the upstream list
// price through. Ollama runs whatever the user pulled, locally and free,
// with one default for all its models: its 32,768-token window is what
// the server must be set to at least, since Ollama silently truncates
// prompts beyond its own context length (OLLAMA_CONTEXT_LENGTH, a few
// thousand tokens by default). OLLAMA_HOST is Ollama's own variable but
// holds host:port only, so the base URL comes from OLLAMA_BASE_URL.
//
//go:embed builtin.json
var builtinJSON []byte

// builtin returns a fresh copy of the built-in tables. A key that names
// no field is an error, so a typo cannot drop a fact unseen.
func builtin() (providers []Provider, models []Model, err error) {
	var t struct {
		Providers []Provider
		Models    []Model
	}
	dec := json.NewDecoder(bytes.NewReader(builtinJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, nil, fmt.Errorf("catalog: builtin.json: %w", err)
	}
	return t.Providers, t.Models, nil
}
