// Command longsession measures what a long session costs godwit across
// processes: it drives the real binary (the current build, or -godwit
// PATH), one `godwit run` process per user turn, against a local fake
// endpoint speaking the three wire formats, and reports billed and
// cache-discounted input tokens, where and why the cached prefix broke,
// the largest request, resets, whether the user's rules survived, the
// tool output the model saw and the recalls it made (issue 14).
//
//	go run ./bench/longsession [-godwit BIN] [-format chat,responses,anthropic]
//	    [-session a,b,c,d,e,day,day1m,reuse,reuse1m] [-turns N] [-json] [-keep] [-v]
//	    [-turn-timeout 2m] [-max-requests 200] [-read-on] [-working-set N]
//
// Sessions a-e are issue 14's; day and day1m issue 25's realistic day
// (workday.go), reuse and reuse1m the re-use day (reuse.go), each at 200k
// and 1M; these take minutes and run only when named.
//
// How it counts. A request's tokens are the o200k count of the text it
// carries plus a few tokens of framing per item. Its items are taken in
// the provider's cache order with their bytes as godwit sent them
// (Anthropic's cache_control markers aside); the cached prefix is its
// leading items equal to the previous request's, and the cache-discounted
// figure sums tokens less 90% of that prefix. A request that does not
// extend the previous one is a break, attributed with godwit's events.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// options are the bench's inputs.
type options struct {
	godwit   string
	formats  []string
	sessions []string
	turns    int // 0: each session's own
	json     bool
	keep     bool
	verbose  bool
	// limits of one turn process
	wall        time.Duration
	maxRequests int
	// readOn: the model reads every file whole (see spec.readOn)
	readOn bool
	// workingSet, when set, is the working_set every session's config
	// gives.
	workingSet *int
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if err := run(ctx, opts, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "longsession:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("longsession", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var formatList, sessionList string
	fs.StringVar(&o.godwit, "godwit", "", "the godwit binary to measure (default: build ./cmd/godwit of this module)")
	fs.StringVar(&formatList, "format", strings.Join(formats, ","), "wire formats to run")
	fs.StringVar(&sessionList, "session", "a,b,c,d,e", "sessions to run (see issue 14)")
	fs.IntVar(&o.turns, "turns", 0, "cut every session to this many turns (0: the issue's)")
	fs.BoolVar(&o.json, "json", false, "print the figures as JSON")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary homes, workspaces and request bodies, and say where")
	fs.BoolVar(&o.verbose, "v", false, "list every break and every turn process")
	fs.DurationVar(&o.wall, "turn-timeout", 2*time.Minute, "kill a turn process that runs longer")
	fs.IntVar(&o.maxRequests, "max-requests", 200, "kill a turn process that makes more requests")
	workingSet := fs.Int("working-set", -1, "the working_set of godwit's config, in tokens (default: godwit's)")
	fs.BoolVar(&o.readOn, "read-on", false, "the model reads every file whole, following the hints of capped outputs (the issue's sessions read what they are shown)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "longsession: unexpected argument %q; flags only (see -h)\n", fs.Arg(0))
		return o, errors.New("usage")
	}
	var err error
	if o.formats, err = pickList("format", formatList, formats); err != nil {
		fmt.Fprintln(stderr, "longsession:", err)
		return o, err
	}
	var names []string
	for _, s := range specs() {
		names = append(names, s.Name)
	}
	if o.sessions, err = pickList("session", sessionList, names); err != nil {
		fmt.Fprintln(stderr, "longsession:", err)
		return o, err
	}
	if *workingSet >= 0 {
		o.workingSet = workingSet
	}
	return o, nil
}

func pickList(what, list string, known []string) ([]string, error) {
	var out []string
	for _, x := range strings.Split(list, ",") {
		if x = strings.TrimSpace(x); x == "" {
			continue
		}
		if !slices.Contains(known, x) {
			return nil, fmt.Errorf("-%s %s: unknown; pick from %s", what, x, strings.Join(known, ","))
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-%s is empty; pick from %s", what, strings.Join(known, ","))
	}
	return out, nil
}

// run measures and prints the figures.
func run(ctx context.Context, o options, stdout, stderr io.Writer) error {
	all, err := measureAll(ctx, o, stderr)
	if err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	report(stdout, all, o.verbose)
	return nil
}

// measureAll builds (or takes) the binary and runs every chosen session
// on every chosen format, one after the other.
func measureAll(ctx context.Context, o options, stderr io.Writer) ([]figures, error) {
	tmp, err := os.MkdirTemp("", "longsession-")
	if err != nil {
		return nil, err
	}
	if o.keep {
		fmt.Fprintln(stderr, "longsession: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	bin := o.godwit
	if bin == "" {
		fmt.Fprintln(stderr, "longsession: building godwit")
		if bin, err = buildGodwit(ctx, tmp); err != nil {
			return nil, err
		}
	} else if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	tok, err := newCounter()
	if err != nil {
		return nil, err
	}
	var chosen []spec
	for _, s := range specs() {
		if slices.Contains(o.sessions, s.Name) {
			chosen = append(chosen, s)
		}
	}
	return measureSpecs(ctx, o, bin, tmp, tok, chosen, stderr)
}

// measureSpecs runs each session on each chosen format with the binary
// bin, in dir.
func measureSpecs(ctx context.Context, o options, bin, tmp string, tok *counter, chosen []spec, stderr io.Writer) ([]figures, error) {
	ep := startEndpoint(tok, o.maxRequests)
	defer ep.srv.Close()
	corp := newCorpus(tok.count)
	var all []figures
	for _, s := range chosen {
		s = o.apply(s)
		for _, format := range o.formats {
			fmt.Fprintf(stderr, "longsession: session %s on %s: %s\n", s.Name, format, s.About)
			f, err := runSession(ctx, o, bin, filepath.Join(tmp, s.Name+"-"+format), ep, corp, s, format, stderr)
			if err != nil {
				return nil, fmt.Errorf("session %s on %s: %w", s.Name, format, err)
			}
			all = append(all, f)
		}
	}
	dayTargets(all)
	return all, nil
}

// apply applies -turns, -read-on and -working-set.
func (o options) apply(s spec) spec {
	if o.turns > 0 && o.turns < s.Turns {
		s.Turns = o.turns
	}
	s.readOn = o.readOn
	if s.scale == 0 {
		s.scale = 1
	}
	if o.workingSet != nil {
		s.config += fmt.Sprintf("working_set: %d\n", *o.workingSet)
	}
	return s
}

// runSession drives one session on one format, one process per turn.
func runSession(ctx context.Context, o options, bin, dir string, ep *endpoint, corp *corpus, s spec, format string, progress io.Writer) (figures, error) {
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	if err := writeHome(home, ep.srv.URL(), strings.ReplaceAll(s.config, "$WS", ws)); err != nil {
		return figures{}, err
	}
	if s.day {
		s = s.withDay(corp)
	}
	if s.reuse {
		s = s.withReuseDay(corp)
	}
	if err := writeWorkspace(ctx, ws, s.files(corp)); err != nil {
		return figures{}, err
	}
	r := &sessionRun{spec: s, format: format, seen: map[string]bool{}}
	ep.begin(r)
	defer ep.end()
	model := "ls" + format + "/bench-model"
	var turns []turnRun
	sessionID := ""
	for turn := 1; turn <= s.Turns; turn++ {
		if err := ctx.Err(); err != nil {
			return figures{}, err
		}
		proc := turn - 1
		tr := runTurn(ctx, bin, home, ws, model, s.Window, sessionID, s.prompt(corp, turn), slices.Contains(s.ResetAt, turn), s.yes, o.wall,
			func(stop func()) { ep.process(turn, proc, stop) })
		tr.Turn = turn
		turns = append(turns, tr)
		if sessionID == "" && len(tr.sessions) > 0 {
			sessionID = tr.sessions[0]
		}
		if sessionID == "" {
			return figures{}, fmt.Errorf("turn 1 started no session (exit %d): %s", tr.Exit, tr.Error)
		}
		for _, id := range tr.sessions {
			if id != sessionID {
				tr.Error = strings.TrimSpace(tr.Error + " (events of session " + id + ", not " + sessionID + ")")
				turns[len(turns)-1] = tr
			}
		}
		if o.verbose || tr.Killed != "" || tr.Exit != 0 {
			ep.mu.Lock()
			n := r.inProc
			ep.mu.Unlock()
			fmt.Fprintf(progress, "  turn %d: exit %d, %d requests, %.1fs %s %s\n", turn, tr.Exit, n, tr.Seconds, tr.Killed, tr.Error)
		}
	}
	ep.mu.Lock()
	reqs := append([]captured(nil), r.reqs...)
	ep.mu.Unlock()
	if o.keep {
		if err := saveRequests(filepath.Join(dir, "requests"), reqs); err != nil {
			return figures{}, err
		}
	}
	return measure(s, format, reqs, turns), nil
}

// saveRequests writes each request body as received, for -keep.
func saveRequests(dir string, reqs []captured) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, c := range reqs {
		name := fmt.Sprintf("%04d-turn%02d.json", i+1, c.turn)
		if err := os.WriteFile(filepath.Join(dir, name), c.body, 0o644); err != nil {
			return err
		}
	}
	return nil
}
