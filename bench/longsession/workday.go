package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"strings"
)

// The realistic day (issue 25), as data: 100 turns, one process each.
// Turn 1 gives the rule, turn 50 changes it, turn 100 asks what holds;
// every other turn reads a file (sizes cycling through daySizes) or,
// every 7th, runs a command printing ~6k tokens; every 5th message also
// pastes a ~400-token CI log. The model answers "ok" to everything,
// handoffs included, once it has what it asked for.
const (
	dayTurns      = 100
	dayChangeTurn = 50
	dayAsk        = "What rules hold now? Quote them."
)

// daySizes are the files' sizes in tokens, in the order the day reads
// them.
var daySizes = []int{1000, 3000, 8000, 2000, 20_000, 5000, 1000, 12_000}

// dayTurn is one turn of the day: what the user types, and the file or
// command it asks for.
type dayTurn struct {
	prompt  string
	file    string // the file the turn reads, with its size
	tokens  int
	command string // the command the turn runs, and the log it prints
	log     string
}

// workday lists the day's turns. scale shrinks the files and logs
// (tests).
func workday(scale float64) []dayTurn {
	size := func(n int) int { return int(float64(n) * scale) }
	turns := make([]dayTurn, dayTurns+1) // from 1
	reads := 0
	for t := 1; t <= dayTurns; t++ {
		d := &turns[t]
		switch {
		case t == 1:
			d.prompt = rule
		case t == dayChangeTurn:
			d.prompt = ruleChange
		case t == dayTurns:
			d.prompt = dayAsk
		case t%7 == 0:
			d.command, d.log, d.tokens = fmt.Sprintf("cat logs/ci-%02d.log", t), fmt.Sprintf("logs/ci-%02d.log", t), size(6000)
			d.prompt = fmt.Sprintf("Run `%s` and tell me what failed.", d.command)
		default:
			d.file, d.tokens = fmt.Sprintf("pkg/f%02d.go", t), size(daySizes[reads%len(daySizes)])
			reads++
			d.prompt = fmt.Sprintf("Read %s and summarise it.", d.file)
		}
		if t%5 == 0 && d.file+d.command != "" {
			d.prompt += " CI also failed; here is the log:\n\n```\n$LOG\n```"
		}
	}
	return turns
}

// withDay gives s the day's prompts and files, generated from seeds (the
// spec's own prompts and files win, for tests).
func (s spec) withDay(c *corpus) spec {
	prompts, files := map[int]string{}, map[string]string{}
	for t, d := range workday(s.scale) {
		switch {
		case d.file != "":
			files[d.file] = c.get(fmt.Sprintf("day/%s/%d", d.file, d.tokens), func() string { return dayCode(c.count, uint64(t), d.tokens) })
		case d.log != "":
			files[d.log] = c.get(fmt.Sprintf("day/%s/%d", d.log, d.tokens), func() string { return ciLog(c.count, uint64(1000+t), d.tokens) })
		}
		if t < 1 || t > s.Turns {
			continue
		}
		prompts[t] = d.prompt
		if strings.Contains(d.prompt, "$LOG") {
			n := int(400 * s.scale)
			log := c.get(fmt.Sprintf("daylog/%d/%d", t, n), func() string { return ciLog(c.count, uint64(2000+t), n) })
			prompts[t] = strings.Replace(d.prompt, "$LOG", log, 1)
		}
	}
	maps.Copy(prompts, s.prompts)
	maps.Copy(files, s.extra)
	s.prompts, s.extra = prompts, files
	return s
}

// dayCode is a Go file of about tokens tokens, counted function by
// function (the sum is within a few tokens of the whole; counting the
// growing file anew took minutes for the day).
func dayCode(count func(string) int, seed uint64, tokens int) string {
	r := rand.New(rand.NewPCG(seed, 0xda7))
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pick(r, nouns))
	for n := count(b.String()); n < tokens; {
		block := strings.Join(codeBlock(r, false), "\n") + "\n"
		n += count(block)
		b.WriteString(block)
	}
	return b.String()
}

var (
	dayReadRe  = regexp.MustCompile(`\bRead (\S+\.go)\b`)
	dayRunRe   = regexp.MustCompile("\\bRun `([^`]+)`")
	dayAgainRe = regexp.MustCompile(`\bLook at (\S+\.go) again\b`)
	funcRe     = regexp.MustCompile(`(?m)^(?:\d+\t)?(func [^\n{]*)`)
)

// dayBrain is the day's model: it reads the file or runs the command the
// request in progress names, then answers "ok"; handoffs and godwit's
// checks get "ok" too. Asked to look at a file again, it recalls the
// page the file's stub names, or answers from the output if it is still
// in view, and quotes the file's first function.
func dayBrain(_ int, entries []entry) (reply, bool) {
	if handoffAsked(entries) {
		return reply{text: "ok"}, true
	}
	at, req := inProgress(entries)
	if at < 0 {
		return reply{text: "ok"}, true
	}
	if m := dayAgainRe.FindStringSubmatch(req); m != nil {
		return lookAgain(entries, m[1]), true
	}
	if m := dayReadRe.FindStringSubmatch(req); m != nil && !answered(entries, at, "file_read", m[1]) {
		return reply{read: m[1]}, true
	}
	if m := dayRunRe.FindStringSubmatch(req); m != nil && !answered(entries, at, "shell_exec", m[1]) {
		args, _ := json.Marshal(map[string]string{"command": m[1]})
		return reply{tool: "shell_exec", args: string(args)}, true
	}
	return reply{text: "ok"}, true
}

// handoffAsked reports whether the request is the handoff call.
func handoffAsked(entries []entry) bool {
	_, last := lastUser(entries)
	return strings.HasPrefix(last, handoffAsk)
}

// lastUser is the index and trimmed text of the newest user-role
// message (-1 when none).
func lastUser(entries []entry) (int, string) {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].role == "user" {
			return i, strings.TrimSpace(entries[i].text)
		}
	}
	return -1, ""
}

// answered reports whether a call of tool on arg (a path or a command)
// made after entry at has its result.
func answered(entries []entry, at int, tool, arg string) bool {
	calls := map[string]bool{}
	for _, e := range entries[at+1:] {
		switch {
		case e.isCall() && e.name == tool && callArg(e.args) == arg:
			calls[e.callID] = true
		case e.role == "tool" && calls[e.callID]:
			return true
		}
	}
	return false
}

func callArg(args string) string {
	var a struct{ Path, Command, Query string }
	_ = json.Unmarshal([]byte(args), &a)
	return a.Path + a.Command + a.Query
}

// lookAgain answers a question about a file read earlier: from an output
// of it in view, else by recalling the page its stub names rather than
// reading the whole file again; it reads the file only when no output of
// it is in view at all.
func lookAgain(entries []entry, file string) reply {
	fn, next := newOutputs(entries).find("file:"+file, funcRe)
	if fn == "" {
		return next
	}
	return reply{text: "Its first function: " + strings.TrimSpace(fn)}
}
