package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/goldentest"
	"github.com/godwit/godwit/llm/llmtest"
)

const eventsDoc = "../../docs/json-events.md"

// payloadOf names the fields of agent.Event each event type fills
// (docs/json-events.md documents them under the type's section).
var payloadOf = map[string][]string{
	agent.EventSessionStarted: {"session"},
	agent.EventTurnStarted:    {"prompt"},
	agent.EventModelRequest:   {"request"},
	agent.EventModelRetry:     {"retry"},
	agent.EventModelFallback:  {"fallback"},
	agent.EventModelResponse:  {"response"},
	agent.EventToolStarted:    {"tool"},
	agent.EventToolFinished:   {"tool"},
	agent.EventToolProgress:   {"tool", "progress"},
	agent.EventApproval:       {"approval"},
	agent.EventCapped:         {"compacted"},
	agent.EventCompacted:      {"compacted"},
	agent.EventSegmentReset:   {"reset"},
	agent.EventKept:           {"kept"},
	agent.EventSuperseded:     {"superseded"},
	agent.EventLedgerOver:     {"ledger"},
	agent.EventNudge:          {"nudge"},
	agent.EventVerify:         {"verify"},
	agent.EventMCPStatus:      {"mcp"},
	agent.EventNotice:         nil,
	agent.EventError:          nil,
	agent.EventTurnFinished:   {"finished"},
}

// envelope are the fields every event may have.
var envelope = []string{"type", "session_id", "turn", "step", "time", "text"}

// TestJSONEvents pins what `run --json` prints: a real run's events (a
// retry, thinking, a tool call, a denied write, a verify, an MCP server
// that fails, a skill) against a golden file with the volatile values
// normalised, and docs/json-events.md against both that run and every
// field the event types can carry.
func TestJSONEvents(t *testing.T) {
	srv := llmtest.NewTestServer(t,
		llmtest.JSON(529, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`),
		llmtest.ChatReply(llmtest.ChatReasoning("The user wants the file's words."), llmtest.ChatText("Reading it."),
			llmtest.ChatToolCall("call_1", "file_read", `{"path":"hello.txt"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_2", "file_write", `{"path":"notes.md","content":"hi"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(950, 9)),
		llmtest.ChatTextReply("hello.txt says hi. I could not write notes.md: this run is read-only.", 990, 15),
	)
	home, ws := setup(t, srv.URL())
	appendConfig(t, home, "mcp:\n  servers:\n    broken:\n      command: godwit-test-no-such-mcp-server\n")
	for name, body := range map[string]string{
		"hello.txt":                      "hi\n",
		".agents/skills/review/SKILL.md": "---\nname: review\ndescription: Review a change.\n---\nRead the diff first.\n",
	} {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := godwit(t, home, ws, nil, "run", "--json", "--model", "local/m", "--verify", "test -f hello.txt", "what does hello.txt say?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var events []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("stdout line is not JSON: %q", line)
		}
		events = append(events, e)
	}

	var golden strings.Builder
	enc := json.NewEncoder(&golden)
	enc.SetEscapeHTML(false)
	for _, e := range events {
		if err := enc.Encode(normalise(e, "", map[string]string{ws: "<workspace>", home: "<home>"})); err != nil {
			t.Fatal(err)
		}
	}
	// If the stream changed on purpose, update docs/json-events.md too.
	goldentest.Check(t, "json-events.golden", []byte(golden.String()))

	doc := readEventsDoc(t)
	// Every field this run emitted is documented under its event.
	for _, e := range events {
		typ, _ := e["type"].(string)
		sec, ok := doc[typ]
		if !ok {
			t.Errorf("event %s is not documented in %s", typ, eventsDoc)
			continue
		}
		for _, p := range leafPaths(e, "") {
			if !slices.Contains(envelope, p) && !sec[p] {
				t.Errorf("%s: field %s is emitted but not documented", typ, p)
			}
		}
	}
	// Every event type, and every field it can carry, is documented; the
	// document names nothing that does not exist.
	for _, typ := range agent.EventTypes {
		if typ == agent.EventTextDelta || typ == agent.EventThinkingDelta {
			continue // not in the stream
		}
		if _, ok := doc[typ]; !ok {
			t.Errorf("event %s is not documented in %s", typ, eventsDoc)
		}
		if _, ok := payloadOf[typ]; !ok {
			t.Errorf("event %s has no payload in payloadOf (this test)", typ)
		}
	}
	byPayload := map[string][]string{}
	for typ, fields := range payloadOf {
		for _, field := range fields {
			byPayload[field] = append(byPayload[field], typ)
		}
	}
	full := fullEvent(t)
	for field, types := range byPayload {
		if field == "" {
			continue
		}
		for _, p := range leafPaths(map[string]any{field: full[field]}, "") {
			if !slices.ContainsFunc(types, func(typ string) bool { return doc[typ][p] }) {
				t.Errorf("field %s (of %v) is not documented", p, types)
			}
		}
	}
	// What a section documents is a field of one of its payloads.
	for typ, fields := range payloadOf {
		if len(fields) == 0 {
			continue // the envelope only
		}
		all := map[string]bool{}
		for _, field := range fields {
			for _, p := range allPaths(map[string]any{field: full[field]}, "") {
				all[p] = true
			}
		}
		for p := range doc[typ] {
			if !all[p] {
				t.Errorf("%s documents %s, which events do not have", typ, p)
			}
		}
	}
	for _, f := range envelope {
		if !doc["*"][f] {
			t.Errorf("envelope field %s is not documented under Every event", f)
		}
		if _, ok := full[f]; !ok {
			t.Errorf("the document's envelope field %s is not a field of agent.Event", f)
		}
	}
	for typ := range doc {
		if _, ok := payloadOf[typ]; !ok && typ != "*" {
			t.Errorf("%s documents event %s, which does not exist", eventsDoc, typ)
		}
	}
}

// normalise replaces what differs from run to run: times, ids,
// durations, sizes the tokenizer's warm-up changes, and temporary paths.
func normalise(v any, key string, paths map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			// Present or not with the tokenizer's warm-up, or the clock.
			if k == "estimated" || key == "tool" && k == "duration_ms" {
				continue
			}
			out[k] = normalise(val, k, paths)
		}
		return out
	case []any:
		for i := range x {
			x[i] = normalise(x[i], key, paths)
		}
		return x
	case string:
		switch key {
		case "time":
			return "<time>"
		case "session_id":
			return "<session>"
		case "version":
			return "<version>"
		}
		// Longest first: the workspace may sit inside the home's folder.
		keys := make([]string, 0, len(paths))
		for p := range paths {
			keys = append(keys, p)
		}
		sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
		for _, p := range keys {
			x = strings.ReplaceAll(x, p, paths[p])
		}
		return x
	case float64:
		if strings.HasSuffix(key, "_ms") || key == "bytes" || key == "tokens" {
			return 0
		}
	}
	return v
}

// readEventsDoc reads docs/json-events.md: per event type (section
// "## `type`"), the fields its tables name; "*" is Every event.
func readEventsDoc(t *testing.T) map[string]map[string]bool {
	t.Helper()
	b, err := os.ReadFile(eventsDoc)
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile("^## `([a-z._]+)`")
	row := regexp.MustCompile("^\\| `([a-z_.\\[\\]]+)` \\|")
	doc := map[string]map[string]bool{}
	var cur map[string]bool
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## Every event"):
			cur = map[string]bool{}
			doc["*"] = cur
		case head.MatchString(line):
			cur = map[string]bool{}
			doc[head.FindStringSubmatch(line)[1]] = cur
		case strings.HasPrefix(line, "## "):
			cur = nil
		case cur != nil && row.MatchString(line):
			cur[row.FindStringSubmatch(line)[1]] = true
		}
	}
	if doc["error"] != nil && len(doc["error"]) == 0 {
		doc["error"]["text"] = true // the envelope's
	}
	return doc
}

// fullEvent is an agent.Event with every field set, as JSON.
func fullEvent(t *testing.T) map[string]any {
	t.Helper()
	var e agent.Event
	fill(reflect.ValueOf(&e).Elem())
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func fill(v reflect.Value) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Unix(1, 0)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(val)
		m.SetMapIndex(k, val)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Bool:
		v.SetBool(true)
	}
}

// leafPaths lists a JSON value's leaves as dotted paths; objects in
// arrays as path[].field, arrays of plain values as the array's path.
func leafPaths(v any, path string) []string {
	var out []string
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			out = append(out, leafPaths(val, join(k))...)
		}
	case []any:
		for _, item := range x {
			if _, ok := item.(map[string]any); ok {
				out = append(out, leafPaths(item, path+"[]")...)
			} else {
				out = append(out, path)
			}
		}
	default:
		out = append(out, path)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// allPaths is leafPaths with the objects and arrays on the way.
func allPaths(v any, path string) []string {
	out := leafPaths(v, path)
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			if path != "" {
				out = append(out, path)
			}
			for k, val := range x {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(val, p)
			}
		case []any:
			out = append(out, path)
			for _, item := range x {
				walk(item, path+"[]")
			}
		}
	}
	walk(v, path)
	return out
}
