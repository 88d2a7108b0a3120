package catalog

import (
	"fmt"
	"strings"
	"unicode"
)

// ParseModelRef splits "provider/model" at the first '/'. The model part
// may itself contain '/': "openrouter/anthropic/claude-sonnet-4" is model
// "anthropic/claude-sonnet-4" of provider "openrouter". Surrounding space
// is ignored.
func ParseModelRef(ref string) (provider, model string, err error) {
	const how = "name a model as provider/model, e.g. anthropic/claude-sonnet-4-5"
	s := strings.TrimSpace(ref)
	if s == "" {
		return "", "", fmt.Errorf("catalog: no model given; %s", how)
	}
	if strings.ContainsFunc(s, unicode.IsSpace) {
		return "", "", fmt.Errorf("catalog: model %q contains a space; %s", ref, how)
	}
	provider, model, ok := strings.Cut(s, "/")
	switch {
	case !ok:
		return "", "", fmt.Errorf("catalog: model %q names no provider; %s", s, how)
	case provider == "":
		return "", "", fmt.Errorf("catalog: model %q has an empty provider before the '/'; %s", s, how)
	case model == "":
		return "", "", fmt.Errorf("catalog: model %q has no model after the '/'; %s", s, how)
	}
	return provider, model, nil
}
