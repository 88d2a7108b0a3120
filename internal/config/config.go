// Package config reads godwit's configuration: $GODWIT_HOME/config.yaml,
// then the environment, then built-in defaults, in that order of
// precedence from last to first (the environment wins over the file).
//
// Of godwit's packages it imports only internal/suggest, llm/catalog and
// internal/mcp.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/mcp"
	"github.com/godwit/godwit/llm/catalog"
)

// FileName is the config file under GODWIT_HOME.
const FileName = "config.yaml"

// Config is godwit's configuration.
type Config struct {
	// Model is the default "provider/model" (GODWIT_MODEL overrides it).
	Model string `yaml:"model,omitempty"`
	// Fallback lists, per model, the models to move to on connection
	// failure or repeated overload.
	Fallback map[string][]string `yaml:"fallback,omitempty"`
	// Providers adds providers or changes built-in ones.
	Providers map[string]ProviderConfig `yaml:"providers,omitempty"`
	// Models overrides catalog facts (window, output, prices) of known
	// models, or adds models to a provider.
	Models []ModelConfig `yaml:"models,omitempty"`
	// Retry tunes retries of transient provider failures.
	Retry RetryConfig `yaml:"retry,omitempty"`
	// SummaryModel, "provider/model", is a cheap model that summarises
	// tool outputs paged out of the window; empty summarises without one.
	SummaryModel string `yaml:"summary_model,omitempty"`
	// ContextWindow overrides the model's window (tests, local models).
	ContextWindow int `yaml:"context_window,omitempty"`
	// WorkingSet is how much tool output of earlier turns stays whole in
	// view, in tokens (nil: window.DefaultWorkingSet).
	WorkingSet *int `yaml:"working_set,omitempty"`
	// MaxSteps bounds model calls per turn.
	MaxSteps int `yaml:"max_steps,omitempty"`
	// Memory configures long-term memory search.
	Memory MemoryConfig `yaml:"memory,omitempty"`
	// MCP lists MCP servers and which .mcp.json servers may start.
	MCP mcp.Config `yaml:"mcp,omitempty"`
	// Tools tunes the tool table.
	Tools ToolsConfig `yaml:"tools,omitempty"`
	// Mail says whom the send_message tool may message.
	Mail MailConfig `yaml:"mail,omitempty"`
	// Shell bounds what shell commands may use.
	Shell ShellConfig `yaml:"shell,omitempty"`
}

// ShellConfig bounds what shell commands may use; zero takes the
// default.
type ShellConfig struct {
	// MaxProcesses bounds each command's processes and threads
	// (RLIMIT_NPROC, Linux: only where the command has a user namespace,
	// so not for root).
	MaxProcesses int `yaml:"max_processes,omitempty"`
	// MaxFileMB bounds, in MiB, any file a command writes (RLIMIT_FSIZE).
	MaxFileMB int `yaml:"max_file_mb,omitempty"`
	// JobLogMB is how many MiB of its output a background job's log
	// keeps (the end).
	JobLogMB int `yaml:"job_log_mb,omitempty"`
}

// The shell's defaults.
const (
	DefaultMaxProcesses = 8192
	DefaultMaxFileMB    = 4096
	DefaultJobLogMB     = 16
)

// Limits are the bounds in force: processes, and file and job log
// sizes in bytes (validate refuses negative values).
func (s ShellConfig) Limits() (processes int, fileSize, jobLog int64) {
	return cmp.Or(s.MaxProcesses, DefaultMaxProcesses), int64(cmp.Or(s.MaxFileMB, DefaultMaxFileMB)) << 20, int64(cmp.Or(s.JobLogMB, DefaultJobLogMB)) << 20
}

// MailConfig says whom the send_message tool may message besides the
// sessions of the sender's own workspace.
type MailConfig struct {
	// Allow lists workspaces (absolute paths) or session ids whose
	// sessions may be messaged too; "*" allows every session.
	Allow []string `yaml:"allow,omitempty"`
}

// ToolsConfig tunes the tool table.
type ToolsConfig struct {
	// Deferred leaves rarely used tools (MCP tools, subagent,
	// search_memory) out of the table, listed one line each and called
	// through tool_call: off (the default), auto (when it saves at least
	// 1,000 tokens a request) or on. send_message is deferred in every
	// mode.
	Deferred string `yaml:"deferred,omitempty"`
}

// MemoryConfig configures search_memory.
type MemoryConfig struct {
	Embeddings EmbeddingsConfig `yaml:"embeddings,omitempty"`
}

// EmbeddingsConfig names an OpenAI-compatible embeddings endpoint; when
// set, search_memory fuses vector similarity with keyword ranking.
type EmbeddingsConfig struct {
	BaseURL   string `yaml:"base_url,omitempty"`
	Model     string `yaml:"model,omitempty"`
	APIKeyEnv string `yaml:"api_key_env,omitempty"`
}

// ProviderConfig is a provider entry of the config file.
type ProviderConfig struct {
	Type         string            `yaml:"type,omitempty"` // anthropic | openai-responses | openai-chat
	BaseURL      string            `yaml:"base_url,omitempty"`
	APIKeyEnv    string            `yaml:"api_key_env,omitempty"`
	Headers      map[string]string `yaml:"headers,omitempty"`
	NoKey        bool              `yaml:"no_key,omitempty"`
	SendCacheKey bool              `yaml:"send_cache_key,omitempty"`
	// IdleTimeout ("10m") is how long the server may send nothing
	// before a call counts as dropped and is retried; 5m when unset.
	IdleTimeout time.Duration `yaml:"idle_timeout,omitempty"`
	Models      []ModelConfig `yaml:"models,omitempty"`
}

// ModelConfig is a model entry: facts and prices (USD per million tokens).
type ModelConfig struct {
	Provider      string      `yaml:"provider,omitempty"`
	ID            string      `yaml:"id"`
	ContextWindow int         `yaml:"context_window,omitempty"`
	MaxOutput     int         `yaml:"max_output,omitempty"`
	Price         PriceConfig `yaml:"price,omitempty"`
	// Reasoning is the effort asked of a reasoning model: low, medium or
	// high (through OpenRouter, its reasoning: {effort}).
	Reasoning string `yaml:"reasoning,omitempty"`
	// Images says the model takes image input.
	Images bool `yaml:"images,omitempty"`
}

// PriceConfig is a model's price per million tokens.
type PriceConfig struct {
	Input      float64 `yaml:"input,omitempty"`
	Output     float64 `yaml:"output,omitempty"`
	CacheRead  float64 `yaml:"cache_read,omitempty"`
	CacheWrite float64 `yaml:"cache_write,omitempty"`
}

// RetryConfig tunes retries.
type RetryConfig struct {
	MaxAttempts int `yaml:"max_attempts,omitempty"`
	// MaxDelaySeconds caps one backoff wait.
	MaxDelaySeconds int `yaml:"max_delay_seconds,omitempty"`
}

// Load reads home/config.yaml (a missing file is an empty config) and
// applies the environment. A file godwit cannot use as written (an
// unknown key, a value of the wrong type or out of range) is an *Error.
func Load(home string, getenv func(string) string) (Config, error) {
	var c Config
	path := filepath.Join(home, FileName)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return c, fmt.Errorf("config: %w", err)
	default:
		if c, err = Parse(data, path); err != nil {
			return c, err
		}
	}
	if m := getenv("GODWIT_MODEL"); m != "" {
		c.Model = m
	}
	return c, nil
}

// Catalog returns the built-in catalog with this config's providers and
// models as overrides. An override the catalog refuses is an *Error of
// config.yaml.
func (c Config) Catalog() (*catalog.Catalog, error) {
	var o catalog.Overrides
	for _, name := range slices.Sorted(maps.Keys(c.Providers)) {
		p := c.Providers[name]
		o.Providers = append(o.Providers, catalog.Provider{
			Name: name, Type: p.Type, BaseURL: p.BaseURL, APIKeyEnv: p.APIKeyEnv,
			Headers: p.Headers, NoKey: p.NoKey, SendCacheKey: p.SendCacheKey, IdleTimeout: p.IdleTimeout,
		})
		for _, m := range p.Models {
			m.Provider = name
			o.Models = append(o.Models, m.model())
		}
	}
	for _, m := range c.Models {
		o.Models = append(o.Models, m.model())
	}
	cat, err := catalog.New(o)
	if err != nil {
		return nil, &Error{Path: FileName, Problems: []Problem{{Msg: strings.TrimPrefix(err.Error(), "catalog: ")}}}
	}
	return cat, nil
}

func (m ModelConfig) model() catalog.Model {
	return catalog.Model{
		Provider: m.Provider, ID: m.ID, ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput, Reasoning: m.Reasoning, Images: m.Images,
		Price: catalog.Price{Input: m.Price.Input, Output: m.Price.Output, CacheRead: m.Price.CacheRead, CacheWrite: m.Price.CacheWrite},
	}
}
