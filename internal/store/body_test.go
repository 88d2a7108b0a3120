package store

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/godwit/godwit/llm"
)

// checkDecode compares decodeMessage with json.Unmarshal on body.
func checkDecode(t *testing.T, name, body string) {
	t.Helper()
	got, gerr := decodeMessage(body)
	var want llm.Message
	werr := json.Unmarshal([]byte(body), &want)
	if (gerr != nil) != (werr != nil) {
		t.Fatalf("%s: error %v, encoding/json's %v\n%s", name, gerr, werr, body)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: decoded\n %#v\nencoding/json:\n %#v\nfrom %s", name, got, want, body)
	}
}

// The message decoder gives what encoding/json gives, for the bodies the
// store writes and for bodies it never writes.
func TestDecodeMessageMatchesJSON(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"plain":         `{"role":"user","parts":[{"kind":"text","text":"hi"}]}`,
		"spaces":        " {\n \"role\" : \"user\" ,\t\"parts\" : [ { \"kind\" : \"text\" , \"text\" : \"hi\" } ] } ",
		"no parts":      `{"role":"user"}`,
		"empty parts":   `{"role":"user","parts":[]}`,
		"null parts":    `{"role":"user","parts":null}`,
		"unknown key":   `{"role":"user","parts":[],"x":1}`,
		"folded key":    `{"Role":"user","parts":[]}`,
		"escapes":       `{"role":"user","parts":[{"kind":"text","text":"a\"b\\c\/d\n\r\t\b\f"}]}`,
		"unicode":       `{"role":"user","parts":[{"kind":"text","text":"\u00e9\u2028\ud83d\ude00\ud800x\u0000"}]}`,
		"utf8":          "{\"role\":\"user\",\"parts\":[{\"kind\":\"text\",\"text\":\"é日😀\"}]}",
		"bad utf8":      "{\"role\":\"user\",\"parts\":[{\"kind\":\"text\",\"text\":\"a\xffb\"}]}",
		"control":       "{\"role\":\"user\",\"parts\":[{\"kind\":\"text\",\"text\":\"a\x01b\"}]}",
		"args":          `{"role":"assistant","parts":[{"kind":"tool_call","tool_call":{"id":"c1","name":"file_read","args":{"path":"a \"b\" }{","n":[1,2,{"x":null}]}}}]}`,
		"args null":     `{"role":"assistant","parts":[{"kind":"tool_call","tool_call":{"id":"c1","name":"plan","args":null}}]}`,
		"args text":     `{"role":"assistant","parts":[{"kind":"tool_call","tool_call":{"id":"c1","name":"x","args":"{bad","args_text":"{bad"}}]}`,
		"args number":   `{"role":"assistant","parts":[{"kind":"tool_call","tool_call":{"id":"c1","name":"x","args":5}}]}`,
		"args broken":   `{"role":"assistant","parts":[{"kind":"tool_call","tool_call":{"id":"c1","name":"x","args":{"a":}}}]}`,
		"result":        `{"role":"tool","parts":[{"kind":"tool_result","tool_result":{"call_id":"c1","name":"file_read","content":"","is_error":true,"untrusted":false}}]}`,
		"thinking":      `{"role":"assistant","parts":[{"kind":"thinking","thinking":{"text":"t","signature":"s","redacted":true,"id":"r1","summary":["a","b"],"details":"[1]","provider":"anthropic"}}]}`,
		"thinking null": `{"role":"assistant","parts":[{"kind":"thinking","thinking":null}]}`,
		"image":         `{"role":"user","parts":[{"kind":"text","text":"see"},{"kind":"image","image":{"media_type":"image/png","data":"iVBORw0KGgp4eA=="}}]}`,
		"image empty":   `{"role":"user","parts":[{"kind":"image","image":{"media_type":"image/gif","data":""}}]}`,
		"image bad b64": `{"role":"user","parts":[{"kind":"image","image":{"media_type":"image/png","data":"iVBO!"}}]}`,
		"image null":    `{"role":"user","parts":[{"kind":"image","image":{"media_type":"image/png","data":null}}]}`,
		"truncated":     `{"role":"user","parts":[{"kind":"text","text":"hi"}`,
		"trailing":      `{"role":"user","parts":[]} x`,
		"not object":    `[1]`,
		"empty":         ``,
	}
	for name, body := range bodies {
		checkDecode(t, name, body)
	}
	// What the store writes is read without encoding/json.
	for _, name := range []string{"plain", "spaces", "escapes", "utf8", "args", "args null", "args text", "result", "image"} {
		if !fast(bodies[name]) {
			t.Errorf("%s: read by encoding/json, not directly", name)
		}
	}
}

func fast(body string) bool {
	d := bodyReader{s: body}
	_, ok := d.message()
	return ok && d.end()
}

func TestDecodeMessageRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 2))
	alphabet := []string{"a", " ", "\n", "\t", "\"", "\\", "/", "<", "&", "\x00", "\x1f", "\x7f", "é", "\u2028", "\xff", "😀", "{", "}", "[", "]", ","}
	str := func() string {
		var b []byte
		for range rng.IntN(10) {
			b = append(b, alphabet[rng.IntN(len(alphabet))]...)
		}
		return string(b)
	}
	args := func() json.RawMessage {
		switch rng.IntN(5) {
		case 0:
			return nil
		case 1:
			return json.RawMessage(str()) // often not JSON: kept in args_text
		case 2:
			return json.RawMessage(`{"path": ` + string(mustMarshal(str())) + `}`)
		default:
			return json.RawMessage(`{"path":` + string(mustMarshal(str())) + `,"n":[1,{"a":null}]}`)
		}
	}
	direct := 0
	for i := range 20000 {
		m := llm.Message{Role: llm.Role(str())}
		for range rng.IntN(4) {
			var p llm.Part
			switch rng.IntN(4) {
			case 0:
				p = llm.Part{Kind: llm.PartText, Text: str()}
			case 1:
				p = llm.Part{Kind: llm.PartThinking, Thinking: &llm.Thinking{Text: str(), Signature: str(), Redacted: rng.IntN(2) == 0, ID: str(), Details: str(), Provider: str()}}
				if rng.IntN(8) == 0 {
					p.Thinking.Summary = []string{str()}
				}
			case 2:
				p = llm.Part{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: str(), Name: str(), Args: args()}}
			default:
				p = llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: str(), Name: str(), Content: str(), IsError: rng.IntN(2) == 0, Untrusted: rng.IntN(2) == 0}}
			}
			m.Parts = append(m.Parts, p)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		checkDecode(t, "random", string(b))
		if fast(string(b)) {
			direct++
		}
		_ = i
	}
	if direct < 20000/4 {
		t.Errorf("only %d of 20000 bodies read directly", direct)
	}
	t.Logf("%d of 20000 bodies read directly", direct)
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func BenchmarkDecodeMessage(b *testing.B) {
	body := `{"role":"assistant","parts":[{"kind":"text","text":"Reading it.\nThen the tests."},{"kind":"tool_call","tool_call":{"id":"call_000899","name":"file_read","args":{"path":"src/f0300.go"}}}]}`
	b.Run("godwit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeMessage(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m llm.Message
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzDecodeMessage: go test ./internal/store -run '^$' -fuzz FuzzDecodeMessage
func FuzzDecodeMessage(f *testing.F) {
	f.Add(`{"role":"user","parts":[{"kind":"text","text":"a\u003cb\n"}]}`)
	f.Add(`{"role":"assistant","parts":[{"kind":"tool_call","tool_call":{"id":"c1","name":"x","args":{"a":[1,"}"]}}}]}`)
	f.Add(`{"role":"tool","parts":[{"kind":"tool_result","tool_result":{"call_id":"c1","content":"","is_error":true}}]}`)
	f.Fuzz(func(t *testing.T, body string) { checkDecode(t, "fuzz", body) })
}
