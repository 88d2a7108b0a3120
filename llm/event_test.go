package llm

import (
	"encoding/json"
	"testing"
	"time"
)

// Every duration godwit prints in JSON is in milliseconds; the retry's
// wait too. Records written before wait_ms still read.
func TestRetryJSONInMilliseconds(t *testing.T) {
	r := Retry{Attempt: 2, Wait: 1500 * time.Millisecond, Reason: "HTTP 529", Discarded: true}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"attempt":2,"wait_ms":1500,"reason":"HTTP 529","discarded":true}` {
		t.Errorf("JSON = %s", got)
	}
	var back Retry
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	var old Retry
	if err := json.Unmarshal([]byte(`{"attempt":3,"wait":2000000000,"reason":"x"}`), &old); err != nil || old.Wait != 2*time.Second {
		t.Errorf("an old record = %+v, %v", old, err)
	}
}
