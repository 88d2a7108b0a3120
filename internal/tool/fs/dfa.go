package fs

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"sync/atomic"
	"unicode/utf8"
)

// lineDFA answers "does this line hold a match of the regexp?" as
// (*regexp.Regexp).Match on the line would: a lazy DFA over the same
// compiled program, one table lookup per ASCII byte. Kept because, where
// no literal narrows the lines, the regexp alone takes 2.6x the CPU of a
// grep over GOROOT/src (2.4 s against 0.9 for [A-Z]{4}[0-9]{4},
// bench/fsgrep).
//
// A state is the set of program counters the NFA would hold between two
// runes, before following the empty-width instructions (^ $ \A \z \b \B),
// plus what those need to know of the rune before: none (the line's
// start), a word character or another. The rune after is the input of
// the transition, so each instruction is decided where the NFA would
// decide it. A line is a whole text to the regexp: \A and ^ hold at its
// start, \z and $ at its end.
//
// A lineDFA is not safe for concurrent use: each search takes one from
// the matcher's pool. It caps its states (maxDFAStates); past the cap it
// starts over, and after too many restarts it tells its caller to use the
// regexp, so no pattern makes it grow without bound or thrash.
type lineDFA struct {
	prog     *syntax.Prog
	anchored bool // every match starts at the line's start (\A or ^)
	// hopeless is shared by a DFA and its clones: once one gives up, the
	// others do too, rather than each building states to the cap again.
	hopeless *atomic.Bool

	states []dfaState
	index  map[string]int32 // state key -> id
	// table[id<<8|b] is what byte b does in state id: a state id, or
	// dfaUnknown (not computed yet), dfaMatch, dfaDead, or, for the bytes
	// that need a look around, dfaNewline, dfaCR or dfaWide (a rune past
	// ASCII starts).
	table    []int32
	restarts int

	// scratch for closure and step
	stack   []uint32
	seen    []uint32 // seen[pc] == gen: pc visited in this closure
	gen     uint32
	closure []uint32
	next    []uint32
	onNext  []uint32 // onNext[pc] == gen: pc already in next
	key     []byte
}

// dfaState is one state: its pcs and the class of the rune before.
type dfaState struct {
	pcs  []uint32
	prev int8 // prevStart, prevWord or prevOther
	// end is whether the line matches if it ends here: dfaUnknown,
	// dfaMatch or dfaDead.
	end int32
	// cr is the state after a "\r" that does not end the line (dfaUnknown
	// until computed).
	cr int32
	// wide holds the transitions on runes past ASCII.
	wide map[rune]int32
}

const (
	prevStart int8 = iota
	prevWord
	prevOther
)

// What a table entry holds when it is not a state. Real states are
// numbered from dfaFirst.
const (
	dfaUnknown int32 = iota // not computed yet
	dfaMatch                // the line matches; stop reading it
	dfaDead                 // no match can start or continue on this line
	dfaNewline              // '\n': the line ends
	dfaCR                   // '\r': ends the line if a '\n' or the buffer's end follows
	dfaWide                 // a byte past ASCII: decode the rune
	dfaFirst
)

// maxDFAStates bounds a DFA's states (each costs 1 KB of table);
// maxDFARestarts bounds how often it may start over.
const (
	maxDFAStates   = 2048
	maxDFARestarts = 2
)

// newRow is the table row of a new state.
var newRow = func() (row [256]int32) {
	row['\n'], row['\r'] = dfaNewline, dfaCR
	for b := utf8.RuneSelf; b < 256; b++ {
		row[b] = dfaWide
	}
	return row
}()

// newLineDFA returns a DFA for expr (as regexp.Compile takes it), or nil
// when expr does not compile (regexp.Compile has said why).
func newLineDFA(expr string) *lineDFA {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	d := &lineDFA{prog: prog, anchored: prog.StartCond()&syntax.EmptyBeginText != 0, hopeless: new(atomic.Bool)}
	d.reset()
	return d
}

// clone returns a DFA for the same program with an empty cache.
func (d *lineDFA) clone() *lineDFA {
	c := &lineDFA{prog: d.prog, anchored: d.anchored, hopeless: d.hopeless}
	c.reset()
	return c
}

func (d *lineDFA) reset() {
	n := len(d.prog.Inst)
	d.states = append(d.states[:0], make([]dfaState, dfaFirst)...)
	d.index = make(map[string]int32)
	d.table = append(d.table[:0], make([]int32, int(dfaFirst)<<8)...)
	if len(d.seen) != n {
		d.seen, d.onNext = make([]uint32, n), make([]uint32, n)
	}
	d.intern([]uint32{uint32(d.prog.Start)}, prevStart, true) // the start state: dfaFirst
}

// gaveUp reports whether the DFA, or a clone, has restarted too often to
// go on.
func (d *lineDFA) gaveUp() bool { return d.hopeless.Load() }

// find returns the first line of buf at or after offset pos (a line's
// start) that holds a match: its start ls and its end le (the offset of
// its '\n', or len(buf)). A line is what lies between newlines, without
// a final '\r', and the regexp sees it as a whole text; a final newline
// does not start an empty line. found is false when no line matches. ok
// is false when the DFA gave up, at the line starting at ls: the caller
// must go on from there with the regexp.
func (d *lineDFA) find(buf []byte, pos int) (ls, le int, found, ok bool) {
	if d.gaveUp() {
		return pos, pos, false, false
	}
	ls = pos
	s := dfaFirst
	for i := pos; i < len(buf); {
		t := d.table[int(s)<<8|int(buf[i])]
		if t >= dfaFirst { // the hot path: a byte inside a line
			s = t
			i++
			continue
		}
		switch t {
		case dfaNewline:
			if d.endsMatch(s) {
				return ls, i, true, true
			}
			i++
			ls, s = i, dfaFirst
			continue
		case dfaCR:
			if i+1 == len(buf) || buf[i+1] == '\n' {
				if d.endsMatch(s) {
					return ls, i + 1, true, true
				}
				i += 2
				ls, s = i, dfaFirst
				continue
			}
			t = d.states[s].cr
			if t == dfaUnknown {
				if t = d.stepAndKeep(s, '\r'); t == dfaUnknown {
					return ls, ls, false, false
				}
			}
			i++
		case dfaWide:
			r, size := utf8.DecodeRune(buf[i:])
			var known bool
			if t, known = d.states[s].wide[r]; !known {
				if t = d.stepAndKeep(s, r); t == dfaUnknown {
					return ls, ls, false, false
				}
			}
			i += size
		case dfaUnknown:
			if t = d.stepAndKeep(s, rune(buf[i])); t == dfaUnknown {
				return ls, ls, false, false
			}
			i++
		}
		switch t {
		case dfaMatch:
			le = len(buf)
			if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
				le = i + j
			}
			return ls, le, true, true
		case dfaDead:
			j := bytes.IndexByte(buf[i:], '\n')
			if j < 0 {
				return ls, len(buf), false, true
			}
			i += j + 1
			ls, s = i, dfaFirst
		default:
			s = t
		}
	}
	if ls < len(buf) && d.endsMatch(s) {
		return ls, len(buf), true, true
	}
	return ls, len(buf), false, true
}

// match reports whether line (no '\n' in it; a final '\r' is part of
// it) holds a match. ok is false when the DFA gave up: the caller must
// ask the regexp.
func (d *lineDFA) match(line []byte) (matched, ok bool) {
	if d.gaveUp() {
		return false, false
	}
	s := dfaFirst
	for i := 0; i < len(line); {
		t := d.table[int(s)<<8|int(line[i])]
		if t >= dfaFirst {
			s = t
			i++
			continue
		}
		switch t {
		case dfaNewline, dfaCR: // inside the line: plain bytes here
			t = dfaUnknown
			if line[i] == '\r' {
				t = d.states[s].cr
			}
			if t == dfaUnknown {
				t = d.stepAndKeep(s, rune(line[i]))
			}
			i++
		case dfaWide:
			r, size := utf8.DecodeRune(line[i:])
			var known bool
			if t, known = d.states[s].wide[r]; !known {
				t = d.stepAndKeep(s, r)
			}
			i += size
		case dfaUnknown:
			t = d.stepAndKeep(s, rune(line[i]))
			i++
		}
		switch t {
		case dfaUnknown:
			return false, false
		case dfaMatch:
			return true, true
		case dfaDead:
			return false, true
		}
		s = t
	}
	return d.endsMatch(s), true
}

// endsMatch reports whether a line that ends in state s matches.
func (d *lineDFA) endsMatch(s int32) bool {
	st := &d.states[s]
	if st.end == dfaUnknown {
		st.end = dfaDead
		if d.follow(s, -1) {
			st.end = dfaMatch
		}
	}
	return st.end == dfaMatch
}

// stepAndKeep is step, keeping the result where find and match look for
// it (unless a restart has forgotten s).
func (d *lineDFA) stepAndKeep(s int32, r rune) int32 {
	epoch := d.restarts
	t := d.step(s, r)
	if t == dfaUnknown || d.restarts != epoch {
		return t
	}
	st := &d.states[s]
	switch {
	case r == '\r':
		st.cr = t
	case r >= utf8.RuneSelf:
		if st.wide == nil {
			st.wide = make(map[rune]int32)
		}
		st.wide[r] = t
	case r != '\n':
		d.table[int(s)<<8|int(r)] = t
	}
	return t
}

// step returns the state after rune r from state s: dfaMatch if the NFA
// matches before r, dfaDead if no thread survives and none can start,
// dfaUnknown if the DFA has given up. At the state cap it starts over:
// the cache is emptied, s with it, and the new state is the first kept.
func (d *lineDFA) step(s int32, r rune) int32 {
	if d.follow(s, r) {
		return dfaMatch
	}
	d.bump()
	d.next = d.next[:0]
	for _, pc := range d.closure {
		in := &d.prog.Inst[pc]
		var add bool
		switch in.Op {
		case syntax.InstRune:
			add = in.MatchRune(r)
		case syntax.InstRune1:
			add = r == in.Rune[0]
		case syntax.InstRuneAny:
			add = true
		case syntax.InstRuneAnyNotNL:
			add = r != '\n'
		}
		if add && d.onNext[in.Out] != d.gen {
			d.onNext[in.Out] = d.gen
			d.next = append(d.next, in.Out)
		}
	}
	if !d.anchored && d.onNext[d.prog.Start] != d.gen {
		d.next = append(d.next, uint32(d.prog.Start))
	}
	if len(d.next) == 0 {
		return dfaDead
	}
	prev := prevOther
	if syntax.IsWordChar(r) {
		prev = prevWord
	}
	if id, ok := d.intern(d.next, prev, len(d.states) < maxDFAStates); ok {
		return id
	}
	// Full: start over with this state alone, or give up.
	d.restarts++
	if d.restarts > maxDFARestarts {
		d.hopeless.Store(true)
		return dfaUnknown
	}
	next := append([]uint32(nil), d.next...)
	d.reset()
	id, _ := d.intern(next, prev, true)
	return id
}

// follow computes in d.closure the pcs of state s that can consume a rune
// at the position before r (-1: the line's end), following the
// empty-width instructions as that position allows, and reports whether
// the NFA matches there.
func (d *lineDFA) follow(s int32, r rune) (matched bool) {
	st := &d.states[s]
	before := rune(-1)
	switch st.prev {
	case prevWord:
		before = 'a'
	case prevOther:
		before = ' '
	}
	flags := syntax.EmptyOpContext(before, r)
	d.bump()
	d.closure = d.closure[:0]
	d.stack = append(d.stack[:0], st.pcs...)
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] == d.gen {
			continue
		}
		d.seen[pc] = d.gen
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			matched = true
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flags == 0 {
				d.stack = append(d.stack, in.Out)
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.closure = append(d.closure, pc)
		}
	}
	return matched
}

// bump starts a new generation of the seen and onNext marks.
func (d *lineDFA) bump() {
	d.gen++
	if d.gen == 0 { // wrapped: old marks would read as current
		clear(d.seen)
		clear(d.onNext)
		d.gen = 1
	}
}

// intern returns the id of the state (pcs, prev), adding it if new and
// add is true (pcs is copied); ok is false for a new state not added.
func (d *lineDFA) intern(pcs []uint32, prev int8, add bool) (id int32, ok bool) {
	// The key is the pcs in order: two sets reached in a different order
	// are one state only if sorted, so sort a copy.
	sorted := append(d.stack[:0], pcs...)
	slices.Sort(sorted)
	d.key = append(d.key[:0], byte(prev))
	for _, pc := range sorted {
		d.key = append(d.key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if id, ok := d.index[string(d.key)]; ok {
		return id, true
	}
	if !add {
		return 0, false
	}
	id = int32(len(d.states))
	d.states = append(d.states, dfaState{pcs: append([]uint32(nil), sorted...), prev: prev})
	d.index[string(d.key)] = id
	d.table = append(d.table, newRow[:]...)
	return id, true
}
