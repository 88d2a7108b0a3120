package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/config"
)

// envFactory is a factory over a fake environment; GODWIT_HOME is home.
func envFactory(home string, env map[string]string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := fakeStreams()
	return &Factory{IO: ios, Getenv: func(k string) string {
		if k == "GODWIT_HOME" {
			return home
		}
		return env[k]
	}}, out, errOut
}

func executeCmd(cmd *cobra.Command, args ...string) error {
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetArgs(args)
	return cmd.ExecuteContext(context.Background())
}

func TestInit(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	f, out, errOut := envFactory(home, map[string]string{"OPENAI_API_KEY": "sk-x"})
	if err := executeCmd(NewCmdInit(f)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "wrote "+filepath.Join(home, "config.yaml")) || !strings.Contains(out.String(), "default model: openai/gpt-5") {
		t.Errorf("out = %q", out)
	}
	cfg, err := config.Load(home, func(string) string { return "" })
	if err != nil {
		t.Fatalf("the written config does not load: %v", err)
	}
	if cfg.Model != "openai/gpt-5" {
		t.Errorf("model = %q", cfg.Model)
	}
	if _, err := cfg.Catalog(); err != nil {
		t.Errorf("catalog: %v", err)
	}
	env, err := os.ReadFile(filepath.Join(home, ".env"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(env), "# OPENAI_API_KEY=   # set in your environment now\n") || !strings.Contains(string(env), "# ANTHROPIC_API_KEY=\n") ||
		strings.Contains(string(env), "sk-x") {
		t.Errorf(".env = %s", env)
	}
	if st, _ := os.Stat(filepath.Join(home, ".env")); st.Mode().Perm() != 0o600 {
		t.Errorf(".env mode = %v, want 0600", st.Mode().Perm())
	}
	// The .env init writes parses, and sets nothing until uncommented.
	if vars, err := parseDotenv(".env", string(env)); err != nil || len(vars) != 0 {
		t.Errorf(".env parses to %v, %v", vars, err)
	}

	// A second run keeps both files.
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("model: mine/x\n"), 0o644)
	out.Reset()
	if err := executeCmd(NewCmdInit(f), "--model", "anthropic/claude-haiku-4-5"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "config.yaml")); string(b) != "model: mine/x\n" || !strings.Contains(errOut.String(), "kept "+filepath.Join(home, "config.yaml")) {
		t.Errorf("without --force: config = %q, stderr %q", b, errOut)
	}
	// --force overwrites, keeping a copy.
	if err := executeCmd(NewCmdInit(f), "--force", "--model", "anthropic/claude-haiku-4-5"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "config.yaml.bak")); string(b) != "model: mine/x\n" {
		t.Errorf("backup = %q", b)
	}
	if cfg, _ := config.Load(home, func(string) string { return "" }); cfg.Model != "anthropic/claude-haiku-4-5" {
		t.Errorf("forced model = %q", cfg.Model)
	}
}

func TestInitBadModel(t *testing.T) {
	f, _, _ := envFactory(t.TempDir(), nil)
	for _, m := range []string{"gpt-5", "nosuch/model"} {
		err := executeCmd(NewCmdInit(f), "--model", m)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("--model %s: err = %v, want a usage error", m, err)
		}
	}
}

func TestInitNoKey(t *testing.T) {
	home := t.TempDir()
	f, out, _ := envFactory(home, nil)
	if err := executeCmd(NewCmdInit(f)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "next: put an API key in .env") {
		t.Errorf("out = %q", out)
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	if !strings.Contains(string(b), "\n# model: anthropic/claude-sonnet-4-5\n") {
		t.Errorf("no commented model line:\n%s", b)
	}
}

// config set and get over the file init writes: values land where they
// belong, typed, and every comment stays.
func TestConfigRoundTrip(t *testing.T) {
	home := t.TempDir()
	f, out, _ := envFactory(home, map[string]string{"ANTHROPIC_API_KEY": "k"})
	if err := executeCmd(NewCmdInit(f)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "config.yaml")
	before, _ := os.ReadFile(path)

	sets := [][2]string{
		{"model", "openai/gpt-5"},
		{"retry.max_attempts", "3"},
		{"context_window", "64000"},
		{`fallback."openai/gpt-4.1"`, "[openai/gpt-5, anthropic/claude-sonnet-4-5]"},
		{"providers.local.type", "openai-chat"},
		{"providers.local.base_url", "http://localhost:8080/v1"},
		{"providers.local.no_key", "true"},
		{"providers.local.models.0.id", "qwen3"},
		{"providers.local.models.0.context_window", "32768"},
	}
	for _, s := range sets {
		if err := executeCmd(NewCmdConfig(f), "set", s[0], s[1]); err != nil {
			t.Fatalf("set %s: %v", s[0], err)
		}
	}
	after, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(before), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") && !strings.Contains(string(after), strings.TrimSpace(line)) {
			t.Errorf("comment lost: %q", line)
		}
	}
	if !strings.Contains(string(after), "# The default model, as provider/model") {
		t.Errorf("the model's comment is gone:\n%s", after)
	}
	cfg, err := config.Load(home, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "openai/gpt-5" || cfg.Retry.MaxAttempts != 3 || cfg.ContextWindow != 64000 ||
		strings.Join(cfg.Fallback["openai/gpt-4.1"], ",") != "openai/gpt-5,anthropic/claude-sonnet-4-5" ||
		!cfg.Providers["local"].NoKey || cfg.Providers["local"].Models[0].ContextWindow != 32768 {
		t.Errorf("config = %+v", cfg)
	}
	if _, err := cfg.Catalog(); err != nil {
		t.Errorf("catalog: %v", err)
	}

	gets := map[string]string{
		"model":                       "openai/gpt-5\n",
		"retry.max_attempts":          "3\n",
		"providers.local.models.0.id": "qwen3\n",
		`fallback."openai/gpt-4.1"`:   "[openai/gpt-5, anthropic/claude-sonnet-4-5]\n",
		"retry":                       "max_attempts: 3\n",
	}
	for k, want := range gets {
		out.Reset()
		if err := executeCmd(NewCmdConfig(f), "get", k); err != nil {
			t.Errorf("get %s: %v", k, err)
		} else if out.String() != want {
			t.Errorf("get %s = %q, want %q", k, out, want)
		}
	}

	// Bad input: refused with a reason, the file untouched.
	snapshot, _ := os.ReadFile(path)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"set", "modle", "x"}, "unknown key modle: did you mean model?"},
		{[]string{"set", "retry.max_attempts", "many"}, "cannot unmarshal"},
		{[]string{"set", "model.x", "y"}, "model holds a single value"},
		{[]string{"set", "providers.local.models.5.id", "y"}, "use an index from 0 to 1"},
		{[]string{"set", "a..b", "y"}, "empty part"},
		{[]string{"get", "nope"}, "nope is not set"},
		{[]string{"unset", "nope"}, "nope is not set"},
		{[]string{"set", "model"}, "config set"},
	} {
		err := executeCmd(NewCmdConfig(f), tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, snapshot) {
		t.Error("a refused change altered the file")
	}

	if err := executeCmd(NewCmdConfig(f), "unset", "context_window"); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := config.Load(home, func(string) string { return "" }); cfg.ContextWindow != 0 || cfg.Model != "openai/gpt-5" {
		t.Errorf("after unset: %+v", cfg)
	}
}

// config set takes what the flags take: --max-steps 0 is bad usage, so
// is max_steps 0.
func TestConfigSetChecksAsTheFlagsDo(t *testing.T) {
	home := t.TempDir()
	f, _, _ := envFactory(home, nil)
	for _, kv := range [][2]string{{"max_steps", "0"}, {"context_window", "0"}} {
		err := executeCmd(NewCmdConfig(f), "set", kv[0], kv[1])
		if err == nil || !strings.Contains(err.Error(), kv[0]+": ") {
			t.Errorf("config set %s %s: %v", kv[0], kv[1], err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "config.yaml")); err == nil {
		t.Error("a refused value was written")
	}
}

func TestConfigSetWithoutFile(t *testing.T) {
	home := filepath.Join(t.TempDir(), "new")
	f, _, _ := envFactory(home, nil)
	if err := executeCmd(NewCmdConfig(f), "set", "max_steps", "12"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	if string(b) != "max_steps: 12\n" {
		t.Errorf("file = %q", b)
	}
}
