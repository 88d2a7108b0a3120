package config

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/godwit/godwit/internal/suggest"
)

// MinContextWindow is the smallest window godwit can work in: its system
// prompt and tool table alone take about 2k tokens, and a window reserves
// a third for thinking and the answer and room for a handoff.
const MinContextWindow = 8192

// Error is a config file godwit cannot use as written. It lists every
// problem found, each with its line, so one edit fixes them all.
type Error struct {
	Path     string
	Problems []Problem
}

// Problem is one thing wrong in a config file.
type Problem struct {
	Line int // 1-based; 0 when unknown
	Msg  string
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		if p.Line > 0 {
			lines[i] = fmt.Sprintf("%s:%d: %s", e.Path, p.Line, p.Msg)
		} else {
			lines[i] = fmt.Sprintf("%s: %s", e.Path, p.Msg)
		}
	}
	return strings.Join(lines, "\n")
}

// Parse reads a config file's bytes as godwit would: an unknown key, a
// value of the wrong type or out of range is an error naming its line
// (and, for a key, the nearest valid one). path names the file in errors.
func Parse(data []byte, path string) (Config, error) {
	var c Config
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		probs := yamlProblems(err)
		for i := range probs {
			probs[i].Msg += " (fix the file, or move it away to start from defaults)"
		}
		return c, &Error{Path: path, Problems: probs}
	}
	if len(root.Content) == 0 { // empty, or only comments
		return c, nil
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return c, &Error{Path: path, Problems: []Problem{{doc.Line, "the file must map keys to values (model: ..., retry: ...)"}}}
	}
	var probs []Problem
	checkKeys(doc, reflect.TypeFor[Config](), "", &probs)
	if err := doc.Decode(&c); err != nil {
		probs = append(probs, yamlProblems(err)...)
	}
	if len(probs) == 0 {
		probs = c.validate(doc)
	}
	if len(probs) > 0 {
		slices.SortStableFunc(probs, func(a, b Problem) int { return a.Line - b.Line })
		return Config{}, &Error{Path: path, Problems: probs}
	}
	return c, nil
}

// MaxStepsProblem says what is wrong with n model calls a turn, or "" when
// n will do: the one rule for max_steps in config.yaml (and `config set`)
// and for --max-steps.
func MaxStepsProblem(n int) string {
	if n < 1 {
		return fmt.Sprintf("%d: give 1 or more model calls, or leave it out for the default", n)
	}
	return ""
}

// validate checks ranges the types cannot express.
func (c Config) validate(doc *yaml.Node) []Problem {
	var out []Problem
	bad := func(key, msg string) { out = append(out, Problem{lineOf(doc, key), key + ": " + msg}) }
	if c.ContextWindow < MinContextWindow && lineOf(doc, "context_window") > 0 {
		bad("context_window", fmt.Sprintf("%d tokens is too small: godwit needs at least %d; give the model's real window, or leave it out to use the catalog's", c.ContextWindow, MinContextWindow))
	}
	if c.WorkingSet != nil && *c.WorkingSet < 0 {
		bad("working_set", "must be 0 or more tokens (or left out for the default)")
	}
	if msg := MaxStepsProblem(c.MaxSteps); msg != "" && lineOf(doc, "max_steps") > 0 {
		bad("max_steps", msg)
	}
	for key, v := range map[string]int{"retry.max_attempts": c.Retry.MaxAttempts, "retry.max_delay_seconds": c.Retry.MaxDelaySeconds,
		"shell.max_processes": c.Shell.MaxProcesses, "shell.max_file_mb": c.Shell.MaxFileMB, "shell.job_log_mb": c.Shell.JobLogMB} {
		if v < 0 {
			bad(key, "must be 1 or more (or left out for the default)")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Providers)) {
		if d := c.Providers[name].IdleTimeout; d != 0 && d < time.Second {
			bad("providers."+name+".idle_timeout", fmt.Sprintf("%v is too short: give a duration like 10m, or leave it out for 5m", d))
		}
	}
	switch c.Tools.Deferred {
	case "", "off", "auto", "on":
	default:
		bad("tools.deferred", fmt.Sprintf("%q: use off, auto or on", c.Tools.Deferred))
	}
	return out
}

// lineOf finds the line of a dotted key in a mapping, 0 if absent.
func lineOf(n *yaml.Node, key string) int {
	line := 0
	for _, k := range strings.Split(key, ".") {
		if n == nil || n.Kind != yaml.MappingNode {
			return line
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		n = next
	}
	return line
}

// checkKeys reports every mapping key under n that type t does not have,
// with the nearest one it does. path is the dotted path of n.
func checkKeys(n *yaml.Node, t reflect.Type, path string, out *[]Problem) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	// A node of another kind than t is Decode's to report.
	switch kind := t.Kind(); {
	case kind == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		names := slices.Sorted(maps.Keys(fields))
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				msg := "unknown key " + join(k.Value)
				if s := suggest.Nearest(k.Value, names); s != "" {
					msg += ": did you mean " + s + "?"
				} else {
					msg += "; the keys here are " + strings.Join(names, ", ")
				}
				*out = append(*out, Problem{k.Line, msg})
				continue
			}
			checkKeys(v, ft, join(k.Value), out)
		}
	case kind == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			checkKeys(n.Content[i+1], t.Elem(), join(n.Content[i].Value), out)
		}
	case (kind == reflect.Slice || kind == reflect.Array) && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			checkKeys(item, t.Elem(), join(strconv.Itoa(i)), out)
		}
	}
}

// yamlFields maps a struct's YAML keys to their types (godwit's config
// types have no inline fields and no UnmarshalYAML).
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if f.IsExported() && name != "-" {
			out[name] = f.Type
		}
	}
	return out
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })

// yamlProblems turns the YAML library's errors into problems with lines,
// without its Go type names.
func yamlProblems(err error) []Problem {
	var lines []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		lines = te.Errors
	} else {
		lines = []string{err.Error()}
	}
	var out []Problem
	for _, l := range lines {
		l = strings.TrimSpace(l)
		p := Problem{Msg: strings.TrimPrefix(l, "yaml: ")}
		if m := yamlLine().FindStringSubmatch(l); m != nil {
			p.Line, _ = strconv.Atoi(m[1])
			p.Msg = m[2]
		}
		p.Msg = goTypes.Replace(p.Msg)
		out = append(out, p)
	}
	return out
}

// goTypes renders the YAML library's Go type names in YAML's words.
var goTypes = strings.NewReplacer(
	" into int", " into a whole number", " into float64", " into a number", " into bool", " into true or false", " into time.Duration", " into a duration like 10m",
	" into string", " into text", " into []string", " into a list of text",
	" into map[string][]string", " into a mapping of lists", " into map[string]string", " into a mapping of text",
	"!!str", "text", "!!int", "a number", "!!map", "a mapping", "!!seq", "a list", "!!bool", "true/false",
)
