package handoff

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kinds of the user's entries.
const (
	// KindInstruction is a standing instruction: a rule, constraint,
	// preference or decision that holds until the user changes it. The
	// ledger shrinks it last.
	KindInstruction = "instruction"
	// KindRequest is an ordinary request: what to do now. Past the
	// ledger's budget it shrinks before any instruction does.
	KindRequest = "request"
)

// Classify says whether a user's message gives a standing instruction
// or an ordinary request. The verdict only orders what the ledger
// shrinks first past its budget: every message's words are kept while
// there is room. Only prose counts (pastes are passed over), in any
// script, markdown taken off.
//
// A standing marker in any of nine languages ("always", "never", "from
// now on", 必须, immer, всегда, ...) makes an instruction unless the
// message limits itself to the task at hand ("this time"). Otherwise
// the marks of a one-off task (a question, a failure report, an issue's
// title, an act on one thing) are weighed against those of things in
// general ("all", "our", "in English"). Anything else is an
// instruction: keeping a request costs tokens, losing a rule costs the
// user's trust.
func Classify(text string) string {
	k, _ := classify(text)
	return k
}

// classify also says whether the verdict rests on evidence: a marker
// for an instruction, or a request's sign. An instruction it only
// defaulted to shrinks before the marked ones.
func classify(text string) (kind string, sure bool) {
	w := lex()
	if w.Filler.in(strings.TrimSpace(text), "") {
		return KindRequest, true // "hi", "thanks!", "go on"
	}
	ss := sentencesOf(text)
	level, once := markNone, false
	var first *sentence
	for i, s := range ss {
		if w.Temporal.in(s.low, s.lang) {
			// "from now on", "désormais", "从现在起": standing even in a
			// question ("from now on answer briefly, ok?").
			return KindInstruction, true
		}
		once = once || w.OneOff.in(s.low, s.lang)
		if s.question {
			continue
		}
		level = max(level, marks(s.low, s.lang))
		if first == nil && !w.Filler.in(s.text, "") {
			first = &ss[i]
		}
	}
	switch {
	case once:
		// "Don't touch the tests this time, just fix the bug."
		return KindRequest, true
	case level == markStrong:
		return KindInstruction, true
	case level == markNegative:
		// "Don't change the API, just fix the race in the pool" asks for
		// one act; "Don't add dependencies" is a rule.
		if justTask(ss) {
			return KindRequest, true
		}
		return KindInstruction, true
	case first == nil:
		// Only questions, or no prose at all.
		return KindRequest, true
	case labelled(first), reported(first), oneTask(first, level, titleShaped(text)):
		return KindRequest, true
	case level == markHint && atHand(first, false),
		level == markGeneric && marks(w.Quantifier.cut(first.low, first.lang), first.lang) < markGeneric && atHand(first, true) && !standingVerb(first):
		// "remove the prints from app.js, only those", "remove all the
		// console.log calls from app.js", not "put new utils in src/lib/".
		return KindRequest, true
	case level > markNone, listed(text):
		// "Use pnpm, not npm", "Write all comments in English", the
		// items of a rules file.
		return KindInstruction, false
	case ss[len(ss)-1].question, pastedLog(text), asksNow(first):
		// "Export to CSV. How?", "Here is the log: ...", "fix the login
		// bug", "README を更新してください".
		return KindRequest, true
	}
	return KindInstruction, false
}

// Levels of what marks a statement as standing.
const (
	markNone     = iota
	markHint     // "only", "if", "instead", "keep": often a rule's, often not
	markGeneric  // things in general: "all", "any", "no X", "our", "in English"
	markNegative // a negative imperative: "don't", "ne ... pas", "не"
	markStrong   // "always", "never", "must", "every", "before you commit"
)

// sentence is one sentence of a message's prose; low is lowercased,
// with the idioms whose words would read as markers taken out ("never
// mind", "always getting"); lang is the message's language, "" when
// unsure.
type sentence struct {
	text, low, lang string
	question        bool
}

// sentencesOf returns the sentences of a message's prose lines, in any
// script: a line ends one, and so do . ! ? ; followed by a space and
// their full-width forms anywhere. Markdown (headings, bullets, quotes,
// emphasis) is taken off, and a question that only asks for assent
// ("use tabs, ok?") or asks for a rule politely ("could you keep answers
// short?") is a statement.
func sentencesOf(text string) []sentence {
	w := lex()
	lines := prose(text)
	lang := langOf(lines)
	var out []sentence
	for _, line := range lines {
		line = bulletRe().ReplaceAllString(strings.TrimSpace(line), "")
		for _, t := range splitSentences(emphasis.Replace(line)) {
			t = strings.TrimSpace(t)
			if t == "" || !hasLetter(t) {
				continue
			}
			bare := strings.TrimSpace(trailingCodeRe().ReplaceAllString(t, "")) // "what does this do? `^a+$`"
			if bare == "" {
				continue // code alone, after its question
			}
			s := sentence{text: t, low: lower(t), lang: lang}
			s.question = strings.HasSuffix(bare, "?") || strings.HasSuffix(bare, "？") || strings.HasSuffix(bare, "?)") || w.Wh.in(head(s.low), lang)
			if s.question {
				if w.Tag.in(t, lang) {
					s.text = strings.TrimSpace(w.Tag.cut(t, lang))
					s.low, s.question = lower(s.text), false
				} else if w.Polite.in(opening(s.low, lang), lang) && (marks(s.low, lang) >= markNegative || standingVerb(&s) || w.Manner.in(s.low, lang)) {
					// "Could you always answer in French?", "Kannst du
					// die Antworten kurz halten?"
					s.question = false
				}
			}
			if s.question && len(out) > 0 && !out[len(out)-1].question && w.Confirm.in(t, lang) {
				continue // "Use tabs. Got it?"
			}
			out = append(out, s)
		}
	}
	return out
}

// langOf guesses the language of a message's prose lines: by script for
// Chinese, Japanese, Korean and Russian, by function words and letters
// for the five Latin ones; "" when unsure, and the classifier reads every
// language's words. Read alone, the nine languages' lists collide:
// Spanish "todos" in "TODOs", Portuguese "no" (in the) read as English.
func langOf(lines []string) string {
	var han, kana, hangul, cyr, latin int
	score := map[string]int{}
	for _, l := range lines {
		l = inlineCodeRe().ReplaceAllString(l, " ")
		for _, r := range l {
			switch {
			case unicode.Is(unicode.Hangul, r):
				hangul++
			case unicode.In(r, unicode.Hiragana, unicode.Katakana):
				kana++
			case unicode.Is(unicode.Han, r):
				han++
			case unicode.Is(unicode.Cyrillic, r):
				cyr++
			case unicode.Is(unicode.Latin, r):
				latin++
			}
			for _, lang := range lex().Letter.set()[string(r)] {
				score[lang] += 2
			}
		}
		for _, f := range strings.FieldsFunc(strings.ToLower(l), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
			for _, lang := range lex().Function.set()[f] {
				score[lang]++
			}
		}
	}
	switch {
	case hangul > 0 && hangul >= kana:
		return "ko"
	case kana > 0:
		return "ja"
	case han > 0:
		return "zh"
	case cyr > latin:
		return "ru"
	}
	if len(lines) > 0 {
		// The verb a message opens with: "adiciona" is Portuguese.
		low := bare(lower(bulletRe().ReplaceAllString(strings.TrimSpace(lines[0]), "")), "")
		for _, l := range []*wordList{&lex().ActEn, &lex().Act, &lex().StandingVerb} {
			for _, lang := range []string{"en", "de", "fr", "es", "pt"} {
				if m := l.find(low, lang); m != nil && m[0] == 0 {
					score[lang]++
				}
			}
		}
	}
	best, tie := "", false
	for _, lang := range corpusOrder {
		switch n := score[lang]; {
		case n == 0:
		case best == "" || n > score[best]:
			best, tie = lang, false
		case n == score[best]:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// lower is a sentence lowercased, its idioms taken out.
func lower(s string) string { return lex().Idiom.cut(strings.ToLower(s), "") }

// head is a lowercased sentence from its first letter or digit: without
// the quotes, emoji and marks before it ("🚫 no console.log").
func head(low string) string {
	return strings.TrimLeftFunc(low, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) && r != '`' && r != '.' && r != '/' || unicode.IsSymbol(r)
	})
}

// opening is a sentence from its first word that matters: its label
// and openers ("please", "ok", "пожалуйста") taken off.
func opening(low, lang string) string {
	return strings.TrimSpace(lex().Lead.cut(head(unlabel(head(low))), lang))
}

// bare is a sentence's opening less the words that go on from the last
// ("now", "next", "dann") and a polite ask's frame ("can you", "не мог
// бы ты"): from the verb that says what to do.
func bare(low, lang string) string {
	w := lex()
	low = opening(low, lang)
	for range 3 {
		low = strings.TrimSpace(w.Lead.cut(w.FollowUp.cut(low, lang), lang))
		if m := w.Polite.find(low, lang); m != nil && m[0] == 0 {
			low = strings.TrimSpace(low[m[1]:])
		}
	}
	return low
}

// emphasis is markdown's, which would hide a marker ("do **not**").
var emphasis = strings.NewReplacer("**", "", "__", "", "~~", "", "*", "")

func hasLetter(s string) bool { return strings.ContainsFunc(s, unicode.IsLetter) }

// splitSentences splits a line after . ! ? ; followed by a space (or
// the end) and after 。！？； anywhere.
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		end := i + utf8.RuneLen(r)
		switch r {
		case '.', '!', '?', ';':
			if end < len(s) && s[end] != ' ' {
				continue
			}
		case '。', '！', '？', '；':
		default:
			continue
		}
		out = append(out, strings.TrimSpace(s[start:end]))
		start = end
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// sentences returns the statements of a message's prose, as written:
// its sentences less the questions.
func sentences(text string) []string {
	var out []string
	for _, s := range sentencesOf(text) {
		if !s.question {
			out = append(out, s.text)
		}
	}
	return out
}

// marks says how a lowercased statement marks itself as standing.
// Negations alone are no marker: failures are reported with them ("the
// service does not start"); "X, not Y" is one. A failure reported of
// "every request" or "all tests" gives no rule.
func marks(low, lang string) int {
	w := lex()
	if w.Failure.in(low, lang) && !w.Negative.in(bare(low, lang), lang) {
		// "every request times out", not "never ignore a test that
		// times out"
		low = w.Quantifier.cut(low, lang)
	}
	switch {
	case w.Standing.in(low, "") || w.Trigger.in(low, ""):
		return markStrong
	case w.Negative.in(bare(low, lang), lang) && !w.Failure.in(low, lang):
		return markNegative
	case w.Generic.in(low, lang) || w.Manner.in(low, lang) && !w.Translate.in(low, lang):
		// "in English", "auf Deutsch", "用中文", not what to translate.
		return markGeneric
	case w.Hint.in(low, lang) || w.Contrast.in(low, lang):
		return markHint
	}
	return markNone
}

// reported reports whether a statement reports a failure or what the
// user did, and gives no rule: no marker but a condition after the
// failure ("crashes if the config is missing"); a condition first is a
// rule's trigger ("if a test fails, fix it first").
func reported(s *sentence) bool {
	w, low, lang := lex(), s.low, s.lang
	if w.Report.in(low, lang) {
		return true // "I ran make and ...", "ich habe ... ausgeführt"
	}
	f := w.Failure.find(low, lang)
	if f == nil {
		return false
	}
	if c := w.Condition.find(low, lang); c != nil && (c[0] < f[0] || lang == "ja" || lang == "ko") {
		// Japanese and Korean put the condition after the failure:
		// "에러가 나면 로그를 남겨 주세요" is a rule's trigger.
		return false
	}
	rest := w.Quantifier.cut(w.Condition.cut(w.Failure.cut(low, lang), lang), lang)
	return marks(rest, lang) < markGeneric
}

// justTask reports whether a sentence has a clause that asks for just
// one act on one thing ("just fix the race in the worker pool", "ワーカー
// プールの競合だけ直して").
func justTask(ss []sentence) bool {
	for _, s := range ss {
		if s.question {
			continue
		}
		for _, c := range strings.FieldsFunc(s.low, func(r rune) bool { return strings.ContainsRune(",，、;；", r) }) {
			if lex().Just.in(c, s.lang) {
				c = strings.TrimSpace(lex().Just.cut(c, s.lang))
				if asksNow(&sentence{text: c, low: c, lang: s.lang}) {
					return true
				}
			}
		}
	}
	return false
}

// pastedLog reports whether a message holds a pasted log, stack trace or
// test output (a code example in a rule is no sign of a request).
func pastedLog(text string) bool {
	for _, b := range blocks(text) {
		if !b.paste {
			continue
		}
		for _, l := range strings.Split(b.text, "\n") {
			if logLine(strings.TrimSpace(l)) {
				return true
			}
		}
	}
	return false
}

// titleShaped reports whether a message is one line written as an
// issue's title: no bullet, no heading, no full stop.
func titleShaped(text string) bool {
	t := strings.TrimSpace(text)
	if strings.Contains(t, "\n") || bulletRe().MatchString(t) || len(strings.Fields(t)) > 12 || utf8.RuneCountInString(t) > 80 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	return !strings.ContainsRune(".。!！:：;；", r)
}

// oneTask reports whether a statement has what only a one-off task has:
// an issue's title ("Add dark mode"), a follow-up ("now do the same for
// orders"), a softener ("좀"), an ask that is no rule ("can you look at
// why the build is slow"), or an act on a thing pointed at ("refactor
// this function"). level is the message's marks: a generic one turns an
// ask into a rule ("kannst du Kommentare auf Englisch schreiben").
func oneTask(s *sentence, level int, title bool) bool {
	w, lang := lex(), s.lang
	low := opening(s.low, lang)
	if title && titled(low, lang) {
		return true
	}
	if m := w.Infinitive.find(low, lang); title && level == markNone && m != nil && m[0] == 0 && (unspaced(lang) || w.Singular.in(strings.TrimSpace(low[m[1]:]), lang)) {
		return true
	}
	if standingVerb(s) {
		// "now use pnpm", "please keep answers short", but "use the new
		// logger in this file".
		return w.Deictic.in(w.StandingVerb.cut(bare(s.low, lang), lang), lang) && !strings.HasSuffix(low, ":")
	}
	if level < markGeneric && !strongChange(s.low) && (w.FollowUp.in(low, lang) || w.FollowUp.in(head(s.low), lang) || w.Same.in(low, lang)) || w.Softener.in(low, lang) || level == markNone && w.Again.in(low, lang) {
		// Not "comments in English as well": a rule added to the rules;
		// not "теперь можно менять vendor/" ("you may now..."): a rule
		// changed, which must stand to retire the one it changes.
		return true
	}
	if level < markGeneric && (w.Polite.in(low, lang) || w.Ask.in(low, lang)) {
		return true // "Kannst du mal schauen, warum ...", "请帮我..."
	}
	if d := w.Deictic.find(bare(s.low, lang), lang); d != nil {
		// An act on it: "この関数、リファクタリングして", "把这个函数改成
		// 异步的", and in the spaced scripts its verb first, whichever
		// it is ("teile diese Funktion auf").
		b := bare(s.low, lang)
		if cjkAct(b) || w.ActZh.in(b, lang) || !unspaced(lang) && d[0] > 0 && len(strings.Fields(b[:d[0]])) == 1 {
			return true
		}
	}
	v, ok := act(s.low, lang)
	if !ok {
		return false
	}
	o := strings.Fields(v.rest)
	return len(o) == 0 || w.Deictic.in(v.rest, lang) || w.Pronoun.in(v.rest, lang) || w.Object.in(v.rest, lang)
}

// titled reports whether a title-shaped statement is an issue's title:
// a change asked for ("Add dark mode", "Dark Mode hinzufügen",
// "Поддержка путей Windows", "ダークモード対応") or a symptom ("Slow
// startup with large repositories").
func titled(low, lang string) bool {
	w := lex()
	t := strings.TrimRight(low, " )!")
	return w.Title.in(low, lang) || w.TitleEnd.in(strings.SplitN(t, ",", 2)[0], lang) || w.Symptom.in(low, lang)
}

// atHand reports whether a statement asks for an act on a named thing:
// a file, a name in code case or backticks, a line, a version, an
// issue ("remove all the prints from app.js", "bump Go to 1.23"); with
// file set, only a file or a path counts (a rule names a command or a
// name to use: "run `go vet` on all packages").
func atHand(s *sentence, file bool) bool {
	low := opening(s.low, s.lang)
	if !cjkAct(low) && !lex().ActZh.in(low, s.lang) {
		if _, ok := act(s.low, s.lang); !ok {
			return false
		}
	}
	for _, w := range strings.Fields(s.text) {
		if strings.HasSuffix(strings.Trim(w, "`'\".,:;!?()"), "/") {
			continue // a folder is where things go: "coloque os testes em tests/"
		}
		if file && pathRe2().MatchString(w) || !file && artifact(strings.ToLower(w), w) {
			return true
		}
	}
	return lex().Line.in(low, s.lang)
}

// asksNow reports whether a statement asks for one act now: a verb on one
// thing ("fix the login bug", "schreib eine Migration"), a Russian
// perfective ("исправь тест"), a polite ask, a Japanese or Korean ask
// with no topic ("README を更新してください"), a Chinese act. An
// imperative on things in general ("write migrations so ...") is how
// rules are written.
func asksNow(s *sentence) bool {
	w, lang := lex(), s.lang
	low := opening(s.low, lang)
	if standingVerb(s) {
		return false
	}
	if cjkAct(low) || w.ActZh.in(low, lang) {
		return true
	}
	if w.AskEnd.in(tail(low), lang) && (strings.ContainsFunc(low, isKana) && !topicJa(low) || strings.ContainsFunc(low, isHangul) && !topicKo(low)) {
		return true
	}
	v, ok := act(s.low, lang)
	if !ok {
		return false
	}
	if v.lang == "ru" || w.Please.in(s.low, lang) || atHand(s, false) {
		return true
	}
	o := strings.Fields(v.rest)
	if len(o) == 0 {
		return true
	}
	// An act that ends ("remove", "súbelo") is on things at hand.
	finish := w.Finish.in(bare(s.low, lang), lang)
	switch {
	case w.Plural.in(v.rest, lang):
		// "les fonctions publiques" are things in general; "los prints
		// del handler" and "die unbenutzten Imports" to remove are not.
		return finish || w.Singular.in(strings.Join(o[1:], " "), lang) || w.Anchor.in(v.rest, lang)
	case w.Singular.in(v.rest, lang):
		return true // "the login bug", "eine Migration", "le test"
	case v.lang == "en":
		// "tests for the new parser", not "type hints to public
		// functions"; a name as written ("upgrade React"), not one
		// that only says which ("Docker images").
		return w.Anchor.in(v.rest, lang) || properNoun(o[0], s.text) && (len(o) == 1 || !strings.HasSuffix(o[1], "s"))
	}
	return finish
}

func isKana(r rune) bool   { return unicode.In(r, unicode.Hiragana, unicode.Katakana) }
func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// verb is a one-off verb's place in a statement: the language of its
// list ("en", "ru", or "" for the others), and what follows it.
type verb struct{ lang, rest string }

// act finds the one-off verb a lowercased statement opens with, after
// its openers ("please", "ok, now", "can you", "пожалуйста"). An English
// one followed by a noun and a verb is a noun ("Commit messages follow
// ...").
func act(low, lang string) (verb, bool) {
	w := lex()
	low = bare(low, lang)
	for i, l := range []*wordList{&w.ActEn, &w.ActRu, &w.Act} {
		m := l.find(low, lang)
		if m == nil || m[0] != 0 {
			continue
		}
		v := verb{lang: []string{"en", "ru", ""}[i]}
		v.rest = strings.TrimSpace(w.Lead.cut(strings.TrimLeft(low[m[1]:], ",- "), lang))
		if o := strings.Fields(v.rest); v.lang == "en" && len(o) > 1 && !w.Singular.in(v.rest, lang) && w.Finite.in(strings.Join(o[1:], " "), lang) {
			return verb{}, false
		}
		return v, true
	}
	return verb{}, false
}

// cjkAct reports whether a statement in a script without spaces asks for
// an act: an ask ("帮我", "麻烦"), a Japanese or Korean ending of a verb
// that does one thing ("直して", "고쳐 줘").
func cjkAct(low string) bool {
	return lex().Ask.in(low, "") || lex().ActEnd.in(tail(low), "")
}

// topicJa and topicKo report whether a Japanese or Korean statement has
// a topic particle after a noun ("コメントは英語で", "주석은 영어로"): its
// subject is a kind of thing, as rules are written, not one thing to
// change ("README を更新して").
func topicJa(low string) bool {
	for i := strings.Index(low, "は"); i > 0; {
		r, _ := utf8.DecodeLastRuneInString(low[:i])
		if !unicode.Is(unicode.Hiragana, r) || strings.ContainsRune("にでとてら", r) {
			return true
		}
		j := strings.Index(low[i+len("は"):], "は")
		if j < 0 {
			break
		}
		i += len("は") + j
	}
	return false
}

func topicKo(low string) bool {
	for _, w := range strings.Fields(low) {
		for _, p := range []string{"은", "는"} {
			if stem, ok := strings.CutSuffix(w, p); ok && stem != "" && !lex().Adnominal.in(w, "") {
				return true
			}
		}
	}
	return false
}

// tail is a lowercased sentence less the code and punctuation at its
// end, where the Japanese and Korean asks end.
func tail(low string) string {
	return strings.TrimRight(trailingCodeRe().ReplaceAllString(low, ""), " 。.!！:：")
}

// standingVerb reports whether a statement opens with a verb of how to
// behave ("use", "keep", "prefer", "answer", "используй", "使用"), after
// its openers.
func standingVerb(s *sentence) bool { return lex().StandingVerb.in(bare(s.low, s.lang), s.lang) }

// artifact reports whether a word names one thing at hand: a file, a
// name or flag in backticks, an identifier, a version, an issue.
func artifact(low, text string) bool {
	if artifactRe().MatchString(low) {
		return true
	}
	return identRe2().MatchString(strings.Trim(text, ".,:;!?()'\"`"))
}

// properNoun reports whether a lowercased word is written with a capital
// in the text, not first: a tool or product ("upgrade React").
func properNoun(low, text string) bool {
	for i, w := range strings.Fields(text) {
		if i > 0 && strings.ToLower(w) == low {
			r, _ := utf8.DecodeRuneInString(w)
			return unicode.IsUpper(r)
		}
	}
	return false
}

// labelled reports whether a statement is labelled as a request: "Feature
// request: ...", "fix: ...", "修复：...".
func labelled(s *sentence) bool {
	for _, c := range []string{":", "："} {
		if i := strings.Index(s.low, c); i > 0 {
			return lex().Label.in(strings.TrimSpace(head(s.low[:i])), s.lang)
		}
	}
	return false
}

// listed reports whether a message's prose is a list of two items or
// more, as a rules file is written.
func listed(text string) bool {
	n := 0
	for _, l := range prose(text) {
		if t := strings.TrimSpace(l); bulletRe().MatchString(t) && !strings.HasPrefix(t, "#") {
			n++
		}
	}
	return n >= 2
}

// unlabel drops a short label before a colon: "Topic A: ...", "Task 3:
// ...", not words before what they are about ("explain this regex:
// `^a+$`").
func unlabel(s string) string {
	for _, c := range []string{":", "："} {
		if i := strings.Index(s, c); i > 0 && len(strings.Fields(s[:i])) <= 3 && hasLetter(inlineCodeRe().ReplaceAllString(s[i+len(c):], "")) {
			return s[i+len(c):]
		}
	}
	return s
}

var (
	trailingCodeRe = lazy("(?:\\s*`[^`]*`[.:]?)+$")
	// artifactRe: a word that names one thing: code in backticks, a
	// quoted title, a path, a file (@path too: the chat's attachment), a
	// flag, a version, an issue.
	artifactRe = lazy("^[(\"'«„“@]*(?:`[^` ]+`|\"[^\"]*\"?|[\\w.-]*/[\\w./-]*|[\\w-]+\\.[a-z]{1,5}|--?[a-z][\\w-]*|\\d+\\.\\d+(?:\\.\\d+)*|#\\d+)[.,:;!)'\"»“”]*$")
	// pathRe2: a path or a file name, not a flag or a command.
	pathRe2 = lazy("^[(\"'`@]*(?:[\\w.-]*/[\\w./-]*|[\\w-]+\\.[a-z]{1,5})[`\"')]*[.,:;!]?$")
	// identRe2: an identifier as written: camelCase, snake_case.
	identRe2 = lazy(`^(?:[a-z]+[A-Z]\w*|\w+_\w+|[A-Z][a-z]+[A-Z]\w*|README|LICENSE|CHANGELOG|CONTRIBUTING|Makefile|Dockerfile)$`)
)
