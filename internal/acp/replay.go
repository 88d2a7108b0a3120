package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/tool/plan"
	"github.com/godwit/godwit/llm"
)

// maxReplayOutput bounds the tool output one replayed call shows, as the
// live events do.
const maxReplayOutput = 4 << 10

// replay sends the stored conversation as session/update notifications:
// the user's prompts, the model's thinking, text and tool calls with how
// each ended. Messages the engine added itself (handoffs, nudges, verify
// output) are not the user's words and are left out.
func (s *session) replay(ctx context.Context) error {
	st := s.eng.Store
	turns, err := st.Turns(ctx, s.id)
	if err != nil {
		return fmt.Errorf("acp: replaying session %s: %w", s.id, err)
	}
	prompts := make(map[int64]string, len(turns))
	for _, t := range turns {
		prompts[t.ID] = t.Prompt
	}
	msgs, err := st.Messages(ctx, s.id, -1)
	if err != nil {
		return fmt.Errorf("acp: replaying session %s: %w", s.id, err)
	}
	results := map[string]*llm.ToolResult{}
	for _, m := range msgs {
		for _, p := range m.Message.Parts {
			if p.Kind == llm.PartToolResult && p.ToolResult != nil {
				results[p.ToolResult.CallID] = p.ToolResult
			}
		}
	}
	shown := map[int64]bool{}
	for _, m := range msgs {
		switch m.Message.Role {
		case llm.RoleUser:
			text := m.Message.Text()
			if prompt, ok := prompts[m.TurnID]; ok && !shown[m.TurnID] && text == prompt {
				shown[m.TurnID] = true
				s.srv.notify(s.id, sdk.UpdateUserMessageText(text))
			}
		case llm.RoleAssistant:
			for _, p := range m.Message.Parts {
				s.replayPart(p, results)
			}
		}
	}
	return nil
}

func (s *session) replayPart(p llm.Part, results map[string]*llm.ToolResult) {
	switch p.Kind {
	case llm.PartText:
		if p.Text != "" {
			s.srv.notify(s.id, sdk.UpdateAgentMessageText(p.Text))
		}
	case llm.PartThinking:
		if p.Thinking == nil {
			return
		}
		text := p.Thinking.Text
		if text == "" {
			text = strings.Join(p.Thinking.Summary, "\n\n")
		}
		if text != "" {
			s.srv.notify(s.id, sdk.UpdateAgentThoughtText(text))
		}
	case llm.PartToolCall:
		tc := p.ToolCall
		if tc == nil {
			return
		}
		c := newCall(s.eng.Workspace, tc.ID, tc.Name, llm.ArgsOrEmpty(tc.Args), "", false)
		info := &agent.ToolInfo{CallID: tc.ID, Name: tc.Name, IsError: true, Output: "no result was recorded (the turn was interrupted)"}
		if r := results[tc.ID]; r != nil {
			info.IsError, info.Output = r.IsError, cut(r.Content, maxReplayOutput)
		}
		status := sdk.ToolCallStatusCompleted
		if info.IsError {
			status = sdk.ToolCallStatusFailed
		}
		s.srv.notify(s.id, c.start(status, c.result(info), nil))
		if tc.Name == plan.Name && !info.IsError {
			s.replayPlan(tc.Args)
		}
	}
}

// replayPlan sends the plan a successful plan call set, as the live
// session sent it after the call, and puts it back in the engine's plan
// tool, so the session goes on from it.
func (s *session) replayPlan(args json.RawMessage) {
	var in struct {
		Steps []plan.Step `json:"steps"`
	}
	if json.Unmarshal(llm.ArgsOrEmpty(args), &in) != nil {
		return
	}
	p := s.eng.Plan
	if p == nil {
		p = plan.New()
	}
	if p.Set(in.Steps) != nil { // the call succeeded, so this only guards
		return
	}
	s.srv.notify(s.id, planUpdate(p.Steps()))
}
