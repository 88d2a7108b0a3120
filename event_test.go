package godwit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/store"
)

// TestEventFieldsAreNameable: every type an Event reaches is a public
// package's, so a caller can name each field (the engine's events are
// the same type: it has no field the SDK lacks).
func TestEventFieldsAreNameable(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		if p := typ.PkgPath(); strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") {
			t.Errorf("an Event reaches %s, which a caller cannot name", typ)
		}
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(typ.Elem())
		case reflect.Struct:
			for i := range typ.NumField() {
				if typ.Field(i).IsExported() {
					walk(typ.Field(i).Type)
				}
			}
		}
	}
	walk(reflect.TypeFor[Event]())
	if reflect.TypeFor[Event]() != reflect.TypeFor[agent.Event]() || len(seen) < 20 {
		t.Errorf("Event is not the engine's event, or the walk missed its payloads (%d types)", len(seen))
	}
}

// fill sets every exported field reachable from v to a value of its own.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(int64(*n), 0).UTC()))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(fmt.Sprint(*n)))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), n)
	case reflect.String:
		v.SetString(fmt.Sprint("s", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	default:
		panic("fill: no value for " + v.Type().String())
	}
}

// TestNamesAreTheEngines: the SDK's event types, mail states and modes
// name what the engine's do.
func TestNamesAreTheEngines(t *testing.T) {
	for got, want := range map[string]string{
		EventSessionStarted: agent.EventSessionStarted, EventTurnStarted: agent.EventTurnStarted,
		EventTextDelta: agent.EventTextDelta, EventToolStarted: agent.EventToolStarted,
		EventToolFinished: agent.EventToolFinished, EventApproval: agent.EventApproval,
		EventError: agent.EventError, EventTurnFinished: agent.EventTurnFinished,
		string(MailQueued): string(store.MailQueued), string(MailDelivered): string(store.MailDelivered),
		string(MailAnswered): string(store.MailAnswered), string(MailFailed): string(store.MailFailed),
		string(MailExpired): string(store.MailExpired),
	} {
		if got != want {
			t.Errorf("%q names the engine's %q", got, want)
		}
	}
	for m, want := range map[Mode]policy.Mode{ReadOnly: policy.ReadOnly, Ask: policy.Ask, Auto: policy.Auto, Mode(7): policy.ReadOnly} {
		if got := m.policy(); got != want {
			t.Errorf("Mode %d is the policy's %v, want %v", m, got, want)
		}
	}
}

// TestPrompterIsAsked: the policy's question reaches the SDK's Prompter
// whole, and its choice comes back as the policy's.
func TestPrompterIsAsked(t *testing.T) {
	q := policy.Question{Tool: "shell_exec", Summary: "run: rm x", Preview: "rm x", Reasons: []string{"deletes"}, Always: []string{"rm *"}}
	for choice, want := range map[Choice]policy.Choice{Deny: policy.No, Allow: policy.Yes, AllowAlways: policy.Always} {
		var asked Question
		p := asker{promptFunc(func(_ context.Context, got Question) (Answer, error) {
			asked = got
			return Answer{Choice: choice, Note: "why"}, nil
		})}
		a, err := p.Ask(context.Background(), q)
		if err != nil || a != (policy.Answer{Choice: want, Note: "why"}) {
			t.Errorf("choice %d: answer %+v, %v; want %v", choice, a, err, want)
		}
		if !reflect.DeepEqual(asked, Question{Tool: q.Tool, Summary: q.Summary, Preview: q.Preview, Reasons: q.Reasons, Always: q.Always}) {
			t.Errorf("asked %+v, want %+v", asked, q)
		}
	}
}

type promptFunc func(context.Context, Question) (Answer, error)

func (f promptFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

// TestRecordsAreTheEngines: a Message, Receipt, Result and Question
// carry each field of the engine's of the same name, and leave out only
// the store's row ids and what the SDK cannot ask for (a verify command,
// a refused call offered to allow once).
func TestRecordsAreTheEngines(t *testing.T) {
	var m store.Mail
	var r store.Receipt
	var res agent.Result
	var q policy.Question
	n := 0
	for _, v := range []any{&m, &r, &res, &q} {
		fill(reflect.ValueOf(v).Elem(), &n)
	}
	var asked Question
	asker{promptFunc(func(_ context.Context, got Question) (Answer, error) {
		asked = got
		return Answer{}, nil
	})}.Ask(context.Background(), q)
	for _, c := range []struct {
		engine, sdk any
		left        string
	}{{m, message(m), "TurnID"}, {r, receipt(r), "TurnID"}, {res, result(res), "Verified"}, {q, asked, "ReadOnly"}} {
		ev, sv := reflect.ValueOf(c.engine), reflect.ValueOf(c.sdk)
		for i := range ev.NumField() {
			name := ev.Type().Field(i).Name
			f := sv.FieldByName(name)
			switch {
			case name == c.left:
			case !f.IsValid():
				t.Errorf("%T has no %s", c.sdk, name)
			case fmt.Sprint(f) != fmt.Sprint(ev.Field(i)):
				t.Errorf("%T.%s = %v, want %v", c.sdk, name, f, ev.Field(i))
			}
		}
	}
}
