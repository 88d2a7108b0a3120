package cli

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

func chatFactory(t *testing.T, ios *IOStreams, home string) *Factory {
	t.Helper()
	return &Factory{IO: ios, Logger: slog.New(slog.DiscardHandler), Workdir: t.TempDir(),
		Getenv: func(k string) string { return map[string]string{"GODWIT_HOME": home}[k] }}
}

func TestChatFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want ChatOptions
		err  string
	}{
		{"defaults", nil, ChatOptions{}, ""},
		{"all", []string{"--model", "local/m", "--session", "last", "--allow-write", "--context-window", "32000"},
			ChatOptions{engineOptions: engineOptions{AllowWrite: true, Options: wiring.Options{Model: "local/m", ContextWindow: 32000}}, Session: "last"}, ""},
		{"yes", []string{"-y", "-m", "a/b"}, ChatOptions{engineOptions: engineOptions{Yes: true, Options: wiring.Options{Model: "a/b"}}}, ""},
		{"negative window", []string{"--context-window", "-1"}, ChatOptions{}, "--context-window -1: godwit needs at least 8192 tokens"},
		{"tiny window", []string{"--context-window", "10"}, ChatOptions{}, "--context-window 10: godwit needs at least 8192 tokens"},
		{"continue", []string{"-c"}, ChatOptions{Session: "last"}, ""},
		{"continue and a session", []string{"-c", "--session", "01abc"}, ChatOptions{}, "not both"},
		{"a stray argument", []string{"hello"}, ChatOptions{}, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, _ := fakeStreams()
			home := t.TempDir()
			var got *ChatOptions
			cmd := NewCmdChat(chatFactory(t, ios, home), func(_ context.Context, o *ChatOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(ios.Out)
			cmd.SetErr(ios.ErrOut)
			err := cmd.Execute()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Model != tc.want.Model || got.Session != tc.want.Session || got.AllowWrite != tc.want.AllowWrite ||
				got.Yes != tc.want.Yes || got.ContextWindow != tc.want.ContextWindow || got.Home != home {
				t.Errorf("options %+v, want %+v (home %s)", got, tc.want, home)
			}
		})
	}
}

// serve refuses a window godwit cannot work in, as run and chat do,
// before it opens anything.
func TestServeRefusesATinyWindow(t *testing.T) {
	f, _, _ := testFactory(t.TempDir())
	err := executeCmd(NewCmdServe(f), "--new", "--context-window", "10")
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--context-window 10: godwit needs at least 8192 tokens") {
		t.Errorf("err = %v, want a usage error about the window", err)
	}
}

// chatLinesRun runs the line-mode chat over a scripted model.
func chatLinesRun(t *testing.T, input string, allowWrite bool, steps ...fake.Step) (opts *ChatOptions, stdout, stderr string) {
	t.Helper()
	ios, in, out, errOut := fakeStreams()
	in.WriteString(input)
	f := chatFactory(t, ios, t.TempDir())
	opts = &ChatOptions{engineOptions: engineOptions{IO: ios, AllowWrite: allowWrite, Options: wiring.Options{Getenv: f.Getenv, Logger: f.Logger, Home: t.TempDir(),
		Workspace: f.Workdir, Model: "fake/m", Provider: fake.New(steps...)}}}
	if err := runChat(context.Background(), opts); err != nil {
		t.Fatalf("chat: %v\n%s", err, errOut)
	}
	return opts, out.String(), errOut.String()
}

func TestChatLinesTurnsAndCommands(t *testing.T) {
	u := &llm.Usage{InputTokens: 900, CacheReadTokens: 300, OutputTokens: 12}
	_, out, errOut := chatLinesRun(t, "hello\n:cost\n::colon prompt\n:nope\n:quit\nnever sent\n", false,
		fake.Step{Text: "hi there", Usage: u}, fake.Step{Text: "second answer", Usage: u})
	for _, want := range []string{"hi there\n", "fake/m", "cache hits: 33%", "second answer\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "unknown command :nope") {
		t.Errorf("stderr lacks the unknown command:\n%s", errOut)
	}
	if strings.Contains(out, "never") {
		t.Error(":quit did not end the chat")
	}
}

func TestChatLinesApproves(t *testing.T) {
	write := fake.Step{ToolCalls: []llm.ToolCall{fake.Call("w", "file_write", map[string]any{"path": "a.txt", "content": "A\n"})}}
	tests := []struct {
		name, answer string
		written      bool
	}{
		{"yes", "y", true},
		{"no", "n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts, _, errOut := chatLinesRun(t, "write a.txt\n"+tc.answer+"\n", true, write, fake.Step{Text: "done"})
			_, err := os.Stat(filepath.Join(opts.Workspace, "a.txt"))
			if written := err == nil; written != tc.written {
				t.Errorf("written = %v, want %v; stderr:\n%s", written, tc.written, errOut)
			}
			if !strings.Contains(errOut, "Allow? [y]es") {
				t.Errorf("the question was not asked:\n%s", errOut)
			}
		})
	}
}

func TestChatNeedsAModel(t *testing.T) {
	ios, _, _, _ := fakeStreams()
	opts := &ChatOptions{engineOptions: engineOptions{IO: ios, Options: wiring.Options{Getenv: func(string) string { return "" }, Home: t.TempDir(), Workspace: t.TempDir()}}}
	var ue *UsageError
	if err := runChat(context.Background(), opts); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--model") {
		t.Errorf("err = %v, want a usage error naming --model", err)
	}
}
