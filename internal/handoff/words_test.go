package handoff

import (
	"reflect"
	"regexp"
	"testing"
)

// TestWordsCompile: every pattern words.txt makes compiles. They are
// compiled at first use, so a bad one would otherwise panic mid-session.
func TestWordsCompile(t *testing.T) {
	v := reflect.ValueOf(lex()).Elem()
	n := 0
	for i := range v.NumField() {
		w := v.Field(i).Interface().(wordList)
		for lang, res := range w.pats {
			for _, re := range res {
				if _, err := regexp.Compile(re.src); err != nil {
					t.Errorf("list %s, %q: %v", v.Type().Field(i).Name, lang, err)
				}
				n++
			}
		}
	}
	if n < 100 {
		t.Errorf("%d patterns; words.txt was not read", n)
	}
}
