package trace

import (
	"encoding/json"
	"testing"

	"github.com/godwit/godwit/internal/store"
)

func TestIsTestCommand(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"go test ./...", true},
		{"go test -run TestAdd -v ./calc", true},
		{"cd pkg && go test ./...", true},
		{"GOFLAGS=-mod=mod go test ./...", true},
		{"pytest -x tests/", true},
		{"python -m pytest", true},
		{"python3 -m unittest discover", true},
		{"npm test", true},
		{"npm run test -- --watch=false", true},
		{"yarn test", true},
		{"pnpm test", true},
		{"npx jest src", true},
		{"npx vitest run", true},
		{"cargo test --all", true},
		{"cargo nextest run", true},
		{"make test", true},
		{"make check", true},
		{"timeout 60 go test ./...", true},
		{"bundle exec rspec", true},
		{"./gradlew test", true},
		{"mvn -q test", true},
		{"dotnet test", true},
		{"go build ./...", false},
		{"go vet ./...", false},
		{"cat test.go", false},
		{"grep -r pytest .", false},
		{"ls tests/", false},
		{"npm install", false},
		{"echo go testing", false},
		{"cargo build", false},
		{"gotest", false},
	}
	for _, tc := range tests {
		if got := isTestCommand(tc.cmd); got != tc.want {
			t.Errorf("isTestCommand(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

func TestDiagnosticOutput(t *testing.T) {
	tests := []struct {
		out, want string
	}{
		{"ok  \texample/calc\t0.003s\n[exit 0 · 0.38s]", ""},
		{"# example\nwarning: GOPATH set to GOROOT has no effect\n[exit 0 · 0.2s]", "warning: GOPATH set to GOROOT has no effect"},
		{"main.c:3:5: warning: unused variable 'x'\n[exit 0 · 1.0s]", "main.c:3:5: warning: unused variable 'x'"},
		{"x.py:3: DeprecationWarning: use y\n  y()\n[exit 0 · 0.1s]", "x.py:3: DeprecationWarning: use y"},
		{"npm WARN deprecated glob@7\nadded 3 packages\n[exit 0 · 2.0s]", "npm WARN deprecated glob@7"},
		{"Traceback (most recent call last):\n  File \"a.py\"\n[exit 0 · 0.1s]", "Traceback (most recent call last):"},
		{"sh: 1: foo: command not found\n[exit 0 · 0.01s]", "sh: 1: foo: command not found"},
		{"ERROR something broke\n[exit 0 · 0.01s]", "ERROR something broke"},
		// Words in ordinary output are not diagnostics.
		{"errors.go\nwarnings are off\nno errors found\n[exit 0 · 0.1s]", ""},
		{"PASS: TestErrorHandling\n[exit 0 · 0.1s]", ""},
		{"[exit 0 · 0.01s · no output]", ""},
	}
	for _, tc := range tests {
		if got := diagnosticOutput(tc.out); got != tc.want {
			t.Errorf("diagnosticOutput(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

func TestReadsAndWrites(t *testing.T) {
	call := func(name, args string, changed ...string) store.ToolCall {
		return store.ToolCall{Name: name, Args: json.RawMessage(args), Changed: changed}
	}
	rd, ok := readOf(call("file_read", `{"path":"/ws/./pkg/a.go","start_line":10,"end_line":20}`), "/ws")
	if !ok || rd != (fileRead{path: "pkg/a.go", from: 10, to: 20}) {
		t.Errorf("readOf = %+v, %v", rd, ok)
	}
	if _, ok := readOf(store.ToolCall{Name: "file_read", Args: json.RawMessage(`{"path":"a"}`), IsError: true}, "/ws"); ok {
		t.Error("a failed read counts as a read")
	}
	overlap := []struct {
		a, b fileRead
		want bool
	}{
		{fileRead{}, fileRead{from: 5, to: 9}, true},
		{fileRead{from: 1, to: 50}, fileRead{from: 51, to: 100}, false},
		{fileRead{from: 1, to: 50}, fileRead{from: 50}, true},
		{fileRead{from: 100}, fileRead{to: 99}, false},
	}
	for _, o := range overlap {
		if got := o.a.overlaps(o.b); got != o.want {
			t.Errorf("%+v overlaps %+v = %v", o.a, o.b, got)
		}
	}
	if got := writesOf(call("file_edit", `{"path":"./b.go"}`), "/ws"); len(got) != 1 || got[0] != "b.go" {
		t.Errorf("writesOf(file_edit) = %v", got)
	}
	if got := writesOf(call("shell_exec", `{"command":"gofmt -w ."}`, "c.go", "/ws/d.go"), "/ws"); len(got) != 2 || got[1] != "d.go" {
		t.Errorf("writesOf(changed) = %v", got)
	}
	if got := writesOf(call("shell_exec", `{"command":"go test"}`), "/ws"); got != nil {
		t.Errorf("a shell run without changed paths writes %v", got)
	}
	if cmd, ok := commandOf(call("shell_exec", `{"action":"logs","job_id":"j1"}`)); ok {
		t.Errorf("job action counted as a run: %q", cmd)
	}
	if cmd, ok := commandOf(call("shell_exec", `{"command":"  go   test  ./... "}`)); !ok || cmd != "go test ./..." {
		t.Errorf("commandOf = %q, %v", cmd, ok)
	}
}
