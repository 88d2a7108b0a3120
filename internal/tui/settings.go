package tui

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/store"
)

// A session's model and mode: each turn records the ones it ran with
// (session.started); a /model or /mode between turns is recorded as a
// settings event, so that `godwit chat -c` continues with what the chat
// last had, or says plainly where it differs.

// eventSettings is the store event of a /model or /mode switch.
const eventSettings = "chat.settings"

type settings struct {
	Model string `json:"model,omitempty"`
	Mode  string `json:"mode,omitempty"`
}

// record keeps the chat's model and mode with its session, if it has one.
func (c *Controller) record(ctx context.Context) {
	eng, id, err := c.engine()
	if err != nil || id == "" || eng.Store == nil {
		return
	}
	st := settings{Model: eng.Model}
	if m, ok := c.Mode(); ok {
		st.Mode = m.String()
	}
	data, _ := json.Marshal(st)
	_, _ = eng.Store.AppendEvent(context.WithoutCancel(ctx), store.Event{SessionID: id, Type: eventSettings, Data: data})
}

// LastSettings are the model and mode session id last had: its last
// turn's, or a switch recorded after it; "" where nothing says.
func LastSettings(ctx context.Context, st *store.Store, id string) (model, mode string) {
	recs, err := st.Events(ctx, id)
	if err != nil {
		return "", ""
	}
	var last settings
	for _, r := range recs {
		switch r.Type {
		case agent.EventSessionStarted:
			var e agent.Event
			if json.Unmarshal(r.Data, &e) == nil && e.Session != nil {
				last = settings{Model: e.Session.Model, Mode: e.Session.Mode}
			}
		case eventSettings:
			_ = json.Unmarshal(r.Data, &last)
		}
	}
	return last.Model, last.Mode
}

// resumeSettings continues a resumed session with its model and mode,
// where the chat was not told otherwise (keepModel, keepMode), and says
// which it runs with and how that differs from the session's. Auto mode
// is never resumed unasked: it is said instead.
func (c *Controller) resumeSettings(ctx context.Context, keepModel, keepMode bool) string {
	var last settings
	if eng, id, err := c.engine(); err == nil && id != "" {
		last.Model, last.Mode = LastSettings(ctx, eng.Store, id)
	}
	var notes []string
	cur := c.Status()
	if last.Model != "" && last.Model != cur.Model {
		if !keepModel {
			notes = append(notes, fmt.Sprintf("the session last ran on %s, this chat on %s (--model): /model %s goes back", last.Model, cur.Model, last.Model))
		} else if _, err := c.switchModel(ctx, last.Model); err != nil {
			notes = append(notes, fmt.Sprintf("the session last ran on %s, which cannot be used here (%v): this chat runs %s", last.Model, err, cur.Model))
		}
	}
	if m, ok := c.Mode(); ok && last.Mode != "" && last.Mode != m.String() {
		want, _ := parseMode(last.Mode)
		if keepMode && want != policy.Auto {
			_ = c.SetMode(want)
		} else {
			notes = append(notes, fmt.Sprintf("the session last ran in %s mode, this chat is in %s mode: /mode %s or Shift-Tab switches", last.Mode, m, last.Mode))
		}
	}
	st := c.Status()
	note := fmt.Sprintf("resumed session %s on %s, mode %s", st.SessionID, st.Model, st.Mode)
	for _, n := range notes {
		note += "; " + n
	}
	return note
}
