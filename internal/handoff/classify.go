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
// shrinks first past its budget; every message's words are kept while
// there is room. Only prose counts: pastes (code, logs, stack traces)
// are passed over, and so are questions, since a log line saying "must"
// or a question about why something "never" ends gives no instruction.
// A sentence with a standing marker in any of nine languages (always,
// never, every, from now on, must, 必须, 不要, しないこと, 항상,
// immer, toujours, siempre, sempre, всегда, ...) is an instruction; a
// message that is all questions, or asks for something now (a request
// verb or a report of a failure, with no marker) is a request; anything
// else is an instruction, since keeping a request costs tokens and
// losing a rule costs the user's trust.
func Classify(text string) string {
	k, _ := classify(text)
	return k
}

// classify also says whether the verdict rests on a marker: an
// instruction that has one, or a request. An instruction it only
// defaulted to shrinks before the marked ones.
func classify(text string) (kind string, sure bool) {
	ss := sentencesOf(text)
	asks, weak := 0, false
	var first *sentence
	for i, s := range ss {
		if s.question && !politeRule(s.low) {
			asks++
			continue
		}
		strong, w := standing(s.low)
		if strong {
			return KindInstruction, true
		}
		weak = weak || w
		if first == nil {
			first = &ss[i]
		}
	}
	switch {
	case first == nil:
		// No prose, or only questions.
		return KindRequest, true
	case failed(first.low) && !weakOf(failureRe().ReplaceAllString(first.low, " ")):
		// "500 error after the upgrade", "the build no longer passes".
		return KindRequest, true
	case weak:
		// "Write all comments in English", "No emojis in commits".
		return KindInstruction, false
	case asks > 0, hasPaste(text), asksNow(first.low):
		// "Fix the test", "Here is the log: ...", "Export to CSV. How?".
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
// emphasis) is taken off.
func sentencesOf(text string) []sentence {
	var out []sentence
	for _, line := range prose(text) {
		line = bulletRe().ReplaceAllString(strings.TrimSpace(line), "")
		for _, s := range splitSentences(line) {
			s = strings.Trim(s, " *_~")
			if s == "" || !hasLetter(s) {
				continue
			}
			q := strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") || strings.HasSuffix(s, "?)")
			out = append(out, sentence{text: s, low: strings.ToLower(s), question: q})
		}
	}
	return out
}

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

// hasPaste reports whether a message holds a paste.
func hasPaste(text string) bool {
	for _, b := range blocks(text) {
		if b.paste {
			return true
		}
	}
	return false
}

// wordsRe builds a case-insensitive pattern that matches one of the
// alternatives as whole words of any script (Go's \b knows only ASCII).
func wordsRe(alts string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])(?:` + alts + `)(?:$|[^\pL\pN_])`)
}

var (
	// standingRe: words that make a sentence hold beyond the request it
	// came with, in the languages of spaced scripts.
	standingRe = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(strings.Join([]string{
			// English
			`always|never|from now on|going forward|henceforth|from here on|from today|in (?:the )?future|by default|at all times|rules?\s*:|(?:new|house|hard|golden|one|my|our) rules?|the rules? (?:is|are)`,
			`must(?:n'?t| not)?|should(?:n'?t| not)?|shall|do(?:n'?t| not)|avoid|prefer(?:ably|red)?|forbidden|prohibited|not allowed|no longer|any ?more|stick to|remember|make sure|every|each|whenever`,
			// German
			`immer|niemals|nie|stets|grundsätzlich|ausschließlich|muss|müssen|musst|müsst|darf nicht|dürfen nicht|soll(?:st|en|te|ten)?|ab (?:jetzt|sofort|heute)|künftig|zukünftig|von nun an|in zukunft|jede[nmrs]?|vermeide[nt]?|bevorzuge[nt]?|verboten`,
			// French
			`toujours|jamais|ne|n'\pL+|doi[st]|doivent|devez|devons|il faut|interdit(?:e|s)?|désormais|dorénavant|à partir de maintenant|à l'avenir|chaque|évite[rz]?|privilégie[rz]?|préfère[rz]?`,
			// Spanish and Portuguese
			`siempre|nunca|jamás|jamais|sempre|debe[ns]?|debemos|hay que|tienes? que|tem que|têm que|deve[ms]?|devemos|prohibid[oa]s?|proibid[oa]s?|a partir de (?:ahora|agora|hoy|hoje)|de (?:ahora|agora) en adelante|de agora em diante|daqui em diante|en adelante|cada|evit[ae][ns]?|prefier[ae]n?|prefir[ae]m?`,
			// Russian
			`всегда|никогда|нельзя|должен|должна|должно|должны|обязательно|запрещено|запрещается|с этого момента|впредь|отныне|в дальнейшем|кажд\pL*|избега\pL*|предпочит\pL*|следует`,
		}, "|"))
	})
	// weakRe: words that often mark a rule and often do not ("all",
	// "only", "no", "our"): an imperative with one is an instruction, a
	// report of a failure with one is not.
	weakRe = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(strings.Join([]string{
			`ever|no matter|need(?:s)? to|have to|has to|required|mandatory|banned|disallowed|allowed|permitted|may(?: not| only)?`,
			`only|just use|instead|rather than|ensure|keep|all|any|wherever|everything|everywhere|none|nothing|no\s+\pL+|unless|except|without|otherwise|we use|we don'?t|our|this (?:project|repo(?:sitory)?|codebase|team)`,
			`nur|kein(?:e[nmrs]?)?|nicht|nichts|darf|dürfen|darfst|alle[nmrs]?|verwende[nt]?|benutze[nt]?|nutze[nt]?|erlaubt|stattdessen|achte|halte`,
			`pas|plus|aucun(?:e)?|rien|faut|autorisé(?:e|s)?|permis|tou(?:s|tes?|t)|utilise[rz]?|uniquement|seulement|sauf|au lieu`,
			`no|não|nada|ningún|ninguna|nenhum(?:a)?|precisa[ms]?|permitid[oa]s?|tod[oa]s?|us[ae]n?|utiliz[ae]n?|solo|sólo|só|únicamente|unicamente|apenas|somente|en (?:vez|lugar) de|em vez de|excepto|exceto|salvo`,
			`не|ни|разрешено|только|теперь|все|всё|всех|любо\pL*|используй(?:те)?|использовать|применя\pL*|правил\pL*|нужно|необходимо|надо|вместо|кроме`,
		}, "|"))
	})
	// standingCJK and weakCJK: the same in scripts without spaces,
	// matched anywhere.
	standingCJK = []string{
		"必须", "务必", "一定要", "不要", "不得", "不准", "不许", "禁止", "严禁", "切勿", "请勿", "始终", "总是", "一律", "永远", "从不", "绝不", "每次", "以后", "今后",
		"从现在起", "从现在开始", "必須", "總是", "不應", "應該", "应该", "应当", "规则", "規則",
		"必ず", "常に", "いつも", "絶対", "しないこと", "しないで", "ないこと", "ないように", "てはいけ", "ではいけ", "てはならない", "ではならない", "すること", "べき", "以後", "今後", "これから", "毎回", "ルール",
		"항상", "반드시", "절대", "하지 마", "마세요", "마십시오", "말 것", "않도록", "금지", "매번", "언제나", "앞으로", "이제부터", "규칙", "할 것",
	}
	weakCJK = []string{
		"不能", "不可", "勿", "别", "所有", "一切", "任何", "全部", "只能", "只用", "仅", "应", "需要", "尽量", "避免", "优先", "默认", "约定", "规范", "统一", "保持", "记住", "注意",
		"使用", "采用", "遵循", "遵守", "请用", "一直", "每个", "每一", "規範", "所有", "避免",
		"してください", "ください", "規約", "全て", "すべて", "避け", "優先", "原則", "のみ", "だけ", "常時", "守っ", "使用", "使う", "使って", "統一", "こと。", "ましょう", "ように",
		"모든", "꼭", "해야", "하세요", "하십시오", "사용", "지양", "피하", "피해", "우선", "만 사용", "한다", "합니다", "유지", "말아",
	}
)

// standing reports whether a lowercased sentence has a standing marker
// (strong), or only a weak one.
func standing(low string) (strong, weak bool) {
	if standingRe().MatchString(low) || containsAny(low, standingCJK) || strings.HasPrefix(strings.TrimSpace(unlabel(low)), "keep ") {
		return true, true
	}
	return false, weakOf(low)
}

func weakOf(low string) bool { return weakRe().MatchString(low) || containsAny(low, weakCJK) }

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// politeRule reports whether a question is a rule asked politely: "Can
// you always answer in French from now on?".
func politeRule(low string) bool { return politeRe().MatchString(low) }

var politeRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:please,? )?(?:can|could|would|will) you (?:please )?(?:always|never|from now on|make sure|remember)`)
})

// asksNow reports whether a lowercased statement opens with a request
// verb: "fix the test", "arregla el test", "исправь тест", "帮我...".
func asksNow(low string) bool {
	low = strings.TrimSpace(unlabel(low))
	if requestVerbRe().MatchString(low) {
		return true
	}
	for _, w := range requestCJK {
		if strings.HasPrefix(low, w) {
			return true
		}
	}
	return false
}

// failed reports whether a lowercased statement reports a failure.
func failed(low string) bool { return failureRe().MatchString(low) || containsAny(low, failureCJK) }

// unlabel drops a short label before a colon: "Topic A: ...", "Task 3: ...".
func unlabel(s string) string {
	for _, c := range []string{":", "："} {
		if i := strings.Index(s, c); i > 0 && len(strings.Fields(s[:i])) <= 3 {
			return s[i+len(c):]
		}
	}
	return s
}

var (
	// requestVerbRe: a statement that opens with one asks for something
	// done now ("fix the test", "arregla el test", "исправь тест").
	requestVerbRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:please,? |pls,? |now,? |then,? |ok,? |okay,? |bitte,? |por favor,? |s'il (?:te|vous) plaît,? |пожалуйста,? )?(?:` +
			`read|summari[sz]e|fix|add|run|show|tell|explain|write|create|count|list|find|look|check|update|remove|delete|implement|refactor|rename|move|make|build|test|open|review|help|` +
			`what|why|how|where|when|which|who|is|are|does|do|did|can|could|would|go|try|print|grep|search|debug|investigate|diagnose|compare|install|upgrade|bump|tidy|clean|` +
			`format|lint|commit|push|merge|rebase|revert|undo|continue|retry|finish|start|stop|describe|draft|generate|port|convert|split|extract|inline|document|translate|` +
			`paste|here|see|let|give|send|deploy|release|measure|profile|benchmark|rewrite|replace|change|edit|modify|set|get|fetch|load|parse|call|analy[sz]e|answer|` +
			`thanks|thank|yes|yeah|yep|nope|sure|hi|hello|hey|` +
			`behebe|füge|erkläre|schreibe?|erstelle|zeige?|prüfe|lies|ändere|entferne|lösche|warum|wie|was|wo|wann|kannst|könntest|` +
			`corrige[sz]?|ajoute[sz]?|explique[sz]?|écris|écrivez|crée[sz]?|montre[sz]?|lis|lisez|vérifie[sz]?|supprime[sz]?|pourquoi|comment|quoi|où|peux|pouvez|` +
			`arregla|corrige|añade|agrega|explica|escribe|crea|muestra|lee|revisa|elimina|borra|por qué|cómo|qué|dónde|puedes|podrías|` +
			`corrija|conserte|adicione|explique|escreva|crie|mostre|leia|verifique|remova|apague|por que|como|onde|pode|poderia|` +
			`исправь|почини|добавь|объясни|напиши|создай|покажи|прочитай|проверь|удали|сделай|запусти|почему|как|что|где|можешь|можете` +
			`)(?:$|[^\pL\pN_])`)
	})
	// failureRe: a report of something broken.
	failureRe = sync.OnceValue(func() *regexp.Regexp {
		return wordsRe(`errors?|crash(?:es|ed|ing)?|fail(?:s|ed|ing|ure)?|broken|breaks|bug|regression|exception|panics?|hangs|not working|doesn'?t work|does not work|stopped working|` +
			`won'?t (?:start|build|compile|run|load)|can'?t|cannot|after (?:the )?upgrad\pL*|` +
			`fehler|stürzt|abst[üu]rz\pL*|kaputt|funktioniert nicht|geht nicht|erreur|plante|échoue|bogue|ne marche pas|ne fonctionne pas|` +
			`falla|fallo|se cae|roto|no funciona|erro|falha|quebrad[oa]|não funciona|ошибк\pL*|пада\pL*|сломал\pL*|не работает|не запускается`)
	})
	requestCJK = []string{"帮我", "请帮", "帮忙", "修复", "添加", "实现", "解释", "看看", "查看", "运行", "写一个", "创建", "给我", "为什么", "怎么", "如何",
		"修正して", "追加して", "教えて", "説明して", "作成して", "見て", "なぜ", "どうして",
		"고쳐", "추가해", "알려", "설명해", "만들어", "왜", "어떻게"}
	failureCJK = []string{"报错", "错误", "崩溃", "失败", "异常", "エラー", "落ちる", "失敗", "クラッシュ", "에러", "오류", "실패", "버그"}
)

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
