// Package digits writes counts for people to read: 1234567 as 1,234,567.
// The chat, the trace views and the eval reports share it, so a count
// reads the same in all three.
//
// It imports none of godwit's packages.
package digits

import "strconv"

// Group writes n with its digits grouped by thousands: 1,234,567; -1,234.
func Group(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	b := make([]byte, 0, len(sign)+len(s)+len(s)/3)
	b = append(b, sign...)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}
