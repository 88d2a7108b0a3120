package suggest

import "testing"

func TestNearest(t *testing.T) {
	keys := []string{"model", "fallback", "providers", "models", "retry", "summary_model", "context_window", "max_steps", "memory", "mcp", "tools"}
	tests := []struct {
		word, want string
	}{
		{"retyr", "retry"},
		{"retry", "retry"},
		{"Retry", "retry"},
		{"modle", "model"},
		{"provider", "providers"},
		{"max_step", "max_steps"},
		{"contextwindow", "context_window"},
		{"summary", "summary_model"},
		{"zzz", ""},
		{"x", ""},
		{"", ""},
		{"verbose", ""},
	}
	for _, tc := range tests {
		if got := Nearest(tc.word, keys); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"retyr", "retry", 1},
		{"kitten", "sitting", 3},
		{"ab", "ba", 1},
	}
	for _, tc := range tests {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
