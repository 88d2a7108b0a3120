package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/tool/workspace"
)

// ProjectFile is the file in the workspace root that lists a project's
// servers, in the format other agents use.
const ProjectFile = ".mcp.json"

// Config is the mcp section of config.yaml:
//
//	mcp:
//	  servers:
//	    github:
//	      command: npx
//	      args: ["-y", "@modelcontextprotocol/server-github"]
//	      env: {GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}"}
//	    docs:
//	      url: https://example.com/mcp
//	      headers: {Authorization: "Bearer ${DOCS_TOKEN}"}
//	  project: ["*"]   # .mcp.json servers allowed to start; none by default
type Config struct {
	Servers map[string]ServerConfig `yaml:"servers,omitempty" json:"servers,omitempty"`
	// Project names the servers of the workspace's .mcp.json that may
	// start ("*" for all). A .mcp.json comes with the repository and can
	// run any command, so none start unless named here.
	Project []string `yaml:"project,omitempty" json:"project,omitempty"`
}

// ServerConfig is one server: a command spoken to over stdio, or an HTTP
// endpoint. Strings may name environment variables as ${VAR} or
// ${VAR:-default}.
type ServerConfig struct {
	// Type is "stdio", "http" (streamable HTTP) or "sse"; empty means
	// stdio when Command is set and http when URL is.
	Type    string            `yaml:"type,omitempty" json:"type,omitempty"`
	Command string            `yaml:"command,omitempty" json:"command,omitempty"`
	Args    []string          `yaml:"args,omitempty" json:"args,omitempty"`
	Env     map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	URL     string            `yaml:"url,omitempty" json:"url,omitempty"`
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// Disabled keeps an entry without starting it.
	Disabled bool `yaml:"disabled,omitempty" json:"disabled,omitempty"`
	// TimeoutS bounds one tool call in seconds; 0 means DefaultCallTimeout.
	TimeoutS int `yaml:"timeout_s,omitempty" json:"timeout_s,omitempty"`
}

// Transport types.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// kind returns the transport the entry asks for, or an error saying how
// to fix the entry.
func (s ServerConfig) kind() (string, error) {
	t := strings.ToLower(strings.TrimSpace(s.Type))
	switch t {
	case "streamable-http", "streamablehttp", "streamable_http":
		t = TypeHTTP
	case "":
		switch {
		case s.Command != "" && s.URL != "":
			return "", errors.New("it sets both command and url; keep one")
		case s.Command != "":
			t = TypeStdio
		case s.URL != "":
			t = TypeHTTP
		default:
			return "", errors.New("it sets neither command (a stdio server) nor url (an HTTP server)")
		}
	}
	switch t {
	case TypeStdio:
		if s.Command == "" {
			return "", errors.New(`type "stdio" needs a command`)
		}
	case TypeHTTP, TypeSSE:
		if s.URL == "" {
			return "", fmt.Errorf("type %q needs a url", t)
		}
	default:
		return "", fmt.Errorf("unknown type %q; use stdio, http or sse", s.Type)
	}
	return t, nil
}

// ParseProjectFile parses the .mcp.json format.
func ParseProjectFile(data []byte) (map[string]ServerConfig, error) {
	var f struct {
		Servers map[string]ServerConfig `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf(`mcp: %s: %w (expected {"mcpServers": {"name": {"command": ...} | {"url": ...}}})`, ProjectFile, err)
	}
	return f.Servers, nil
}

// maxProjectFile bounds what is read of .mcp.json.
const maxProjectFile = 1 << 20

// ReadProjectFile reads dir/.mcp.json; a missing file is no servers. It
// comes with the repository, so it is read through a root of dir
// (workspace.Load): a link out of dir, or to a secrets file, is an
// error, not a file to parse.
func ReadProjectFile(dir string) (map[string]ServerConfig, error) {
	path := filepath.Join(dir, ProjectFile)
	data, _, err := workspace.Load(dir, ProjectFile, maxProjectFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	servers, err := ParseProjectFile(data)
	if err != nil {
		return nil, fmt.Errorf("%w; fix %s", err, path)
	}
	return servers, nil
}

// Held lists the servers of dir/.mcp.json that c does not let start
// (not named in Project, and not shadowed by a config.yaml server of the
// same name), in name order: what the user must be told about, since
// nothing else of the file shows. A disabled entry is left out; so is a
// file that cannot be read (the Manager reports that one).
func (c Config) Held(dir string) []string {
	project, err := ReadProjectFile(dir)
	if err != nil {
		return nil
	}
	var out []string
	for name, s := range project {
		if _, mine := c.Servers[name]; mine || s.Disabled || c.trusted(name) {
			continue
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// HeldNotice is what godwit says, once at start, about the servers Held
// lists: that they did not start, why, and how to start them.
func HeldNotice(names []string) string {
	if len(names) == 0 {
		return ""
	}
	list, what := strings.Join(names, ", "), "servers"
	if len(names) == 1 {
		what = "server"
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return fmt.Sprintf("%s lists MCP %s not started: %s. A repository's %s can run any command, so godwit starts none unasked; "+
		"to start them, add to $GODWIT_HOME/config.yaml: mcp: {project: [%s]} (or [\"*\"] for all of them)",
		ProjectFile, what, list, ProjectFile, strings.Join(quoted, ", "))
}

// trusted reports whether the project server name may start.
func (c Config) trusted(name string) bool {
	return slices.Contains(c.Project, "*") || slices.Contains(c.Project, name)
}

var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`) })

// expand replaces ${VAR} and ${VAR:-default} in s. A variable that is
// unset and has no default is an error: a server started with an empty
// token fails later with a worse message.
func expand(s string, getenv func(string) string) (string, error) {
	var missing []string
	out := envRef().ReplaceAllStringFunc(s, func(ref string) string {
		m := envRef().FindStringSubmatch(ref)
		if v := getenv(m[1]); v != "" {
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		missing = append(missing, m[1])
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set; set it, or give a default as ${%s:-value}", missing[0], missing[0])
	}
	return out, nil
}

// expanded returns s with every string expanded.
func (s ServerConfig) expanded(getenv func(string) string) (ServerConfig, error) {
	var err error
	one := func(v string) string {
		if err != nil {
			return v
		}
		var x string
		x, err = expand(v, getenv)
		return x
	}
	out := s
	out.Command = one(s.Command)
	out.URL = one(s.URL)
	out.Args = make([]string, len(s.Args))
	for i, a := range s.Args {
		out.Args[i] = one(a)
	}
	out.Env = expandMap(s.Env, one)
	out.Headers = expandMap(s.Headers, one)
	return out, err
}

func expandMap(m map[string]string, one func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = one(v)
	}
	return out
}
