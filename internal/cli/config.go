package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/godwit/godwit/internal/atomicfile"
	"github.com/godwit/godwit/internal/config"
)

// ConfigOptions are the inputs of `godwit config`.
type ConfigOptions struct {
	IO   *IOStreams
	Home string
	// Op is "get", "set" or "unset".
	Op    string
	Key   string
	Value string
}

// NewCmdConfig reads and edits config.yaml by dotted keys, keeping its
// comments.
func NewCmdConfig(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Write, read or change $GODWIT_HOME/config.yaml",
		Long: `Read or change $GODWIT_HOME/config.yaml. Keys are dotted paths:
retry.max_attempts, providers.local.base_url, models.0.id. Quote a part that
holds a dot: fallback."openai/gpt-4.1". Comments in the file are kept.`,
	}
	run := func(op string, min, max int) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			if len(args) < min || len(args) > max {
				return usageErrorf("config %s: %s", op, cmd.Use)
			}
			opts := &ConfigOptions{IO: f.IO, Op: op}
			if len(args) > 0 {
				opts.Key = args[0]
			}
			if len(args) > 1 {
				opts.Value = args[1]
			}
			return runWith(cmd, f, &opts.Home, opts, nil, runConfig)
		}
	}
	cmd.AddCommand(
		NewCmdInit(f),
		&cobra.Command{Use: "get [KEY]", Short: "Print a key's value (the whole file without KEY)", RunE: run("get", 0, 1)},
		&cobra.Command{Use: "set KEY VALUE", Short: "Set a key (VALUE is YAML: 3, true, [a, b], text)", RunE: run("set", 2, 2)},
		&cobra.Command{Use: "unset KEY", Short: "Remove a key", RunE: run("unset", 1, 1)},
	)
	return cmd
}

func runConfig(_ context.Context, opts *ConfigOptions) error {
	path := filepath.Join(opts.Home, config.FileName)
	doc, mode, err := readYAML(path)
	if err != nil {
		return err
	}
	var keys []string
	if opts.Key != "" {
		if keys, err = splitKey(opts.Key); err != nil {
			return &UsageError{Err: err}
		}
	}
	switch opts.Op {
	case "get":
		n := doc.Content[0]
		if len(keys) > 0 {
			if n = yamlLookup(n, keys); n == nil {
				return fmt.Errorf("config: %s is not set in %s", opts.Key, path)
			}
		}
		return printNode(opts.IO, n)
	case "set":
		var v yaml.Node
		if err := yaml.Unmarshal([]byte(opts.Value), &v); err != nil || len(v.Content) == 0 {
			v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: opts.Value}
		} else {
			v = *v.Content[0]
			v.Style &^= yaml.LiteralStyle | yaml.FoldedStyle
			if v.Kind != yaml.ScalarNode {
				v.Style |= yaml.FlowStyle
			}
		}
		if err := yamlSet(doc.Content[0], keys, &v); err != nil {
			return &UsageError{Err: fmt.Errorf("config set %s: %w", opts.Key, err)}
		}
	case "unset":
		if !yamlUnset(doc.Content[0], keys) {
			return fmt.Errorf("config: %s is not set in %s", opts.Key, path)
		}
	default:
		return usageErrorf("config: unknown operation %q; use get, set or unset", opts.Op)
	}
	out, err := encodeYAML(doc)
	if err != nil {
		return err
	}
	if err := checkConfig(out); err != nil {
		return &UsageError{Err: fmt.Errorf("config %s %s: %w; %s is unchanged", opts.Op, opts.Key, err, path)}
	}
	if err := os.MkdirAll(opts.Home, 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return atomicfile.WriteFile(path, out, mode)
}

// readYAML reads a YAML file as a document node whose content is a
// mapping; a missing or empty file is an empty mapping.
func readYAML(path string) (*yaml.Node, fs.FileMode, error) {
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("config: %w", err)
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	var parsed yaml.Node
	if err := yaml.Unmarshal(data, &parsed); err != nil {
		return nil, 0, fmt.Errorf("config: %s: %w (fix the file by hand)", path, err)
	}
	if len(parsed.Content) == 0 { // only comments, or nothing
		doc.HeadComment = parsed.HeadComment
		return doc, mode, nil
	}
	if parsed.Content[0].Kind != yaml.MappingNode {
		return nil, 0, fmt.Errorf("config: %s is not a mapping of keys to values (fix the file by hand)", path)
	}
	return &parsed, mode, nil
}

func encodeYAML(doc *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("config: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("config: encode: %w", err)
	}
	return b.Bytes(), nil
}

// checkConfig refuses a file that godwit would not read as intended: a
// misspelt key, or a value of the wrong type or out of range.
func checkConfig(data []byte) error {
	if _, err := config.Parse(data, config.FileName); err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			var msgs []string
			for _, p := range ce.Problems {
				msgs = append(msgs, p.Msg)
			}
			return fmt.Errorf("godwit would not accept it (%s); `godwit config init` writes a config.yaml that explains every key", strings.Join(msgs, "; "))
		}
		return err
	}
	return nil
}

// splitKey splits a dotted key; a part in double quotes may hold dots.
func splitKey(key string) ([]string, error) {
	var parts []string
	rest := key
	for {
		var part string
		if strings.HasPrefix(rest, `"`) {
			end := strings.Index(rest[1:], `"`)
			if end < 0 {
				return nil, fmt.Errorf("key %s: unclosed quote", key)
			}
			part, rest = rest[1:end+1], rest[end+2:]
			if rest != "" && !strings.HasPrefix(rest, ".") {
				return nil, fmt.Errorf("key %s: a quoted part must be followed by a dot or the end", key)
			}
			rest = strings.TrimPrefix(rest, ".")
		} else {
			var ok bool
			part, rest, ok = strings.Cut(rest, ".")
			if ok && rest == "" {
				return nil, fmt.Errorf("key %s ends with a dot", key)
			}
		}
		if part == "" {
			return nil, fmt.Errorf("key %q has an empty part; write keys like retry.max_attempts", key)
		}
		parts = append(parts, part)
		if rest == "" {
			return parts, nil
		}
	}
}

// yamlIndex is where n's Content holds k's value: a mapping's by key, a
// list's by index; -1 when it holds none.
func yamlIndex(n *yaml.Node, k string) int {
	switch n.Kind {
	case yaml.MappingNode:
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == k {
				return j + 1
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(n.Content) {
			return i
		}
	}
	return -1
}

// yamlLookup walks keys down from n, through aliases.
func yamlLookup(n *yaml.Node, keys []string) *yaml.Node {
	for _, k := range keys {
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		i := yamlIndex(n, k)
		if i < 0 {
			return nil
		}
		n = n.Content[i]
	}
	return n
}

// yamlSet sets keys to v, making mappings (or lists, under an index) on
// the way. A list takes an index it has, or its length to append. The
// comments on a replaced value stay.
func yamlSet(n *yaml.Node, keys []string, v *yaml.Node) error {
	for i, k := range keys {
		slot := yamlSlot(n, k)
		switch {
		case slot == nil && n.Kind == yaml.SequenceNode:
			l := len(n.Content)
			return fmt.Errorf("%s is a list of %d: use an index from 0 to %d (%d appends)", strings.Join(keys[:i], "."), l, l, l)
		case slot == nil:
			return fmt.Errorf("%s holds a single value, not keys; unset it first", strings.Join(keys[:i], "."))
		case i == len(keys)-1:
			if old := *slot; old != nil {
				v.LineComment, v.HeadComment, v.FootComment = old.LineComment, old.HeadComment, old.FootComment
			}
			*slot = v
		case *slot == nil:
			// A list when the key below is an index, else a mapping.
			*slot = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			if j, err := strconv.Atoi(keys[i+1]); err == nil && j >= 0 {
				*slot = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			}
		}
		n = *slot
	}
	return nil
}

// yamlSlot is where n holds k, a new empty one when it has none; nil
// when n cannot hold k.
func yamlSlot(n *yaml.Node, k string) **yaml.Node {
	if i := yamlIndex(n, k); i >= 0 {
		return &n.Content[i]
	}
	switch i, err := strconv.Atoi(k); {
	case n.Kind == yaml.MappingNode:
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, nil)
	case n.Kind == yaml.SequenceNode && err == nil && i == len(n.Content):
		n.Content = append(n.Content, nil)
	default:
		return nil
	}
	return &n.Content[len(n.Content)-1]
}

// yamlUnset removes keys' entry; false when it was not there.
func yamlUnset(n *yaml.Node, keys []string) bool {
	parent := yamlLookup(n, keys[:len(keys)-1])
	if parent == nil {
		return false
	}
	i := yamlIndex(parent, keys[len(keys)-1])
	switch {
	case i < 0:
		return false
	case parent.Kind == yaml.MappingNode:
		parent.Content = slices.Delete(parent.Content, i-1, i+1)
	default:
		parent.Content = slices.Delete(parent.Content, i, i+1)
	}
	return true
}

// printNode prints a scalar as its bare value, anything else as YAML.
func printNode(ios *IOStreams, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		_, err := fmt.Fprintln(ios.Out, n.Value)
		return err
	}
	out, err := encodeYAML(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}})
	if err != nil {
		return err
	}
	_, err = ios.Out.Write(out)
	return err
}
