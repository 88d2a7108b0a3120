package handoff

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A block is a run of a user's message: the user's own words (prose) or
// a paste (fenced code, a log, a stack trace, indented code, a file's
// contents), which the ledger shows as a marker with the entry's id.
type block struct {
	text  string // the lines as written, without their final newline
	lines int
	paste bool
}

// Pastes of at most these lines and runes stay whole in the ledger
// while it has room (a rule's example, a command); longer ones are
// always a marker.
const (
	shortPasteLines = 4
	shortPasteRunes = 320
)

func (b block) short() bool {
	return b.lines <= shortPasteLines && utf8.RuneCountInString(b.text) <= shortPasteRunes
}

// blocks splits a message into prose and pastes. A fenced block is one
// paste, fences and all. Other lines are judged one by one (proseLine);
// a prose-looking line between two pasted ones is part of the paste
// (a log's "hint: ..." line), and blank lines between two pastes join
// them.
func blocks(text string) []block {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	kind := make([]int, len(lines)) // 0 blank, 1 prose, 2 paste, 3 fenced
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if fence := fenceOf(t); fence != "" {
			kind[i] = 3
			for i++; i < len(lines); i++ {
				kind[i] = 3
				if strings.HasPrefix(strings.TrimSpace(lines[i]), fence) {
					break
				}
			}
			continue
		}
		switch {
		case t == "":
		case proseLine(lines[i]):
			kind[i] = 1
		default:
			kind[i] = 2
		}
	}
	// A line indented under a pasted one continues it ("  Using cached
	// ..." under "Collecting ..."), and up to three prose-looking lines
	// between pasted ones, that end no sentence, are part of the paste: a
	// log's "hint: ..." line, a race report's "WARNING: DATA RACE".
	for i := 1; i < len(kind); i++ {
		if kind[i] == 1 && prevKind(kind, i) >= 2 && strings.HasPrefix(lines[i], "  ") && !bulletRe().MatchString(strings.TrimSpace(lines[i])) {
			kind[i] = 2
		}
	}
	for i := 1; i < len(kind); i++ {
		if kind[i] != 1 || prevKind(kind, i) != 2 {
			continue
		}
		j, n := i, 0
		for ; j < len(kind) && n < 3 && kind[j] <= 1; j++ {
			if kind[j] == 1 {
				if endsSentence(lines[j]) {
					break
				}
				n++
			}
		}
		if j < len(kind) && kind[j] == 2 {
			for k := i; k < j; k++ {
				if kind[k] == 1 {
					kind[k] = 2
				}
			}
		}
	}
	// A paste is a long run: one or two unfenced lines that are no log
	// are the user's, however many symbols they hold ("Set
	// CGO_ENABLED=0 and GOFLAGS=-mod=vendor.").
	for i := 0; i < len(kind); {
		j, n, logs := i, 0, false
		for ; j < len(kind) && (kind[j] == 2 || kind[j] == 0); j++ {
			if kind[j] == 2 {
				n++
				logs = logs || logLine(strings.TrimSpace(lines[j]))
			}
		}
		if n > 0 && n <= 2 && !logs {
			for k := i; k < j; k++ {
				if kind[k] == 2 {
					kind[k] = 1
				}
			}
		}
		i = max(j, i+1)
	}
	var out []block
	from, last, cls := -1, -1, 0 // the current block's first and last line, its class
	flush := func() {
		if from >= 0 {
			out = append(out, block{text: strings.Join(lines[from:last+1], "\n"), lines: last + 1 - from, paste: cls == 2})
		}
		from = -1
	}
	for i, k := range kind {
		if k == 0 {
			continue
		}
		c := min(k, 2) // fenced or not, a paste
		if from >= 0 && c != cls {
			flush()
		}
		if from < 0 {
			from, cls = i, c
		}
		last = i
	}
	flush()
	return out
}

// fenceOf returns the fence a line opens or closes ("```", "~~~"), or "".
func fenceOf(t string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// prose returns the message's prose lines, pastes left out.
func prose(text string) []string {
	var out []string
	for _, b := range blocks(text) {
		if !b.paste {
			for _, l := range strings.Split(b.text, "\n") {
				if strings.TrimSpace(l) != "" {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// withMarkers is the message with its pastes as markers naming ref: all
// of them, or (all false) only the long ones.
func withMarkers(text, ref string, all bool) string {
	var parts []string
	for _, b := range blocks(text) {
		if b.paste && (all || !b.short()) {
			parts = append(parts, pasteMarker(b, ref))
			continue
		}
		parts = append(parts, b.text)
	}
	return strings.Join(parts, "\n")
}

func pasteMarker(b block, ref string) string {
	return fmt.Sprintf("[%d-line paste, recall %s]", b.lines, ref)
}

// proseLine reports whether a line reads like someone's words rather
// than pasted output: not indented code, not a real log, stack or test
// line, not a row of aligned columns, and words of any script outnumber
// code tokens (paths, calls, flags, addresses) two to one. Markdown
// (headings, bullets, quotes, emphasis, inline code) and emoji count as
// prose.
func proseLine(line string) bool {
	if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
		// Indented: code, unless it is a nested bullet.
		if !bulletRe().MatchString(strings.TrimSpace(line)) {
			return false
		}
	}
	t := strings.TrimSpace(line)
	if t == "" || logLine(t) || codeLineRe().MatchString(t) || strings.Contains(t, "   ") || ruleRe().MatchString(t) {
		return false
	}
	t = inlineCodeRe().ReplaceAllString(emphasis.Replace(bulletRe().ReplaceAllString(t, "")), "x")
	words, code := 0, 0
	for _, tok := range strings.Fields(spaceCJK(t)) {
		tok = strings.Trim(tok, proseEdge)
		switch {
		case tok == "":
		case codeTokenRe().MatchString(tok):
			code++
		case hasLetter(tok):
			words++
		}
	}
	return words > 0 && (words >= 2*code || code == 1)
}

// proseEdge is the punctuation prose puts around its words, ASCII,
// full-width and typographic.
const proseEdge = ".,;:!?'\"()…·、。，；：！？「」『』（）《》〈〉【】〔〕“”‘’«»„‚‹›¡¿"

var (
	bulletRe = lazy(`^(?:#{1,6}\s+|>\s*|[-*+•・]\s+|\d{1,3}[.)、]\s*|[①-⑳]\s*|\[[ xX]\]\s+)+`)
	// logRe matches a line in a real log, stack trace or test output
	// format: a timestamp first, a level in its place, a stack frame, a
	// test runner's line. An all-caps word alone is no log ("NEVER ...").
	logRe = lazy(`^(?:` +
		// timestamps: 2026-11-30T02:00:01, 2026/11/30 02:00, 02:00:01.123, [12:00:01]
		`\[?\d{4}[-/.]\d{2}[-/.]\d{2}(?:[T ]\d{2}:\d{2})?|\[?\d{2}:\d{2}:\d{2}|` +
		// syslog and glog: "Nov 30 02:00:01", "E1130 02:00:01.123"
		`(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} \d{2}:\d{2}|[IWEF]\d{4} \d{2}:\d{2}|` +
		// a level in its place: "[INFO] ...", "ERROR: x.go:3", "level=warn"
		`\[(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|PANIC|SEVERE)\]|` +
		`(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL|PANIC)\s*[:|]\s*\S+[./:]\S|level=|` +
		// stacks and runtimes
		`at [\w$.<>]+\(.*\)$|at .+:\d+:\d+\)?$|File ".+", line \d+|Traceback \(most recent call last\)|goroutine \d+ \[|panic: |thread '[^']*' panicked|##\[(?:error|warning|group|endgroup)\]|` +
		`(?:error|warning)(?:\[\w+\])?: \S+[-_.:/(]|` +
		`\S+\.(?:go|py|js|ts|java|rs|c|cc|cpp|rb|kt|swift|cs):\d+|[\w.]+(?:Error|Exception)(?::|$)|Caused by: |` +
		// test runners, shells, builds, diffs
		`--- (?:FAIL|PASS|SKIP)|=== (?:RUN|PAUSE|CONT)|(?:ok|FAIL|PASS)(?:\s|$)|\$ \S|make(?:\[\d+\])?: |npm (?:ERR|WARN)|` +
		`[A-Z][\w.]+\s+\d+\.\d+s|` +
		// access logs, JSON logs, key=value logs, aligned levels
		`\d{1,3}(?:\.\d{1,3}){3}\s|\{"(?:level|lvl|ts|time|timestamp|msg|severity)":|\w+=\S+(?:\s+\w+=\S+){2,}|` +
		`(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\s+\d|(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\s{2,}` +
		`)`)
	// codeTokenRe: a token of code or output: a path, a call, a flag, a
	// number with units or letters ("0x1a4", "3m12s"), an operator.
	codeTokenRe  = lazy(`[{}\[\]<>=\\|*#$@%^&+~/_]|\pL\.\pL|\d\.\d|^--?\pL|\d\pL|\pL\d|::|\S:\S`)
	inlineCodeRe = lazy("`[^`]+`")
	// ruleRe: a separator row ("=====", "-----"), alone or around a title.
	ruleRe = lazy(`[=\-_*~#]{5,}`)
	// codeLineRe matches a line of code, data or a diff that reads
	// like words: a bracket alone, a JSON member, a diff's header.
	codeLineRe = lazy(`^(?:[{}\[\]()],?;?$|[{\[]"[\w-]+":|"[\w-]+":\s|@@ -\d|\+\+\+ |--- a/|diff --git)`)
)

// logLine reports whether a trimmed line is a log, stack or test line.
func logLine(t string) bool { return logRe().MatchString(t) }

// prevKind is the kind of the last non-blank line before line i.
func prevKind(kind []int, i int) int {
	for i--; i >= 0; i-- {
		if kind[i] != 0 {
			return kind[i]
		}
	}
	return 0
}

// endsSentence reports whether a line ends as prose does.
func endsSentence(line string) bool {
	t := strings.TrimSpace(line)
	r, n := utf8.DecodeLastRuneInString(t)
	before, _ := utf8.DecodeLastRuneInString(t[:len(t)-n])
	return strings.ContainsRune(".!?。！？", r) && unicode.IsLetter(before)
}
