package handoff

import (
	"regexp"
	"strings"
	"sync"
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
// script: letters by Unicode category, full-width punctuation and
// curly quotes as punctuation, markdown taken off.
//
// A sentence with a standing marker in any of nine languages (always,
// never, every, must, from now on, 必须, 不要, しないこと, 항상, immer,
// toujours, siempre, sempre, всегда, ...) makes an instruction, unless
// the message limits itself to this once ("this time", "今回"). A
// request takes evidence: all questions, a report of a failure, a pasted
// log, a request verb on a thing at hand ("fix the test in a.go",
// "refactor this function"), a request's label. Anything else is an
// instruction: keeping a request costs tokens, losing a rule costs the
// user's trust. The request-verb list never decides alone.
func Classify(text string) string {
	k, _ := classify(text)
	return k
}

// classify also says whether the verdict rests on evidence: a marker
// for an instruction, or a request's sign. An instruction it only
// defaulted to shrinks before the marked ones.
func classify(text string) (kind string, sure bool) {
	if fillerRe().MatchString(strings.TrimSpace(text)) {
		return KindRequest, true // "hi", "thanks!", "go on"
	}
	ss := sentencesOf(text)
	asks, strong, weak, once := 0, false, false, false
	var first *sentence
	for i, s := range ss {
		low := idiomRe().ReplaceAllString(s.low, " ")
		if temporal(low) {
			// "from now on", "désormais", "从现在起": standing even in a
			// question ("from now on answer briefly, ok?").
			return KindInstruction, true
		}
		once = once || oneOff(low)
		if s.question {
			asks++
			continue
		}
		st, w := standing(low)
		strong, weak = strong || st, weak || w
		if first == nil {
			first = &ss[i]
		}
	}
	switch {
	case once:
		// "Don't touch the tests this time, just fix the bug."
		return KindRequest, true
	case strong:
		return KindInstruction, true
	case first == nil:
		// Only questions, or no prose at all.
		return KindRequest, true
	case labelled(first.low), reported(first.low):
		// "Feature request: ...", "500 error after upgrade", "crashes
		// when the config is missing".
		return KindRequest, true
	case weak, listed(text):
		// "Use pnpm, not npm", "Write all comments in English", the
		// items of a rules file.
		return KindInstruction, false
	case ss[len(ss)-1].question, pastedLog(text), asksNow(first):
		// "Export to CSV. How?", "Here is the log: ...", "fix the test
		// in a.go", "refactor this function".
		return KindRequest, true
	}
	return KindInstruction, false
}

// sentence is one sentence of a message's prose.
type sentence struct {
	text, low string
	question  bool
}

// sentencesOf returns the sentences of a message's prose lines, in any
// script: a line ends one, and so do . ! ? ; followed by a space and
// their full-width forms anywhere. Markdown (headings, bullets, quotes,
// emphasis) is taken off, and a question that only asks for assent
// ("use tabs, ok?") is a statement.
func sentencesOf(text string) []sentence {
	var out []sentence
	for _, line := range prose(text) {
		line = bulletRe().ReplaceAllString(strings.TrimSpace(line), "")
		for _, s := range splitSentences(emphasis.Replace(line)) {
			s = strings.TrimSpace(s)
			if s == "" || !hasLetter(s) {
				continue
			}
			bare := strings.TrimSpace(trailingCodeRe().ReplaceAllString(s, "")) // "what does this do? `^a+$`"
			if bare == "" {
				continue // code alone, after its question
			}
			low := strings.ToLower(s)
			q := strings.HasSuffix(bare, "?") || strings.HasSuffix(bare, "？") || strings.HasSuffix(bare, "?)") || whRe().MatchString(low)
			if q {
				if t := tagRe().ReplaceAllString(s, ""); t != s {
					s, low, q = t, strings.ToLower(t), false
				} else if (standingRe().MatchString(low) || containsAny(low, standingCJK)) && politeRe().MatchString(low) {
					q = false // "Could you always answer in French?"
				}
			}
			if q && len(out) > 0 && !out[len(out)-1].question && confirmRe().MatchString(s) {
				continue // "Use tabs. Got it?"
			}
			out = append(out, sentence{text: s, low: low, question: q})
		}
	}
	return out
}

// emphasis is markdown's, which would hide a marker ("do **not**").
var emphasis = strings.NewReplacer("**", "", "__", "", "~~", "", "*", "")

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

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

// temporal reports whether a lowercased sentence says it holds from now
// on, in any of the nine languages.
func temporal(low string) bool { return temporalRe().MatchString(low) || containsAny(low, temporalCJK) }

// oneOff reports whether a lowercased sentence limits itself to the
// task at hand ("this time", "今回", "cette fois").
func oneOff(low string) bool { return oneOffRe().MatchString(low) || containsAny(low, oneOffCJK) }

// standing reports whether a lowercased sentence has a standing marker
// (strong), or only a weak one ("all", "only", "instead", "if you").
// Negations alone are no marker: failures are reported with them ("the
// service does not start"); "X, not Y" is one.
func standing(low string) (strong, weak bool) {
	if standingRe().MatchString(low) || containsAny(low, standingCJK) || startRe().MatchString(strings.TrimSpace(unlabel(low))) && !failed(low) {
		return true, true
	}
	return false, weakRe().MatchString(low) || containsAny(low, weakCJK) || contrastRe().MatchString(low)
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// failed reports whether a lowercased statement reports a failure: "500
// error after upgrade", "crashes on start", "не работает".
func failed(low string) bool {
	low = idiomRe().ReplaceAllString(low, " ")
	return failureRe().MatchString(low) || containsAny(low, failureCJK)
}

// reported reports whether a statement reports a failure and gives no
// rule: no marker but a condition after the failure ("crashes when the
// config is missing"); a condition first is a rule's trigger ("if a
// test fails, fix it first").
func reported(low string) bool {
	if !failed(low) {
		return false
	}
	low = idiomRe().ReplaceAllString(low, " ")
	f := failureRe().FindStringIndex(low)
	for _, w := range failureCJK {
		if i := strings.Index(low, w); i >= 0 && (f == nil || i < f[0]) {
			f = []int{i, i + len(w)}
		}
	}
	if c := conditionRe().FindStringIndex(low); c != nil && c[0] < f[0] {
		return false
	}
	rest := conditionRe().ReplaceAllString(failureRe().ReplaceAllString(low, " "), " ")
	for _, w := range failureCJK {
		rest = strings.ReplaceAll(rest, w, " ")
	}
	_, weak := standing(rest)
	return !weak
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

// asksNow reports whether a statement opens with a request verb on a
// thing at hand: "add a --verbose flag", "commit it", "update the
// README", "refactorise cette fonction", "帮我...". An imperative on
// things in general ("write migrations so ...", "écris les commentaires
// en anglais", "añade `--json` a los comandos") is how rules are
// written.
func asksNow(s *sentence) bool {
	low := strings.TrimSpace(unlabel(s.low))
	if startsWithAny(low, requestCJK) || endsWithAny(strings.TrimRight(low, "。.!！ "), requestEndCJK) {
		return true
	}
	if startsWithAny(low, []string{"把", "给"}) && strings.ContainsAny(low, "`/") {
		return true // "把 `utils.js` 里...删掉"
	}
	if containsAny(low, deicticCJK) && endsWithAny(strings.TrimRight(low, "。.!！ "), []string{"して", "て", "줘", "주세요", "一下", "吧"}) {
		return true // "この関数、リファクタリングして"
	}
	m := requestVerbRe().FindStringSubmatchIndex(strings.TrimSpace(s.low))
	if m != nil {
		low = strings.TrimSpace(s.low)
	} else if m = requestVerbRe().FindStringSubmatchIndex(low); m == nil {
		return false
	}
	if deictic(low) {
		return true // "refactor this function", "explica esta regex"
	}
	object := strings.Fields(low[m[1]:])
	if len(object) == 0 {
		return true // "continue", "commit"
	}
	if m[2] >= 0 {
		// English: its article says whether the object is one thing.
		switch {
		case thisRe().MatchString(object[0]), artifact(object[0], s.text):
			return true
		case object[0] == "the":
			for _, w := range object[1:min(len(object), 5)] {
				if artifact(w, s.text) {
					return true // "fix the failing test in a_test.go"
				}
			}
		}
		return false
	}
	// Other languages: a path or a file right after the verb ("lee
	// vendor/README.md y resúmelo").
	for _, w := range object[:min(len(object), 2)] {
		if pathRe2().MatchString(w) {
			return true
		}
	}
	return false
}

// artifact reports whether an English word names one thing at hand: a
// path, a file, a name or flag in backticks (a command in backticks is
// how a rule says what to run), an identifier, a version.
func artifact(low, text string) bool {
	if artifactRe().MatchString(low) {
		return true
	}
	// Case is gone from low: find the word in the text as written.
	if i := strings.Index(strings.ToLower(text), low); i >= 0 && i+len(low) <= len(text) {
		return identRe2().MatchString(strings.Trim(text[i:i+len(low)], ".,:;!?()"))
	}
	return false
}

// deictic reports whether a lowercased statement points at a thing at
// hand: "this function", "esta función", "эту функцию", "この関数".
func deictic(low string) bool { return deicticRe().MatchString(low) || containsAny(low, deicticCJK) }

// labelled reports whether a statement is labelled as a request: "Feature
// request: ...", "fix: ...", "修复：...".
func labelled(low string) bool {
	for _, c := range []string{":", "："} {
		if i := strings.Index(low, c); i > 0 {
			return requestLabelRe().MatchString(strings.TrimSpace(low[:i]))
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

// unlabel drops a short label before a colon: "Topic A: ...", "Task 3: ...".
func unlabel(s string) string {
	for _, c := range []string{":", "："} {
		if i := strings.Index(s, c); i > 0 && len(strings.Fields(s[:i])) <= 3 {
			return s[i+len(c):]
		}
	}
	return s
}

func endsWithAny(s string, ws []string) bool {
	for _, w := range ws {
		if strings.HasSuffix(s, w) {
			return true
		}
	}
	return false
}

func startsWithAny(s string, ws []string) bool {
	for _, w := range ws {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// wordsRe builds a case-insensitive pattern that matches one of the
// alternatives as whole words of any script (Go's \b knows only ASCII);
// a hyphen continues a word ("always-on-top").
func wordsRe(alts string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])(?:` + alts + `)(?:$|[^\pL\pN_-])`)
}

var (
	temporalRe = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(`from now on|going forward|henceforth|from here on|from today on|in (?:the )?future|` +
			`ab (?:jetzt|sofort|heute)|künftig|zukünftig|von nun an|in zukunft|désormais|dorénavant|à partir de maintenant|à l'avenir|` +
			`a partir de (?:ahora|agora|hoy|hoje)|de (?:ahora|agora) en adelante|de agora em diante|daqui (?:pra|para|em) (?:frente|diante)|en adelante|` +
			`с этого момента|впредь|отныне|в дальнейшем|с сегодняшнего дня`)
	})
	temporalCJK = []string{"从现在起", "从现在开始", "以后", "今后", "今後", "これから", "以後", "앞으로", "이제부터", "지금부터"}
	oneOffRe    = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(`this time|just this once|diesmal|dieses mal|cette fois|esta vez|desta vez|на этот раз`)
	})
	oneOffCJK = []string{"这次", "这一次", "今回", "이번에", "이번만"}
	// idiomRe: phrases whose words would read as markers.
	idiomRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`never ?mind|not (?:just|only) this time|(?:always|never|every) \pL+ing\b|(?:can|could|may|might|will|would|that|which|to) (?:\pL+ )?fail\pL*`)
	})
	// fillerRe: a message that is only a greeting, thanks or assent.
	fillerRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:hi|hello|hey|thanks|thank you|thx|ok|okay|yes|yep|yeah|no|nope|sure|go on|go ahead|continue|proceed|done|great|nice|cool|lgtm|👍|` +
			`merci|danke|gracias|obrigad[oa]|спасибо|谢谢|好的|ありがとう|はい|감사합니다|네|bonjour|salut|hallo|hola|olá|oi|привет|你好|こんにちは|안녕|weiter|continue|sigue|continua|продолжай|继续|続けて|계속)[\s.!。！]*$`)
	})
	// tagRe: a question tag that asks for assent: "use tabs, ok?".
	tagRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)[,，、]\s*(?:ok(?:ay)?|right|got it|alright|understood|yes|please|pls|d'accord|compris|vale|¿vale|sí|blz|beleza|certo|tá|ja|verstanden|okay|хорошо|ладно|понял|好吗|可以吗|行吗|好不好|いい|いいですか|ね|알겠지|알았지|알겠죠)\s*[?？]\s*$`)
	})
	trailingCodeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?:\\s*`[^`]*`[.:]?)+$") })
	// whRe: a question without its mark ("what does this mean").
	whRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:(?:what|why|how|where|which|who)(?:'s| is| are| does| do| did| can| should| would)|warum|wieso|weshalb|pourquoi|por qué|почему|зачем|为什么|怎么|なぜ|どうして|왜|어떻게)(?:$|[^\pL])`)
	})
	// politeRe: a question that asks for a rule politely.
	politeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:please,? )?(?:can|could|would|will) you|^(?:kannst|könntest|würdest) du|^(?:peux|pourrais)-tu|^(?:pouvez|pourriez)-vous|^¿?(?:puedes|podrías|podría)|` +
			`^(?:você )?(?:pode|poderia)|^(?:можешь|можете|не мог(?:ла)? бы)|^(?:能不能|可以|能否|请你)|てくれ|てもらえ|ていただけ|줄래|주시겠|줄 수`)
	})
	confirmRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:ok(?:ay)?|right|got it|clear|understood|capisce|d'accord|compris|¿?vale|¿?entendido|entendeu|verstanden|alles klar|понятно|ясно|好吗|明白吗|懂吗|わかった|分かりましたか|알겠지|알겠어)\s*[?？]$`)
	})
	// startRe: a negative imperative, at the start of a sentence.
	startRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:keep|no|não|nunca|ne|n'\pL+|не|ни|nicht|kein\pL*|don'?t|do not)\s`)
	})
	// conditionRe: a condition, which a rule's trigger and a report's
	// circumstance both use.
	conditionRe = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(`if|when|whenever|before|after|wenn|falls|vor|nach|si|quand|lorsque|avant|après|cuando|antes|después|quando|depois|если|когда|перед|после`)
	})
	// contrastRe: "X, not Y", a preference in any language.
	contrastRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)[,;—–]\s*(?:and |but |y |e |et |und |а |но )?(?:not|never|nicht|pas|no|não|не|ni|jamais|nunca)\s`)
	})
	// standingRe: words that make a sentence hold beyond the request it
	// came with, in the languages of spaced scripts.
	standingRe = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(strings.Join([]string{
			// English
			`always|never|by default|at all times|rules?\s*:|(?:new|house|hard|golden|one|my|our) rules?|the rules? (?:is|are)|must(?:n'?t| not)?|should(?:n'?t| not)?|shall`,
			`do(?:n'?t| not)|avoid|prefer(?:ably|red)?|forbidden|prohibited|not allowed|no longer|any ?more|stick to|remember|make sure|every|each|whenever`,
			// German
			`immer|niemals|nie|stets|grundsätzlich|ausschließlich|muss|müssen|musst|müsst|darf nicht|dürfen nicht|soll(?:st|en|te|ten)?|jede[nmrs]?|vermeide[nt]?|bevorzuge[nt]?|verboten`,
			// French
			`toujours|jamais|doi[st]|doivent|devez|devons|il faut|interdit(?:e|s)?|chaque|évite[rz]?|privilégie[rz]?|préfère[rz]?`,
			// Spanish and Portuguese
			`siempre|nunca|jamás|jamais|sempre|debe[ns]?|debemos|hay que|tienes? que|tem que|têm que|deve[ms]?|devemos|prohibid[oa]s?|proibid[oa]s?|cada|evit[ae][ns]?|prefier[ae]n?|prefir[ae]m?`,
			// Russian
			`всегда|никогда|нельзя|должен|должна|должно|должны|обязательно|запрещено|запрещается|кажд\pL*|избега\pL*|предпочит\pL*|следует`,
		}, "|"))
	})
	// weakRe: words that often mark a rule and often do not ("all",
	// "only", "if you"): a statement with one is an instruction, unless
	// it limits itself to this once.
	weakRe = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(strings.Join([]string{
			`ever|no matter|need(?:s)? to|have to|has to|required|mandatory|banned|disallowed|allowed|permitted|may(?: not| only)?|only|just use|instead|rather than|ensure|keep`,
			`all|any|anything|anyone|wherever|everything|everywhere|none|nothing|no\s+\S+|unless|except|without|otherwise|if|when|first|usually|in general|generally`,
			`before|after|we use|we don'?t|our|this (?:project|repo(?:sitory)?|codebase|team)|like (?:this|so)|as follows|for example|e\.g\.|such as`,
			`comme (?:ceci|ça)|par exemple|así|por ejemplo|wie folgt|zum beispiel|z\. ?b\.|assim|por exemplo|вот так|например`,
			`nur|kein(?:e[nmrs]?)?|nichts|darf|dürfen|darfst|alle[nmrs]?|verwende[nt]?|benutze[nt]?|nutze[nt]?|erlaubt|stattdessen|achte|halte|wenn|falls|bevor|vor dem|nach dem|wir`,
			`aucun(?:e)?|rien|faut|autorisé(?:e|s)?|permis|tou(?:s|tes?|t)|utilise[rz]?|uniquement|seulement|sauf|au lieu|ne|n'\pL+|si|quand|lorsque|avant|après|nous`,
			`nada|ningún|ninguna|nenhum(?:a)?|precisa[ms]?|permitid[oa]s?|tod[oa]s?|utiliz[ae]n?|solo|sólo|só|únicamente|unicamente|apenas|somente|en (?:vez|lugar) de|em vez de|excepto|exceto|salvo|cuando|quando|antes|después|depois`,
			`разрешено|только|теперь|все|всё|всех|любо\pL*|используй(?:те)?|использовать|применя\pL*|нужно|необходимо|надо|вместо|кроме|если|когда|перед|после|мы`,
		}, "|"))
	})
	// standingCJK and weakCJK: the same in scripts without spaces,
	// matched anywhere.
	standingCJK = []string{
		"必须", "务必", "一定要", "不要", "不得", "不准", "不许", "禁止", "严禁", "切勿", "请勿", "始终", "总是", "一律", "永远", "从不", "绝不", "每次", "必須", "總是", "不應", "應該", "应该", "应当", "规则", "規則",
		"必ず", "常に", "いつも", "絶対", "しないこと", "しないで", "ないこと", "ないように", "てはいけ", "ではいけ", "てはならない", "ではならない", "すること", "べき", "毎回", "ルール",
		"항상", "반드시", "절대", "하지 마", "마세요", "마십시오", "말 것", "않도록", "금지", "매번", "언제나", "규칙", "할 것",
	}
	weakCJK = []string{
		"不能", "不可", "勿", "别", "所有", "一切", "任何", "全部", "只能", "只用", "仅", "应", "需要", "尽量", "避免", "优先", "默认", "约定", "规范", "统一", "保持", "记住", "注意",
		"使用", "采用", "遵循", "遵守", "请用", "一直", "之前", "如果", "的时候", "每个", "每一", "規範", "如下", "例如", "比如",
		"してください", "ください", "前に", "場合", "とき", "以下のように", "例えば", "のように", "規約", "全て", "すべて", "避け", "優先", "原則", "のみ", "だけ", "常時", "守っ", "使用", "使う", "使って", "統一", "こと。", "ましょう", "ように",
		"모든", "모두", "전에", "경우", "다음과 같이", "예를 들어", "꼭", "해야", "하세요", "하십시오", "주세요", "사용", "지양", "피하", "피해", "우선", "만 사용", "한다", "합니다", "유지", "말아",
	}
	// failureRe: a report of something broken. Words a rule uses of
	// failures in general ("errors", "exceptions") are not in it.
	failureRe = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(`\d{3}[- ]?error|error \d{3}|(?:get|got|getting|see|seeing|throws?|threw|raises?|hit|hitting) (?:an?|the|this|that|same) (?:error|exception|crash|panic)|` +
			`crash(?:es|ed)?(?: on| at| in| when| after| if| with| ao| au| à| al| beim| bei| при|$)|fails|failed|(?:is|are|keeps|started) failing|` +
			`broken|breaks|broke|panics|panicked|hangs|hung|leaks|leaking|memory leak|typo in|not working|doesn'?t work|does not work|stopped working|` +
			`won'?t (?:start|build|compile|run|load)|after (?:the )?upgrad\pL*|doesn'?t (?:persist|save|load|show|start|build|compile)|` +
			`\d{3}-fehler|fehler \d{3}|absturz|stürzt|abgestürzt|funktioniert nicht|geht nicht|kaputt|fehlschlag\pL*|schlägt fehl|` +
			`erreur \d{3}|plante|planté|échoue|n'est pas conservé|ne marche pas|ne fonctionne pas|ne se lance pas|` +
			`error \d{3}|se cae|falla|no funciona|roto|se rompe|erro \d{3}|falha|não funciona|não sobe|quebrou|` +
			`ошибка \d{3}|падает|упал|сломал\pL*|не работает|не запускается|не стартует|сбрасывается`)
	})
	failureCJK = []string{"报错", "崩溃", "不工作", "无法启动", "打不开", "落ちる", "クラッシュ", "保持されない", "動かない", "起動しない", "크래시", "에러가", "오류가", "안 떠", "안 돼"}
	// requestVerbRe: a statement that opens with one may ask for
	// something done now ("fix the test", "arregla el test", "исправь
	// тест"). The first group is English's, whose article then says more.
	requestVerbRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:please,? |pls,? |now,? |then,? |ok,? |okay,? |hmm,? |also,? |looks good,? |lgtm,? |great,? |nice,? |perfect,? |thanks,? |bitte,? |por favor,? |s'il (?:te|vous) plaît,? |пожалуйста,? )?(?:(` +
			`read|summari[sz]e|fix|add|run|show|tell|explain|write|create|count|list|find|look|check|update|remove|delete|implement|refactor|rename|move|make|build|test|open|review|help|` +
			`go|try|print|grep|search|debug|investigate|diagnose|compare|install|upgrade|bump|tidy|clean|set up|setup|revert|undo|continue|retry|finish|start|stop|` +
			`format|lint|commit|push|merge|rebase|describe|draft|generate|port|convert|split|extract|inline|document|translate|` +
			`paste|see|give|send|deploy|release|measure|profile|benchmark|rewrite|replace|change|edit|modify|set|get|fetch|load|parse|call|analy[sz]e|answer|export|import|support` +
			`)|can you|could you|would you|will you|` +
			`behebe|füge|erkläre?|schreibe?|erstelle|zeige?|prüfe|lies|ändere|entferne|lösche|aktualisiere|schau|mach|baue|teste|starte|führe|implementiere|übersetze|suche|finde|öffne|exportiere|` +
			`corrige[sz]?|ajoute[sz]?|explique[sz]?|écris|écrivez|crée[sz]?|montre[sz]?|lis|lisez|vérifie[sz]?|supprime[sz]?|refactorise[sz]?|mets à jour|regarde[sz]?|lance[sz]?|exécute[sz]?|implémente[sz]?|exporte[sz]?|traduis|cherche[sz]?|trouve[sz]?|ouvre[sz]?|` +
			`arregla|corrige|añade|agrega|explica|escribe|crea|muestra|lee|revisa|elimina|borra|refactoriza|actualiza|mira|ejecuta|implementa|exporta|traduce|busca|encuentra|abre|` +
			`corrija|conserte|adicione|adiciona|explique|escreva|crie|mostre|leia|verifique|remova|apague|refatora|refatore|atualiza|atualize|olha|olhe|roda|rode|executa|traduz|procura|` +
			`исправь|почини|добавь|объясни|напиши|создай|покажи|прочитай|проверь|удали|сделай|запусти|отрефактори|обнови|посмотри|реализуй|экспортируй|переведи|найди|открой` +
			`)(?:$|[^\pL\pN_])`)
	})
	// thisRe: an English object that is one thing: "the", "a", "it".
	thisRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:this|that|these|those|it|its|them|my|a|an|again|up|back|me|us)[,.;:!]?$`)
	})
	// artifactRe: a word that names one thing: code in backticks, a
	// path, a file, a flag, a version.
	artifactRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("^[(\"']*(?:`[^` ]+`|\"[^\"]*\"?|[\\w.-]*/[\\w./-]*|[\\w-]+\\.[a-z]{1,5}|--?[a-z][\\w-]*|\\d+\\.\\d+(?:\\.\\d+)+)[.,:;!)'\"]*$")
	})
	// pathRe2: a path or a file name, not a flag or a command.
	pathRe2 = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("^[(\"'`]*(?:[\\w.-]*/[\\w./-]*|[\\w-]+\\.[a-z]{1,5})[`\"')]*[.,:;!]?$")
	})
	// identRe2: an identifier as written: camelCase, snake_case.
	identRe2 = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[a-z]+[A-Z]\w*|\w+_\w+|[A-Z][a-z]+[A-Z]\w*|README|LICENSE|CHANGELOG|CONTRIBUTING|Makefile|Dockerfile)$`)
	})
	deicticRe = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(`(?:this|that|these|those|este|esta|estos|estas|ese|esa|esse|essa|nesse|nessa|neste|nesta|ce|cet|cette|ces|dies\pL*|diese\pL*|эт\pL*)\s+(?:\pL+\s+)?` +
			`(?:func\pL*|fonc\pL*|funk\pL*|função|функц\pL*|file|fich\pL*|datei|arquivo|archivo|файл\pL*|tests?|testes?|тест\pL*|bugs?|баг\pL*|error|erreur|fehler|erro|ошибк\pL*|` +
			`logs?|лог\pL*|regex\pL*|regul\pL*|регуляр\pL*|ausdruck|code|código|код\pL*|component\pL*|компонент\pL*|commit|коммит\pL*|diff|pr|query|requête|consulta|запрос\pL*|script|скрипт\pL*|page|página|seite|страниц\pL*|method|méthode|methode|método|метод\pL*|class|classe|klasse|clase|класс\pL*)`)
	})
	deicticCJK = []string{"这个函数", "这个文件", "这个测试", "这个错误", "这段代码", "这个正则", "这个bug", "这个 bug", "この関数", "このファイル", "このテスト", "このエラー", "このコード", "この正規表現",
		"이 함수", "이 파일", "이 테스트", "이 에러", "이 오류", "이 로그", "이 코드", "이 정규식"}
	// requestCJK: openings that ask for something for the user now, and
	// endings of the common Japanese and Korean asks.
	requestCJK    = []string{"帮我", "请帮", "帮忙", "给我", "麻烦"}
	requestEndCJK = []string{"追加して", "削除して", "修正して", "直して", "作って", "書いて", "変更して", "見て", "봐 줘", "봐줘", "고쳐 줘", "고쳐줘", "추가해 줘", "추가해줘"}
	// requestLabelRe: labels of a request ("Feature request:", "fix:").
	requestLabelRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:feature request|bug(?: report)?|question|fix|feat|chore|` +
			`fehler|frage|demande|pregunta|petición|pedido|pergunta|баг|вопрос|修复|问题|需求|修正|不具合|要望|수정|버그|요청)(?:\(.*\))?$`)
	})
)
