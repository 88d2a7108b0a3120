package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/digits"
	"github.com/godwit/godwit/internal/termsafe"
)

// thousands writes n with comma separators: 128,000.
func thousands(n int) string { return digits.Group(int64(n)) }

// short writes a token count compactly: 950, 12.3k, 1.2M.
func short(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 100_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	case n < 1_000_000:
		return strconv.FormatInt(n/1000, 10) + "k"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
}

func percent(f float64) string {
	if f > 0 && f < 0.01 {
		return "<1%"
	}
	return strconv.Itoa(int(f*100+0.5)) + "%"
}

func money(f float64) string {
	if f < 10 {
		return fmt.Sprintf("$%.4f", f)
	}
	return fmt.Sprintf("$%.2f", f)
}

// duration writes d for a tool line: 12ms, 3.4s, 2m05s.
func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// oneLine cuts s to its first line and at most n runes.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// countLines is the number of lines of s (a trailing newline does not
// start another).
func countLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// elapsed writes a running time in whole seconds: 7s, 2m05s.
func elapsed(d time.Duration) string {
	d = d.Truncate(time.Second)
	if d < time.Minute {
		return strconv.Itoa(int(d.Seconds())) + "s"
	}
	return duration(d)
}

// table lays rows out in columns two spaces apart; align has an 'l' or
// 'r' per column (left when missing).
func table(rows [][]string, align string) string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			if i > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(c))
			if i < len(align) && align[i] == 'r' {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// clean makes tool output safe to draw (termsafe.Text: a command's
// colours, carriage returns, bells and the sequences an attacker would
// send go), tabs as spaces.
func clean(s string) string {
	return strings.ReplaceAll(termsafe.Text(s), "\t", "    ")
}
