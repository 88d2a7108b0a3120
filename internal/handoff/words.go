package handoff

import (
	_ "embed"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// wordsTxt holds the word lists the classifier and supersession read, by
// list and language; its header says how a list matches.
//
//go:embed words.txt
var wordsTxt string

// wordList is one list of words.txt, compiled: a pattern per language,
// and for all of them one for the languages that space their words and
// one for those that do not (zh, ja, ko, whose words match anywhere).
type wordList struct {
	// pats are a language's patterns: its own, and English's in the
	// scripts that write English words between their own ("README を更新
	// して", "не юзай any"); "" has all of them. Each is compiled at its
	// first use: compiling all of words.txt took 120 ms and 25 MiB of
	// every turn's process, which classifies one message.
	pats map[string][]*lazyRE
	// set is the list's words by word, with the languages that give
	// each, for the lists read as sets rather than patterns.
	set func() map[string][]string
}

// lazyRE is a pattern compiled at its first use.
type lazyRE struct {
	src string
	re  func() *regexp.Regexp
}

func newLazyRE(src string) *lazyRE { return &lazyRE{src, lazy(src)} }

// lazy returns src's regexp, compiled at its first use: godwit's start-up
// pays for no package's tables (TestInitStaysSmall).
func lazy(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// in reports whether s holds one of the list's words in language lang
// (see langOf), or in any language when lang is "".
func (w *wordList) in(s, lang string) bool { return w.find(s, lang) != nil }

// find returns the place of the leftmost word of the list in s, or nil.
func (w *wordList) find(s, lang string) []int {
	var best []int
	for _, re := range w.pats[lang] {
		if m := re.re().FindStringIndex(s); m != nil && (best == nil || m[0] < best[0]) {
			best = m
		}
	}
	return best
}

// cut replaces the list's words in s with a space.
func (w *wordList) cut(s, lang string) string {
	for _, re := range w.pats[lang] {
		s = re.re().ReplaceAllString(s, " ")
	}
	return s
}

// corpusOrder is the languages words.txt may name.
var corpusOrder = []string{"en", "zh", "ja", "ko", "de", "fr", "es", "pt", "ru"}

// unspaced reports whether a language's words are matched anywhere.
func unspaced(lang string) bool { return lang == "zh" || lang == "ja" || lang == "ko" }

// Templates of a list's header: the pattern its words go into, for the
// spaced languages and the others. A header may also give its own, with
// %s for the words.
var modes = map[string][2]string{
	"word":  {`(?:^|[^\pL\pN_])(?:%s)(?:$|[^\pL\pN_-])`, `(?:%s)`},
	"start": {`^(?:%s)(?:$|[^\pL\pN_-])`, `^(?:%s)`},
	"end":   {`(?:^|[^\pL\pN_])(?:%s)$`, `(?:%s)$`},
	"whole": {`^(?:%s)[\s.!?。！？]*$`, `^(?:%s)[\s.!?。！？]*$`},
	"raw":   {`(?:%s)`, `(?:%s)`},
}

// lexicon is words.txt: a field for each list, named as its header.
type lexicon struct {
	Filler, Idiom, Temporal, OneOff, Wh, Tag, Confirm, Polite, Lead          wordList
	Standing, Trigger, Negative, Generic, Manner, Translate, Hint            wordList
	Contrast, Quantifier, Failure, Condition, Report, Label                  wordList
	Title, TitleEnd, Symptom, Infinitive, FollowUp, Same, Again, Softener    wordList
	Ask, AskEnd                                                              wordList
	Finish, Act, ActEn, ActRu, ActZh, ActEnd, StandingVerb, Finite, Pronoun  wordList
	Object, Line, Just, Please, Singular, Plural, Anchor, Deictic, Adnominal wordList
	StrongChange, WeakChange, Additive, Prohibit, Permit, Instead, Rule      wordList
	Weaken, AboutRules, Stop, Function, Letter                               wordList
	VerbWrite, VerbRead, VerbRun, VerbUse, VerbStyle, VerbTalk, VerbTest     wordList
}

var lex = sync.OnceValue(func() *lexicon {
	l, err := parseLexicon(wordsTxt)
	if err != nil {
		panic(err) // words.txt is part of the program; its test fails first
	}
	return l
})

// parseLexicon reads words.txt: "== name mode" opens a list, "lang:
// pattern" lines give its words (several lines of a language are joined
// with |; "all" is every language's), and # starts a comment line.
// Patterns are RE2, matched case-insensitively.
func parseLexicon(text string) (*lexicon, error) {
	l := &lexicon{}
	v := reflect.ValueOf(l).Elem()
	type list struct {
		mode  string
		words map[string][]string
	}
	var names []string
	lists := map[string]*list{}
	var cur *list
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "== "):
			name, mode, _ := strings.Cut(strings.TrimSpace(line[3:]), " ")
			mode = strings.TrimSpace(mode)
			if _, ok := modes[mode]; !ok && !strings.Contains(mode, "%s") {
				return nil, fmt.Errorf("words.txt:%d: list %s: no mode %q", i+1, name, mode)
			}
			if lists[name] != nil {
				return nil, fmt.Errorf("words.txt:%d: list %s twice", i+1, name)
			}
			cur = &list{mode: mode, words: map[string][]string{}}
			lists[name] = cur
			names = append(names, name)
		default:
			lang, words, ok := strings.Cut(line, ":")
			if !ok || cur == nil || !slices.Contains(corpusOrder, lang) && lang != "all" {
				return nil, fmt.Errorf("words.txt:%d: want \"lang: words\" in a list: %q", i+1, line)
			}
			if w := strings.TrimSpace(words); w != "" {
				cur.words[lang] = append(cur.words[lang], w)
			}
		}
	}
	for _, name := range names {
		f := v.FieldByName(strings.ToUpper(name[:1]) + name[1:])
		if !f.IsValid() {
			return nil, fmt.Errorf("words.txt: list %s is not in the lexicon", name)
		}
		f.Set(reflect.ValueOf(compileList(lists[name].mode, lists[name].words)))
	}
	for i := range v.NumField() {
		if name := v.Type().Field(i).Name; lists[strings.ToLower(name[:1])+name[1:]] == nil {
			return nil, fmt.Errorf("words.txt: no list %s", name)
		}
	}
	return l, nil
}

func compileList(mode string, words map[string][]string) wordList {
	tmpl, ok := modes[mode]
	if !ok {
		tmpl = [2]string{mode, mode}
	}
	pattern := func(t string, alts []string) *lazyRE {
		if len(alts) == 0 {
			return nil
		}
		return newLazyRE(`(?i)` + fmt.Sprintf(t, strings.Join(alts, "|")))
	}
	byLang := map[string]*lazyRE{}
	var spaced, cjk []string
	for _, lang := range corpusOrder {
		alts := append(slices.Clone(words[lang]), words["all"]...)
		t := tmpl[0]
		if unspaced(lang) {
			t, cjk = tmpl[1], appendNew(cjk, alts...)
		} else {
			spaced = appendNew(spaced, alts...)
		}
		byLang[lang] = pattern(t, alts)
	}
	w := wordList{pats: map[string][]*lazyRE{}, set: sync.OnceValue(func() map[string][]string {
		m := map[string][]string{}
		for lang, lines := range words {
			for _, l := range lines {
				for _, word := range strings.Split(l, "|") {
					m[word] = append(m[word], lang)
				}
			}
		}
		return m
	})}
	add := func(lang string, res ...*lazyRE) {
		for _, re := range res {
			if re != nil && !slices.ContainsFunc(w.pats[lang], func(o *lazyRE) bool { return o.src == re.src }) {
				w.pats[lang] = append(w.pats[lang], re)
			}
		}
	}
	for _, lang := range corpusOrder {
		add(lang, byLang[lang])
		if unspaced(lang) || lang == "ru" {
			add(lang, byLang["en"])
		}
	}
	add("", pattern(tmpl[0], spaced), pattern(tmpl[1], cjk))
	return w
}

// appendNew appends the words not in list yet: the "all" words come once
// per language.
func appendNew(list []string, words ...string) []string {
	for _, w := range words {
		if !slices.Contains(list, w) {
			list = append(list, w)
		}
	}
	return list
}
