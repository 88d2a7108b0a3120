package policy

import (
	"testing"

	"github.com/godwit/godwit/tool"
)

// TestConfinedDecisions: a call allowed because it only reads runs
// confined to reading in every mode, asked about or not; a call that
// writes or runs an unlisted command gets the session's sandbox.
func TestConfinedDecisions(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		cmd    string
		mode   Mode
		answer Choice
		want   tool.Confinement
	}{
		{"ls", ReadOnly, No, tool.ConfineReadOnly},
		{"ls", Ask, No, tool.ConfineReadOnly},
		{"ls", Auto, No, tool.ConfineReadOnly},
		{"git status", Auto, No, tool.ConfineReadOnly},
		{"cat .env", Ask, Yes, tool.ConfineReadOnly},
		{"cat .env", Auto, No, tool.ConfineReadOnly},
		{"FOO=1", Auto, No, tool.ConfineReadOnly},
		{"ls > out.txt", Auto, No, tool.ConfineSession},
		{"go test ./...", Auto, No, tool.ConfineSession},
		{"go test ./...", Ask, Yes, tool.ConfineSession},
		{"ls && touch x", Auto, No, tool.ConfineSession},
	}
	for _, tt := range tests {
		rec := &recorder{answer: Answer{Choice: tt.answer}}
		_, d := outcome(t, e.policy(t, tt.mode, "", rec), rec, shellReq(tt.cmd))
		if !d.Allow {
			t.Errorf("%q in %s: not allowed (%s)", tt.cmd, tt.mode, d.Reason)
			continue
		}
		if d.Confine != tt.want {
			t.Errorf("%q in %s: confine %v, want %v", tt.cmd, tt.mode, d.Confine, tt.want)
		}
	}
}
