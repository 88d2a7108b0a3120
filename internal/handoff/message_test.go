package handoff

import (
	"strings"
	"testing"
)

// A message splits into the user's words and pastes: fenced blocks,
// unfenced logs (a prose-looking line inside one stays in it), stack
// traces, JSON logs, indented code. Markdown and any script are prose.
func TestBlocks(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // p for prose, P for a paste, with its lines
	}{
		{"fenced", "Here is the log:\n```\na\nb\n```\nWhat failed?", "p1 P4 p1"},
		{"unfenced log with a hint line", "CI is red:\n2026-11-30T02:00:01Z INFO start\nhint: don't forget to run `go mod tidy`\n2026-11-30T02:00:09Z ERROR boom\nwhy?", "p1 P3 p1"},
		{"json log", "Found this in prod:\n{\"level\":\"info\",\"ts\":\"2024-05-14T11:20:01Z\",\"msg\":\"a\"}\n{\"level\":\"debug\",\"ts\":\"2024-05-14T11:20:02Z\",\"msg\":\"b\"}\nStrip the body.", "p1 P2 p1"},
		{"python traceback", "Traceback (most recent call last):\n  File \"/srv/a.py\", line 44, in <module>\n    main()\nValueError: day is out of range", "P4"},
		{"node error object", "O serviço não sobe:\n    at Timeout._onTimeout (/app/x.js:278:38)\n  reason: TopologyDescription {\n    stale: false,\n    code: undefined,\n  }", "p1 P5"},
		{"access log", "401s since this morning:\n10.0.3.17 - - [14/May/2024:10:02:11 +0000] \"POST /api HTTP/1.1\" 401 58\n10.0.3.17 - - [14/May/2024:10:02:12 +0000] \"POST /api HTTP/1.1\" 401 58", "p1 P2"},
		{"rules file", "## Tests\n- Use table tests.\n- **Never** mock the store.\n1. 必须写测试。\n> Prefer small PRs 🙂", "p5"},
		{"all caps rule", "NEVER commit .env files\nALWAYS run the linter", "p2"},
		{"indented code", "Use this:\n    if err != nil {\n        return err\n    }\nThanks.", "p1 P3 p1"},
		{"race report", "can you find the race?\n==================\nWARNING: DATA RACE\nWrite at 0x00c0001a4018 by goroutine 9:\n  example.com/cache.(*LRU).Put()\n      /src/cache/lru.go:61 +0x1a4\n==================", "p1 P6"},
		{"aligned columns", "here is kubectl describe:\nEvents:\n  Type     Reason     Age   Message\n  ----     ------     ----  -------\n  Normal   Pulled     3m2s  Successfully pulled image", "p2 P3"},
		{"pytest", "=== test session starts ===\nplatform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0\nrootdir: /home/dev/svc\ncollected 42 items\n\ntests/test_dates.py ....F.....   [ 23%]\nwhy only on CI?", "P6 p1"},
		{"CJK with code", "数据库字段一律使用下划线命名（snake_case）。\nインデントはスペース2つで統一しています。", "p2"},
		{"one line of symbols is the user's", "Set GOFLAGS=-mod=vendor and CGO_ENABLED=0.", "p1"},
	}
	for _, tc := range tests {
		var got []string
		for _, b := range blocks(tc.text) {
			k := "p"
			if b.paste {
				k = "P"
			}
			got = append(got, k+string(rune('0'+b.lines)))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: blocks %s, want %s", tc.name, g, tc.want)
		}
	}
}

// The ledger's marker keeps the words around a paste and names the
// entry that recall shows whole; a short paste stays while there is room.
func TestWithMarkers(t *testing.T) {
	text := "Don't crash if the config is missing. Here is the log:\n```\n" + strings.Repeat("2026-11-30T02:00:01Z ERROR no config\n", 20) + "```\nWhat failed?"
	if got, want := withMarkers(text, "D5", false), "Don't crash if the config is missing. Here is the log:\n[22-line paste, recall D5]\nWhat failed?"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	short := "Errors look like this:\n```\nstore: open a.db: %w\n```"
	if got := withMarkers(short, "D2", false); got != short {
		t.Errorf("a short paste shrank with room: %q", got)
	}
	if got := withMarkers(short, "D2", true); got != "Errors look like this:\n[3-line paste, recall D2]" {
		t.Errorf("all: %q", got)
	}
}
