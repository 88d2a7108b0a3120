package calc

import "testing"

func TestAdd(t *testing.T) {
	for _, c := range []struct{ a, b, want int }{{1, 2, 3}, {0, 0, 0}, {-2, 5, 3}} {
		if got := Add(c.a, c.b); got != c.want {
			t.Errorf("Add(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestMul(t *testing.T) {
	if got := Mul(3, 4); got != 12 {
		t.Errorf("Mul(3, 4) = %d, want 12", got)
	}
}
