package llmtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Cassette is an HTTP exchange with a vendor in go-vcr's version 2 YAML:
// each interaction's request and response, bodies as sent (a streamed
// response is its raw SSE text).
type Cassette struct {
	Version      int           `yaml:"version"`
	Interactions []Interaction `yaml:"interactions"`
}

// Interaction is one recorded request and its response.
type Interaction struct {
	Request struct {
		Body   string              `yaml:"body"`
		URL    string              `yaml:"url"`
		Method string              `yaml:"method"`
		Header map[string][]string `yaml:"headers"`
	} `yaml:"request"`
	Response struct {
		Body   string              `yaml:"body"`
		Header map[string][]string `yaml:"headers"`
		Code   int                 `yaml:"code"`
	} `yaml:"response"`
}

// Reply turns the recorded response into a scripted Reply.
func (i Interaction) Reply() Reply {
	h := map[string]string{}
	for k, v := range i.Response.Header {
		if len(v) > 0 && (k == "Content-Type" || k == "Retry-After") {
			h[k] = v[0]
		}
	}
	return Reply{Status: i.Response.Code, Headers: h, Body: i.Response.Body}
}

// Replies returns the replies of all interactions in order.
func (c *Cassette) Replies() []Reply {
	out := make([]Reply, len(c.Interactions))
	for i, in := range c.Interactions {
		out[i] = in.Reply()
	}
	return out
}

// Cassettes loads every *.yaml under dir (a package's testdata), keyed by
// path relative to dir. The cassettes are the package's own files, so a
// missing or empty folder fails t: it never skips.
func Cassettes(t testing.TB, dir string) map[string]*Cassette {
	t.Helper()
	out := map[string]*Cassette{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var c Cassette
		if err := yaml.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("parsing %s: %w", p, err)
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = &c
		return nil
	})
	if err != nil {
		t.Fatalf("llmtest: loading cassettes from %s: %v", dir, err)
	}
	if len(out) == 0 {
		t.Fatalf("llmtest: no cassettes under %s", dir)
	}
	return out
}
